"""optimizer.add_param_group: a second group with its own learning rate (printed, stepped), the
duplicate-parameter error, and a group overriding Adam's betas."""

import torch
import torch.nn as nn
torch.manual_seed(0)
a = nn.Linear(2, 2)
b = nn.Linear(2, 1)
opt = torch.optim.SGD(a.parameters(), lr=0.1)
opt.add_param_group({"params": b.parameters(), "lr": 0.01})
print(opt)
print(len(opt.param_groups), [g["lr"] for g in opt.param_groups])
x = torch.randn(4, 2)
loss = b(a(x)).pow(2).mean()
loss.backward()
opt.step()
print(a.weight, b.weight)
try:
    opt.add_param_group({"params": a.parameters()})
except ValueError as e:
    print(e)
adam = torch.optim.Adam([a.weight], lr=0.01)
adam.add_param_group({"params": [a.bias], "betas": (0.5, 0.9)})
print(adam)
