"""detach() shares the version counter with its source (an in-place change through the detached
tensor is caught by backward, with PyTorch's message); .data does not (PyTorch's documented
difference)."""

import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a.exp()
c = b.detach()
c.add_(1)
print(b, c, b._version, c._version)
try:
    b.sum().backward()
except RuntimeError as e:
    print(str(e).split(" Hint")[0])
w = torch.tensor([3.0, 4.0], requires_grad=True)
y = w * w
d = w.detach()
d.zero_()
print(w, d._version, w._version)
try:
    y.sum().backward()
except RuntimeError as e:
    print(str(e).split(" Hint")[0])
v = torch.tensor([1.0, 2.0], requires_grad=True)
z = v * v
v.data.mul_(2)
z.sum().backward()
print(v.grad, v._version)
e = a.detach()
e2 = e.detach()
e2[0] = 7.0
print(a, a._version, e._version, e2._version)
