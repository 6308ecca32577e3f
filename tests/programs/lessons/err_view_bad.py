import torch
x = torch.arange(10)
print(x.view(2, 5))
y = x.view(3, -1)
