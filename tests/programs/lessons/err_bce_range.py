import torch
from torch import nn
p = torch.tensor([0.5, 1.5])
t = torch.tensor([1.0, 0.0])
print(nn.BCELoss()(p, t))
