import torch
import torch.nn as nn
torch.manual_seed(3)
X = torch.randn(6, 2)
Y = (X[:, 0] > 0).float().unsqueeze(1)
model = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
loss_fn = nn.BCEWithLogitsLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
losses = []
for epoch in range(5):
    total = 0.0
    for i, (xb, yb) in enumerate(zip(X, Y)):
        opt.zero_grad()
        out = model(xb)
        loss = loss_fn(out, yb)
        loss.backward()
        opt.step()
        total += loss.item()
    losses.append(round(total / len(X), 4))
print(losses)
print(f"final: {losses[-1]:.3f}", f"{loss}", f"{loss.item():8.4f}|")
params = list(model.parameters())
print(len(params), sum(p.numel() for p in params), [tuple(p.shape) for p in params])
grads = {name: p.grad.norm().item() > 0 for name, p in model.named_parameters()}
print(grads)
best = max(losses)
print(best, min(losses), abs(-2.5), round(3.14159, 2), sorted(losses)[0])
k = 0
while True:
    k += 1
    if k >= 3:
        break
print(k, [i * i for i in range(4) if i % 2 == 0], (1, 2) + (3,))
with torch.no_grad():
    preds = torch.sigmoid(model(X)) > 0.5
    acc = (preds.float() == Y).float().mean().item()
print(f"accuracy {acc:.2%}")
print(model[0].weight.shape, model[2].bias)
