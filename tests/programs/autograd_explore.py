import torch


def attempt(label, fn):
    try:
        r = fn()
        print(label, "->", r)
    except Exception as e:
        print(label, type(e).__name__, str(e).split("\n")[0])


a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(3.0, requires_grad=True)
c = a * b
d = c + a
e = d.exp() / 100
print(c, d, e)
print(c.grad_fn, d.grad_fn, e.grad_fn)
print(c.grad_fn.name(), d.grad_fn.name(), e.grad_fn.name())
print(e.grad_fn.next_functions)
print(d.grad_fn.next_functions)
print(c.grad_fn.next_functions[0][0].variable is a)
print(a.grad_fn, a.is_leaf, c.is_leaf, a.requires_grad, c.requires_grad)
c.retain_grad()
e.backward()
print(a.grad, b.grad, c.grad)
print(d.grad is None, e.retains_grad, c.retains_grad)
attempt("second backward", lambda: e.backward())
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = (x**2).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
x.grad.zero_()
print(x.grad)
z = x * 2
attempt("non-scalar", lambda: z.backward())
z.backward(gradient=torch.tensor([1.0, 0.1, 0.01]))
print(x.grad)
x.grad = None
w = torch.ones(3)
attempt("no grad backward", lambda: w.sum().backward())
print(x.grad)
x2 = torch.tensor([1.0, 2.0], requires_grad=True)
y2 = torch.tensor([3.0, 4.0], requires_grad=True)
out = (x2 * y2 + x2**3).sum()
gx, gy = torch.autograd.grad(out, [x2, y2])
print(gx, gy, x2.grad)
out2 = (x2 * y2).sum()
(g,) = torch.autograd.grad(out2, x2)
print(g, g.requires_grad, y2.grad)
with torch.no_grad():
    n1 = x2 * 2
    print(n1.requires_grad, n1.grad_fn, torch.is_grad_enabled())
    with torch.enable_grad():
        n2 = x2 * 2
        print(n2.requires_grad, n2.grad_fn, torch.is_grad_enabled())
    print(torch.is_grad_enabled())
print(torch.is_grad_enabled())
leaf = torch.tensor([1.0, 2.0], requires_grad=True)
attempt("inplace leaf", lambda: leaf.add_(1))
attempt("inplace leaf mul", lambda: leaf.mul_(2))
with torch.no_grad():
    leaf += 1
    leaf *= 2
    leaf -= 0.5
print(leaf, leaf.is_leaf, leaf.requires_grad)
p = torch.tensor([1.0, 2.0], requires_grad=True)
q = p * 2
r = q.sigmoid()
q.add_(1)
attempt("version", lambda: r.sum().backward())
p2 = torch.tensor([1.0, 2.0], requires_grad=True)
q2 = p2.exp()
q2.mul_(2)
attempt("version exp", lambda: q2.sum().backward())
p3 = torch.tensor([1.0, 2.0], requires_grad=True)
q3 = p3 * 3
q3.add_(1)
q3.sum().backward()
print(p3.grad, q3.grad_fn)
t = torch.tensor([1.0, 2.0])
t.requires_grad_()
print(t, t.is_leaf)
u = torch.tensor([1.0, 2.0], requires_grad=True)
v = u.detach()
print(v.requires_grad, v.is_leaf, v.grad_fn)
v.zero_()
print(u)
attempt("nonleaf grad", lambda: (u * 2).grad)
acc = torch.tensor(1.0, requires_grad=True)
for i in range(3):
    (acc * (i + 1)).backward()
    print(i, acc.grad)
m = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
loss = m.max() + m.min() + m.sum(dim=0).mean() + m.amax(dim=1).sum()
loss.backward()
print(m.grad)
vals, idx = m.max(dim=1)
print(vals, idx)
print(m.max(dim=0, keepdim=True))
print(m.min(1))
print(m.sum(1, keepdim=True), m.mean(dim=(0, 1)), m.sum(dim=-1))
k = torch.tensor([1.0, -2.0, 0.0], requires_grad=True)
(k.abs() + k.relu() + k.clamp(min=-1)).sum().backward()
print(k.grad)
s = torch.tensor([0.0, 4.0], requires_grad=True)
s.sqrt().sum().backward()
print(s.grad)
l = torch.tensor([0.0, 1.0], requires_grad=True)
l.log().sum().backward()
print(l.grad)
f = torch.tensor(2.0, requires_grad=True)
print(f.item(), float(f), int(f.detach()), f.tolist())
attempt("item multi", lambda: torch.ones(2).item())
attempt("numpy grad", lambda: torch.ones(2, requires_grad=True).numpy())
print(torch.ones(2, requires_grad=True).detach().numpy())
attempt("bool ambiguous", lambda: bool(torch.ones(2)))
