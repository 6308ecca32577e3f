import torch
from torch import nn
p = nn.Parameter(torch.tensor([1.0, 2.0]))
print(p)
print(p.requires_grad, p.is_leaf)
q = p * 2
print(q)
print(nn.Parameter(torch.zeros(2, 2)))
print(nn.Parameter(torch.tensor(3.0), requires_grad=False))
