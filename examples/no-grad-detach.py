import torch

x = torch.tensor(3.0, requires_grad=True)
y = x * x
with torch.no_grad():
    z = x * 2
d = y.detach()
print(y.requires_grad, y.grad_fn is not None)
print(z.requires_grad, z.grad_fn)
print(d.requires_grad, d.grad_fn)
out = y + d * x          # d is a constant here: d(out)/dx = 2x + d = 6 + 9
out.backward()
print(x.grad)
