import torch
from torch import nn

torch.manual_seed(0)
a = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
torch.manual_seed(1)
b = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
print(list(a.state_dict().keys()))
x = torch.tensor([[1.0, -1.0]])
print(torch.equal(a(x), b(x)))
b.load_state_dict(a.state_dict())
print(torch.equal(a(x), b(x)))
sd = {k: v.clone() for k, v in a.state_dict().items()}
with torch.no_grad():
    a[0].weight.add_(1.0)
print(torch.equal(sd["0.weight"] + 1, a[0].weight), sd["2.bias"].requires_grad)
