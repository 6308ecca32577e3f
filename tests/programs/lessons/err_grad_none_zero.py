import torch
w = torch.tensor(1.0, requires_grad=True)
w.grad.zero_()
