# d2l 5.4 (numerical stability and initialisation): the sigmoid's vanishing gradient,
# a product of 100 random 4x4 Gaussian matrices exploding, and Xavier initialisation.
import torch
from torch import nn

x = torch.arange(-8.0, 8.0, 0.1, requires_grad=True)
y = torch.sigmoid(x)
y.backward(torch.ones_like(x))
print(f"{y[0].item():.6f} {x.grad[0].item():.6e} {x.grad[80].item():.6f}")
print((x.grad < 1e-3).sum().item(), "of", x.numel(), "gradients below 1e-3")

torch.manual_seed(45)
M = torch.normal(0, 1, size=(4, 4))
print("a single matrix \n", M)
for i in range(100):
    M = torch.mm(M, torch.normal(0, 1, size=(4, 4)))
print("after multiplying 100 matrices\n", M.abs().max() > 1e20, M.shape)

layer = nn.Linear(300, 100)
nn.init.xavier_uniform_(layer.weight)
bound = (6 / (300 + 100)) ** 0.5
print(f"{bound:.5f}", layer.weight.abs().max().item() <= bound)
nn.init.xavier_normal_(layer.weight)
nn.init.zeros_(layer.bias)
print(layer.weight.shape, layer.bias.abs().sum().item())
