import torch
x = torch.arange(5)
i = torch.tensor(1.0)
print(x[2])
print(x[i])
