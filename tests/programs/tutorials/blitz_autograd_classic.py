# The blitz's autograd page (2018-2020 edition): grad_fn after each op, requires_grad_,
# backward of a mean, a vector-Jacobian product with a growing loop, no_grad and detach.
import torch

torch.manual_seed(21)

x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)

a = torch.randn(2, 2)
a = ((a * 3) / (a - 1))
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)

out.backward()
print(x.grad)

v_in = torch.randn(3, requires_grad=True)
grow = v_in * 2
doublings = 1
while grow.data.norm() < 1000:
    grow = grow * 2
    doublings += 1
print(doublings, grow)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
grow.backward(v)
print(v_in.grad)

print(v_in.requires_grad)
print((v_in ** 2).requires_grad)
with torch.no_grad():
    print((v_in ** 2).requires_grad)

frozen = v_in.detach()
print(frozen.requires_grad)
print(v_in.eq(frozen).all())
