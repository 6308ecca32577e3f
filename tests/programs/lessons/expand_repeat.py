import torch
b = torch.tensor([1.0, 2.0, 3.0])
print(b.expand(2, 3))
print(b.unsqueeze(0).expand(2, -1))
print(b.expand_as(torch.zeros(4, 3)).shape)
x = torch.zeros(2, 1, 3)
print(x.squeeze(1).shape, x.squeeze(-2).shape)
