"""Tensor.register_hook as tutorials use it: inspecting gradients, replacing them (clipping,
scaling), hooks on leaves and intermediates, the order hooks run in, retain_grad seeing the
hooked gradient, handle.remove(), hooks on module parameters, hooks under autograd.grad and
create_graph, and PyTorch's errors."""

import torch

seen = []
x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
h = x.register_hook(lambda g: seen.append(g.clone()))
y = x * 2
y.retain_grad()
hy = y.register_hook(lambda g: g * 10)  # replaces the gradient that flows on
y.register_hook(lambda g: print("second hook sees", g))
(y * y).sum().backward()
print("x.grad", x.grad, "y.grad", y.grad)
print("leaf hook saw", seen)

h.remove()
hy.remove()
x.grad = None
(x * 2 * x).sum().backward()
print("after remove", x.grad, len(seen))

# retain_grad always runs after the other hooks, whichever was registered first
x.grad = None
y = x * 3
y.retain_grad()
y.register_hook(lambda g: g + 1)
y.sum().backward()
print("retain after hooks", y.grad, x.grad)

# a leaf's hook changes what is accumulated into .grad (each backward)
w = torch.tensor([0.5, 0.5], requires_grad=True)
hw = w.register_hook(lambda g: g.clamp(-1.0, 1.0))
for _ in range(2):
    (w * torch.tensor([5.0, -0.25])).sum().backward()
    print("clipped accumulation", w.grad)
hw.remove()

# a leaf used twice: its hook runs once, with the summed gradient
calls = []
v = torch.tensor(2.0, requires_grad=True)
v.register_hook(lambda g: calls.append(g.item()))
(v * v + 3 * v).backward()
print("calls", calls, v.grad)

# a hook on the loss sees the seed gradient and may scale it
p = torch.tensor([1.0, 2.0], requires_grad=True)
loss = (p**2).sum()
loss.register_hook(lambda g: print("loss hook", g) or g * 0.5)
loss.backward()
print("scaled", p.grad)

# gradient clipping on a model's parameters with hooks
torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
handles = [q.register_hook(lambda g: g.clamp(-0.1, 0.1)) for q in model.parameters()]
X = torch.tensor([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]])
out = model(X).pow(2).sum() * 100
out.backward()
for name, q in model.named_parameters():
    print(name, round(q.grad.abs().max().item(), 4), tuple(q.grad.shape))
for handle in handles:
    handle.remove()
model.zero_grad()
model(X).pow(2).sum().mul(100).backward()
print("unclipped", model[2].bias.grad)

# recording intermediate gradients (activations) with hooks
grads = {}
hidden = model[1](model[0](X))
hidden.register_hook(lambda g: grads.__setitem__("hidden", g))
model[2](hidden).sum().backward()
print("hidden grad", grads["hidden"].shape, torch.allclose(grads["hidden"], model[2].weight.expand(2, 4)))

# hooks under autograd.grad: a leaf's hook changes the returned gradient
a = torch.tensor([1.0, 2.0], requires_grad=True)
ha = a.register_hook(lambda g: g * 0 + 7)
print("grad()", torch.autograd.grad((a * 5).sum(), a))
ha.remove()

# create_graph: the hook gets a gradient that is part of the graph
b = torch.tensor(3.0, requires_grad=True)
c = b**2
c.register_hook(lambda g: g * 2)
(gb,) = torch.autograd.grad(c, b, create_graph=True)
print(gb, gb.requires_grad)
print(torch.autograd.grad(gb, b))

# errors
try:
    torch.tensor([1.0]).register_hook(lambda g: g)
except RuntimeError as e:
    print("RuntimeError:", e)
for bad in (lambda g: g.sum(), lambda g: g.double()):
    z = x * 3
    z.register_hook(bad)
    try:
        z.sum().backward()
    except RuntimeError as e:
        print("RuntimeError:", e)
z = x * 3
z.register_hook(lambda g: 3)
try:
    z.sum().backward()
except TypeError as e:
    print("TypeError:", e)
with torch.no_grad():
    frozen = x * 2
try:
    frozen.register_hook(lambda g: g)
except RuntimeError as e:
    print("RuntimeError:", e)
