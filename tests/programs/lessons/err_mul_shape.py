import torch
a = torch.ones(2, 3)
b = torch.ones(3, 2)
print(a * b)
