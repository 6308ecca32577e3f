import torch
from torch import nn
torch.manual_seed(0)
lin = nn.Linear(2, 2)
nn.init.zeros_(lin.bias)
nn.init.ones_(lin.weight)
print(lin.weight, lin.bias)
nn.init.constant_(lin.bias, 0.5)
print(lin.bias)
nn.init.normal_(lin.weight, mean=0.0, std=0.01)
print(lin.weight)
nn.init.xavier_uniform_(lin.weight)
print(lin.weight)
