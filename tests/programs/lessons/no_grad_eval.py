import torch
from torch import nn
torch.manual_seed(1)
model = nn.Linear(3, 2)
x = torch.randn(4, 3)
with torch.no_grad():
    out = model(x)
print(out.requires_grad, out.grad_fn)
out2 = model(x)
print(out2.requires_grad, out2.grad_fn)
print(torch.is_grad_enabled())
with torch.no_grad():
    print(torch.is_grad_enabled())
print(out)
model.eval()
print(model.training)
model.train()
print(model.training)
