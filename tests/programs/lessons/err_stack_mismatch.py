import torch
a = torch.ones(3)
b = torch.ones(4)
c = torch.stack([a, b])
