import torch
x = torch.ones(2, 3)
print(x.argmax(dim=1))
print(x.argmax(dim=2))
