# Cubic fit with autograd: the coefficients require grad, backward() fills .grad, and the
# update runs under no_grad; the grads are reset to None each step.
import math

import torch

torch.manual_seed(1)
dtype = torch.float

xs = torch.linspace(-math.pi, math.pi, 2000, dtype=dtype)
target = torch.sin(xs)

c0 = torch.randn((), dtype=dtype, requires_grad=True)
c1 = torch.randn((), dtype=dtype, requires_grad=True)
c2 = torch.randn((), dtype=dtype, requires_grad=True)
c3 = torch.randn((), dtype=dtype, requires_grad=True)

step_size = 1e-6
for step in range(2000):
    guess = c0 + c1 * xs + c2 * xs ** 2 + c3 * xs ** 3
    err = (guess - target).pow(2).sum()
    if step % 100 == 99:
        print(step, err.item())
    err.backward()
    with torch.no_grad():
        c0 -= step_size * c0.grad
        c1 -= step_size * c1.grad
        c2 -= step_size * c2.grad
        c3 -= step_size * c3.grad
        c0.grad = None
        c1.grad = None
        c2.grad = None
        c3.grad = None

print(err.grad_fn)
print(f"Result: y = {c0.item()} + {c1.item()} x + {c2.item()} x^2 + {c3.item()} x^3")
