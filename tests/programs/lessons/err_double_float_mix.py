import torch
from torch import nn
x = torch.tensor([[1.0, 2.0]], dtype=torch.float64)
layer = nn.Linear(2, 1)
print(layer(x))
