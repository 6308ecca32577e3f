import torch
from torch import nn
torch.manual_seed(0)
layer = nn.Linear(3, 2)
x = torch.randn(4, 5)
print(x.shape)
out = layer(x)
