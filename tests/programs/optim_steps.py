import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(1)
X = torch.rand(20, 2) * 4 - 2
y = (X[:, :1] * 1.5 - X[:, 1:] * 0.5 + 0.25).detach()
configs = [
    ("sgd", lambda ps: torch.optim.SGD(ps, lr=0.1)),
    ("sgd_mom", lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9)),
    ("sgd_wd", lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.5, weight_decay=0.01)),
    ("sgd_nesterov", lambda ps: torch.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True)),
    ("adam", lambda ps: torch.optim.Adam(ps, lr=0.05)),
    ("adam_wd", lambda ps: torch.optim.Adam(ps, lr=0.01, betas=(0.8, 0.99), weight_decay=0.1)),
]
for name, make in configs:
    torch.manual_seed(0)
    model = nn.Linear(2, 1)
    opt = make(model.parameters())
    for step in range(6):
        opt.zero_grad()
        loss = F.mse_loss(model(X), y)
        loss.backward()
        opt.step()
        if step % 2 == 0:
            print(f"{name} step {step}: loss={loss.item():.5f}")
    print(name, model.weight.data, model.bias.data)
    print(name, [round(v, 4) for v in model.weight.view(-1).tolist()])
w = torch.tensor([1.0, -2.0], requires_grad=True)
opt = torch.optim.SGD([w], lr=0.5)
print(opt.param_groups[0]["lr"], len(opt.param_groups), opt.param_groups[0]["momentum"])
(w**2).sum().backward()
print(w.grad)
opt.step()
print(w)
opt.zero_grad()
print(w.grad)
(w**2).sum().backward()
opt.zero_grad(set_to_none=False)
print(w.grad)
(w * 3).sum().backward()
(w * 3).sum().backward()
print(w.grad)
for g in opt.param_groups:
    g["lr"] = 0.1
opt.step()
print(w)
a = torch.tensor([0.5], requires_grad=True)
b = torch.tensor([0.0], requires_grad=True)
opt2 = torch.optim.Adam([{"params": [a], "lr": 0.1}, {"params": [b]}], lr=0.01)
for _ in range(3):
    opt2.zero_grad()
    ((a * 2 + b - 1) ** 2).sum().backward()
    opt2.step()
print(a, b, opt2.param_groups[0]["lr"], opt2.param_groups[1]["lr"])
c = torch.tensor([1.0, 2.0], requires_grad=True)
d = torch.tensor([3.0], requires_grad=True)
opt3 = torch.optim.SGD([c, d], lr=0.1)
(c.sum() * 2).backward()
opt3.step()
print(c, d, d.grad)
torch.manual_seed(3)
net = nn.Sequential(nn.Linear(3, 5), nn.Tanh(), nn.Linear(5, 2))
opt4 = torch.optim.Adam(net.parameters(), lr=0.01)
xs = torch.randn(8, 3)
ys = torch.tensor([0, 1, 1, 0, 1, 0, 0, 1])
for epoch in range(5):
    logits = net(xs)
    loss = F.cross_entropy(logits, ys)
    opt4.zero_grad()
    loss.backward()
    opt4.step()
    acc = (logits.argmax(dim=1) == ys).float().mean()
    print(f"epoch {epoch} loss {loss.item():.4f} acc {acc.item():.3f}")
with torch.no_grad():
    preds = net(xs).argmax(1)
print(preds, preds.tolist(), (preds == ys).sum().item())
manual = torch.tensor([2.0, -1.0], requires_grad=True)
for i in range(3):
    loss = ((manual - torch.tensor([1.0, 1.0])) ** 2).sum()
    loss.backward()
    with torch.no_grad():
        manual -= 0.1 * manual.grad
    manual.grad.zero_()
    print(i, manual, loss.item())
