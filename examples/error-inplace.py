import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = torch.sigmoid(x)
y.mul_(2)
y.sum().backward()
