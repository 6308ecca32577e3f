# A custom autograd Function: the degree-3 Legendre polynomial with its derivative written
# by hand, used inside y = a + b * P3(c + d * x).
import math

import torch


class Legendre3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        ctx.save_for_backward(t)
        return 0.5 * (5 * t ** 3 - 3 * t)

    @staticmethod
    def backward(ctx, grad_out):
        (t,) = ctx.saved_tensors
        return grad_out * 1.5 * (5 * t ** 2 - 1)


xs = torch.linspace(-math.pi, math.pi, 2000)
target = torch.sin(xs)

# started near the answer, as the tutorial does, so that it converges
a = torch.full((), 0.0, requires_grad=True)
b = torch.full((), -1.0, requires_grad=True)
c = torch.full((), 0.0, requires_grad=True)
d = torch.full((), 0.3, requires_grad=True)

rate = 5e-6
for step in range(2000):
    P3 = Legendre3.apply
    guess = a + b * P3(c + d * xs)
    err = (guess - target).pow(2).sum()
    if step % 100 == 99:
        print(step, err.item())
    err.backward()
    with torch.no_grad():
        for coef in (a, b, c, d):
            coef -= rate * coef.grad
            coef.grad = None

print(type(guess.grad_fn).__name__)
# a and c end at zero up to rounding (the fit is odd), so they are printed to 6 places
print(f"Result: y = {a.item():.6f} + {b.item()} * P3({c.item():.6f} + {d.item()} x)")
