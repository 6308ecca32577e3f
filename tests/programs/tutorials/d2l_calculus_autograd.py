# d2l 2.4-2.5 (calculus, automatic differentiation): a numerical derivative converging as
# h shrinks, then autograd: gradient of 2 x.x, reset with zero_, sum of a non-scalar,
# detach to treat a result as a constant, and Python control flow through a random scalar
# made with torch.randn(size=(), requires_grad=True).
import numpy as np
import torch


def f(x):
    return 3 * x ** 2 - 4 * x


for h in 10.0 ** np.arange(-1, -6, -1):
    print(f"h={h:.5f}, numerical limit={(f(1 + h) - f(1)) / h:.5f}")

x = torch.arange(4.0)
print(x)
x.requires_grad_(True)
print(x.grad)
y = 2 * torch.dot(x, x)
print(y)
y.backward()
print(x.grad)
print(x.grad == 4 * x)

x.grad.zero_()
y = x.sum()
y.backward()
print(x.grad)

x.grad.zero_()
y = x * x
y.backward(gradient=torch.ones(len(y)))
print(x.grad)

x.grad.zero_()
y = x * x
u = y.detach()
z = u * x
z.sum().backward()
print(x.grad == u)
x.grad.zero_()
y.sum().backward()
print(x.grad == 2 * x)


def g(a):
    b = a * 2
    while b.norm() < 1000:
        b = b * 2
    if b.sum() > 0:
        c = b
    else:
        c = 100 * b
    return c


torch.manual_seed(33)
a = torch.randn(size=(), requires_grad=True)
d = g(a)
d.backward()
print(a.grad == d / a, (d / a).item())
