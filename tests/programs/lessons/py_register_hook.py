import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
seen = []
h1 = x.register_hook(lambda g: seen.append(g.clone()))
h2 = x.register_hook(lambda g: g * 2)
y = (x * x).sum()
y.backward()
print(x.grad, seen)
h2.remove()
x.grad = None
(x * x).sum().backward()
print(x.grad, len(seen))
h1.remove()

w = torch.tensor(2.0, requires_grad=True)
mid = w * 3
mid.register_hook(lambda g: print("grad at mid:", g))
mid.retain_grad()
(mid ** 2).backward()
print(mid.grad, w.grad)

def clip(g):
    return g.clamp(-1, 1)

z = torch.tensor([0.5, -4.0], requires_grad=True)
z.register_hook(clip)
(z * 10).sum().backward()
print(z.grad)
try:
    torch.tensor(1.0).register_hook(print)
except RuntimeError as e:
    print("error:", e)
