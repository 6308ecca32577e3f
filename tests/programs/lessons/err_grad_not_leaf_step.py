import torch
w = torch.tensor([1.0], requires_grad=True)
v = w * 2
opt = torch.optim.SGD([v], lr=0.1)
