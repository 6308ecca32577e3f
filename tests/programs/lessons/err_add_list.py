import torch
x = torch.ones(2, 2)
y = x.reshape(4)
print(y)
print(x.view(3))
