import torch
x = torch.ones(2, 3)
print(x.sum(dim=1))
print(x.sum(dim=2))
