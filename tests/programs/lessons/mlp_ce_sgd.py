import torch
from torch import nn
torch.manual_seed(0)
X = torch.randn(30, 2)
y = (X[:, 0] + X[:, 1] > 0).long()
model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
loss_fn = nn.CrossEntropyLoss()
opt = torch.optim.SGD(model.parameters(), lr=0.5)
for epoch in range(50):
    logits = model(X)
    loss = loss_fn(logits, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 0:
        acc = (logits.argmax(dim=1) == y).float().mean()
        print(f"epoch {epoch:3d} | loss {loss.item():.4f} | acc {acc.item():.3f}")
with torch.no_grad():
    final = (model(X).argmax(1) == y).float().mean().item()
print(f"final accuracy {final:.2f}")
print(y[:10], y.dtype)
