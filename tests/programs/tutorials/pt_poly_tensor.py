# The same cubic fit with torch tensors and hand-written gradients (no autograd yet).
import math

import torch

torch.manual_seed(0)
dtype = torch.float
device = torch.device("cpu")

xs = torch.linspace(-math.pi, math.pi, 2000, device=device, dtype=dtype)
target = torch.sin(xs)

# scalar coefficients: randn with an empty shape
c0 = torch.randn((), device=device, dtype=dtype)
c1 = torch.randn((), device=device, dtype=dtype)
c2 = torch.randn((), device=device, dtype=dtype)
c3 = torch.randn((), device=device, dtype=dtype)
print(c0, c1, c2, c3)

step_size = 1e-6
for step in range(2000):
    guess = c0 + c1 * xs + c2 * xs ** 2 + c3 * xs ** 3
    err = (guess - target).pow(2).sum().item()
    if step % 100 == 99:
        print(step, err)
    d_guess = 2.0 * (guess - target)
    g0 = d_guess.sum()
    g1 = (d_guess * xs).sum()
    g2 = (d_guess * xs ** 2).sum()
    g3 = (d_guess * xs ** 3).sum()
    c0 -= step_size * g0
    c1 -= step_size * g1
    c2 -= step_size * g2
    c3 -= step_size * g3

print(f"Result: y = {c0.item()} + {c1.item()} x + {c2.item()} x^2 + {c3.item()} x^3")
