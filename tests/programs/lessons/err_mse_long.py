import torch
from torch import nn
pred = torch.tensor([1.0, 2.0])
y = torch.tensor([1, 2])
print(nn.MSELoss()(pred, y))
print(nn.MSELoss()(pred.long(), y))
