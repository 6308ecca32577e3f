import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 2), nn.Sigmoid())
print(model.training)
model.eval()
print(model.training, model[0].training)
model.train()
print([m.training for m in model.modules()])
print(list(model.named_modules())[0][0] == "")
for n, m in model.named_modules():
    print(repr(n), m)
model.requires_grad_(False)
print([p.requires_grad for p in model.parameters()])
print(model(torch.ones(1, 2)).requires_grad)
