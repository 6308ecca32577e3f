import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.randn(3, 4, requires_grad=True)
ys = [F.gelu(x), F.silu(x), F.softplus(x), F.elu(x), F.leaky_relu(x, 0.2), torch.erf(x), x.tan(), x.abs().log2(), x.abs().log10(), x.expm1()]
total = sum(y.sum() for y in ys)
total.backward()
print(total, x.grad)
print([y.grad_fn.name() for y in ys])
m = nn.Sequential(nn.Linear(4, 3), nn.GELU(), nn.Linear(3, 2), nn.SiLU(), nn.Softplus(), nn.ELU(), nn.LeakyReLU(0.1))
print(m)
print(m(x))
