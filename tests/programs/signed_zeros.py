"""Signed zeros as PyTorch gives them: a dead ReLU unit and clamp pass +0. back (not g · 0, which
is -0. for negative g), and a one-column matrix product is the exact outer product (-0. kept)."""

import torch
import torch.nn as nn
torch.manual_seed(42)
model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
x = torch.tensor([[1.0, -1.0]])
loss = model(x).sum()
loss.backward()
print(model[0].weight.grad)
print(model[0].bias.grad)
print(model[2].weight.grad)
print(torch.zeros(3, 1) @ -torch.ones(1, 2))
print(torch.zeros(5, 1) @ -torch.ones(1, 1), torch.zeros(1, 1) @ -torch.ones(1, 5))
w = torch.tensor([[-1.0], [2.0]])
print(torch.nn.functional.linear(torch.zeros(3, 1), w))
print(torch.nn.functional.linear(torch.zeros(3, 1), w, torch.zeros(2)))
a = torch.zeros(4, 1, requires_grad=True)
b = torch.tensor([[-1.0, 2.0, -3.0]], requires_grad=True)
(a @ b).sum().backward()
print(a.grad, b.grad)
