import torch

x = torch.ones(3, 2)
w = torch.ones(3, 2, requires_grad=True)
y = x @ w
