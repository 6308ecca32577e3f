import torch
from torch import nn
x = torch.tensor([[1, 2]])
layer = nn.Linear(2, 1)
print(layer(x))
