import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.Sigmoid(), nn.Linear(3, 1))
print([p.shape for p in model.parameters()])
print([n for n, _ in model.named_parameters()])
print({n: p.numel() for n, p in model.named_parameters()})
total = 0
for p in model.parameters():
    total += p.numel()
print("total params:", total)
for m in model.children():
    print(m)
for name, m in model.named_children():
    print(name, m)
print(model(torch.zeros(1, 2)))
print(model[1](torch.tensor([0.0, 100.0])))
