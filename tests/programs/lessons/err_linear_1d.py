import torch
from torch import nn
torch.manual_seed(0)
m = nn.Linear(4, 2)
print(m(torch.ones(4)).shape)
print(m(torch.ones(3)))
