# d2l 6.5 (custom layers): a layer without parameters (CenteredLayer) inside a Sequential,
# and a layer with parameters (MyLinear) made of nn.Parameter, used alone and stacked.
import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(48)


class CenteredLayer(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, X):
        return X - X.mean()


layer = CenteredLayer()
print(layer(torch.tensor([1.0, 2, 3, 4, 5])))
net = nn.Sequential(nn.Linear(8, 128), CenteredLayer())
Y = net(torch.rand(4, 8))
print(f"{Y.mean().item():.1e}" if abs(Y.mean().item()) > 1e-6 else "mean is ~0")


class MyLinear(nn.Module):
    def __init__(self, in_units, units):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(in_units, units))
        self.bias = nn.Parameter(torch.randn(units,))

    def forward(self, X):
        linear = torch.matmul(X, self.weight.data) + self.bias.data
        return F.relu(linear)


linear = MyLinear(5, 3)
print(linear.weight)
print(linear(torch.rand(2, 5)))
net = nn.Sequential(MyLinear(64, 8), MyLinear(8, 1))
print(net(torch.rand(2, 64)))
print([n for n, _ in net.named_parameters()])
