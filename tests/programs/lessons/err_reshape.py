import torch
x = torch.arange(6)
print(x.reshape(4, -1))
