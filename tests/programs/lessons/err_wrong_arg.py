import torch
from torch import nn
model = nn.Linear(2, 2)
opt = torch.optim.SGD(model.parameters())
