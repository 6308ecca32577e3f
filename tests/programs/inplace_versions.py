import torch
from attempt import attempt

a = torch.tensor([1.0, 2.0, 3.0])
a.add_(1)
print(a)
a.sub_(0.5)
print(a)
a.mul_(2)
print(a)
a.add_(torch.tensor([1.0, 1.0, 1.0]))
print(a)
a.fill_(7)
print(a)
a.zero_()
print(a)
a.copy_(torch.tensor([4, 5, 6]))
print(a, a.dtype)
r = a.add_(1)
print(r is a, r)
b = torch.ones(2, 2)
b += torch.tensor([1.0, 2.0])
b *= 3
b -= 1
print(b)
c = torch.tensor([1, 2])
c.add_(2)
c.mul_(3)
print(c)
attempt("broadcast inplace", lambda: torch.ones(2).add_(torch.ones(2, 2)))
w = torch.tensor([1.0, 2.0], requires_grad=True)
attempt("leaf add_", lambda: w.add_(1))
attempt("leaf zero_", lambda: w.zero_())
attempt("leaf fill_", lambda: w.fill_(0))
attempt("leaf copy_", lambda: w.copy_(torch.ones(2)))
with torch.no_grad():
    w.add_(1)
    w.mul_(2)
    w.sub_(torch.tensor([1.0, 1.0]))
print(w, w.requires_grad, w.is_leaf, w.grad_fn)
h = w * 2
h.add_(1)
print(h, h.grad_fn)
h.sum().backward()
print(w.grad)
k = w * 1
k.mul_(3)
print(k.grad_fn, k.grad_fn.next_functions[0][0])
w.grad = None
k.sum().backward()
print(w.grad)
s = w.sigmoid()
s.mul_(2)
attempt("sigmoid out modified", lambda: s.sum().backward())
e = w.exp()
e.add_(1)
attempt("exp out modified", lambda: e.sum().backward())
t = w.tanh()
u = t * 1
u.zero_()
w.grad = None
u.sum().backward()
print(w.grad)
x = w * 2
y = x * x
x.add_(1)
x2 = w * 2
y2 = x2 + x2
x2.add_(1)
y2.sum().backward()
print("add ok", w.grad)
x3 = w.clone()
y3 = x3**2
x3.fill_(0)
x4 = w.detach()
x4.zero_()
print(w)
v = torch.tensor([1.0, 2.0], requires_grad=True)
z = v * 2
print(z)
d = torch.zeros(3)
d[1] = 5
d[torch.tensor([True, False, True])] = 2
print(d)
with torch.no_grad():
    v[0] = 100
print(v, v.requires_grad)
q = torch.tensor([1.0, 2.0], requires_grad=True)
with torch.no_grad():
    q -= 0.1 * torch.tensor([1.0, 1.0])
print(q, q.is_leaf, q.grad_fn)
n = torch.ones(3)
n[0] += 5
n[1:] *= 2
print(n)
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
m[0].add_(10)
print(m)
m[:, 1].mul_(0)
print(m)
m.T.fill_(1)
print(m)
