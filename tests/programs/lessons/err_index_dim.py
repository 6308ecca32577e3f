import torch
x = torch.ones(2, 3)
print(x[1, 2])
print(x[0, 3])
