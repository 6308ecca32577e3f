import torch
from torch import nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 3))
print(model)
for name, p in model.named_parameters():
    print(name, p.shape, p.requires_grad)
for p in model.parameters():
    print(p.shape)
print(sum(p.numel() for p in model.parameters()))
sd = model.state_dict()
print(list(sd.keys()))
for k, v in sd.items():
    print(k, tuple(v.shape))
print(model[0])
print(model[0].weight.shape, model[2].bias)
print(len(model))
print(nn.Linear(3, 1, bias=False))
print(nn.MSELoss(), nn.CrossEntropyLoss(), nn.Sigmoid(), nn.Tanh())
