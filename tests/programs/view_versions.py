"""Views (slices, transposes, view, unsqueeze) share their base's version counter, as in
PyTorch: an in-place change through a view is caught by backward when the base was saved."""

import torch
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = a * 1
y = b * b
v = b[0:2]
with torch.no_grad():
    v.mul_(2)
print(b, v._version, b._version)
try:
    y.sum().backward()
except RuntimeError as e:
    print(str(e).split(" Hint")[0])
m = torch.arange(6.0).reshape(2, 3)
t = m.t()
r = m.view(3, 2)
t[0, 0] = 100.0
print(m, m._version, t._version, r._version)
x = torch.ones(3, requires_grad=True)
z = x.exp()
zz = z.unsqueeze(0)
with torch.no_grad():
    zz.add_(1)
try:
    z.sum().backward()
except RuntimeError as e:
    print(str(e).split(" Hint")[0])
q = torch.zeros(4)
q2 = q * 2
print(q._version, q2._version)
W = torch.ones(3, 3)
for _ in range(50):
    h = (torch.ones(2, 3) @ W.T).sum()
    with torch.no_grad():
        W -= 0.01
print(W._version, W[0])
p = torch.ones(3, requires_grad=True)
with torch.no_grad():
    p.add_(1)
pv = p.view(3)
out = pv.exp()
out.sum().backward()
print(p.grad)
