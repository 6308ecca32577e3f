"""Higher-order gradients: autograd.grad(create_graph=True) and backward(create_graph=True),
second derivatives of elementwise functions, mixed partials, a gradient penalty through an MLP,
and the graph names PyTorch gives the recorded backward."""

import torch
x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g, g.grad_fn.name() if g.grad_fn else None)
(g2,) = torch.autograd.grad(g, x)
print(g2)
x = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
for f in [lambda t: t.tanh(), lambda t: t.sigmoid(), lambda t: t.exp(), lambda t: t.sin() * t.cos(), lambda t: (t * t).log(), lambda t: t.sqrt() if False else (t * t + 1).sqrt(), lambda t: 1 / (1 + t * t), lambda t: t.relu() * t, lambda t: (t - 1) ** 2 / 3]:
    y = f(x).sum()
    (g,) = torch.autograd.grad(y, x, create_graph=True)
    (h,) = torch.autograd.grad(g.sum(), x)
    print(g.detach(), h)
# backward(create_graph=True) then grad of grad
w = torch.tensor(1.5, requires_grad=True)
loss = (w ** 4 - 2 * w) 
loss.backward(create_graph=True)
print(w.grad, w.grad.requires_grad)
gw = w.grad
w.grad = None
gw.backward()
print(w.grad)
# mixed partials
a = torch.tensor(1.0, requires_grad=True)
b = torch.tensor(2.0, requires_grad=True)
z = a * a * b + b ** 3
ga, gb = torch.autograd.grad(z, (a, b), create_graph=True)
print(ga, gb)
print(torch.autograd.grad(ga, (a, b)), torch.autograd.grad(gb, (a, b), allow_unused=True))
# matmul / sum / mean
M = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
v = torch.tensor([0.5, -0.5], requires_grad=True)
out = ((M @ v).tanh() ** 2).mean()
gM, gv = torch.autograd.grad(out, (M, v), create_graph=True)
pen = (gM ** 2).sum() + (gv ** 2).sum()
pen.backward()
print(M.grad, v.grad)

import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
w = torch.tensor(1.5, requires_grad=True)
loss = w ** 4 - 2 * w
loss.backward(create_graph=True)
print(w.grad, w.grad.grad_fn.name())
loss2 = w ** 2
loss2.backward(create_graph=True)
print(w.grad, w.grad.grad_fn.name())
model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
x = torch.randn(5, 2, requires_grad=True)
y = model(x).sum()
(gx,) = torch.autograd.grad(y, x, create_graph=True)
penalty = (gx.norm(dim=1) - 1).pow(2).mean() if False else ((gx ** 2).sum(dim=1) - 1).pow(2).mean()
penalty.backward()
print(gx)
for p in model.parameters():
    print(p.grad)
logits = model(x)
target = torch.tensor([0, 0, 0, 0, 0])
z = torch.randn(5, 3, requires_grad=True)
l = F.mse_loss(z, torch.zeros(5, 3))
(gz,) = torch.autograd.grad(l, z, create_graph=True)
print(torch.autograd.grad(gz.sum(), z)[0])
