import torch
from torch import nn
pred = torch.ones(4, 1)
target = torch.zeros(4)
loss = nn.MSELoss()(pred, target)
print(loss)
print((pred - target).shape)
