# Fit y = sin(x) on [-pi, pi] with a cubic a + b x + c x^2 + d x^3, by autograd and plain
# gradient descent: 2,000 points, 2,000 steps (the pattern of PyTorch's "Learning PyTorch with
# Examples"). Each step records a handful of nodes; the whole run records ~18,000.
import math

import torch

dtype = torch.float
torch.manual_seed(0)

x = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
y = torch.sin(x)

a = torch.randn((), dtype=dtype, requires_grad=True)
b = torch.randn((), dtype=dtype, requires_grad=True)
c = torch.randn((), dtype=dtype, requires_grad=True)
d = torch.randn((), dtype=dtype, requires_grad=True)

step_size = 1e-6
for step in range(2000):
    y_hat = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_hat - y).pow(2).sum()
    if step % 200 == 199:
        print(step, round(loss.item()))
    loss.backward()
    with torch.no_grad():
        for p in (a, b, c, d):
            p -= step_size * p.grad
            p.grad = None

print(f"y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3")
