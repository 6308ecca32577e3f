import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], requires_grad=True)
v, i = x.sort(dim=1)
print(v, i)
print(x.topk(2, dim=1))
print(x.cumsum(1), x.masked_fill(x > 2, 0.0).sum(), x.floor(), x.ceil(), x.nonzero())
print(F.one_hot(torch.tensor([0, 2, 1]), num_classes=3))
print(nn.Dropout(0.5), nn.Dropout(0.2).eval()(x).equal(x))
(x.topk(2).values.sum() + x.cumsum(1).sum()).backward()
print(x.grad)
print(x.new_zeros(2, 2), x.new_ones(3), torch.argsort(torch.tensor([3, 1, 2])))
