import torch
opt = torch.optim.SGD([], lr=0.1)
