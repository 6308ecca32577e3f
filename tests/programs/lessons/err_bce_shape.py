import torch
from torch import nn
z = torch.zeros(4, 1)
t = torch.ones(4)
print(nn.BCEWithLogitsLoss()(z, t))
