import torch
from torch import nn
torch.manual_seed(0)
X = torch.randn(8, 2)
y = torch.tensor([0, 1, 1, 0, 1, 0, 0, 1])
model = nn.Sequential(nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 2))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
criterion = nn.CrossEntropyLoss()
X_batch = X[:4]
y_batch = y[:4]
micro_batch_size = 2
n_micro = len(X_batch) // micro_batch_size
optimizer.zero_grad()
for i in range(n_micro):
    x_micro = X_batch[i * micro_batch_size : (i + 1) * micro_batch_size]
    y_micro = y_batch[i * micro_batch_size : (i + 1) * micro_batch_size]
    logits = model(x_micro)
    loss = criterion(logits, y_micro) / n_micro
    loss.backward()
acc = {name: p.grad.clone() for name, p in model.named_parameters()}
optimizer.zero_grad()
loss_full = criterion(model(X_batch), y_batch)
loss_full.backward()
for name, p in model.named_parameters():
    print(f"{name:10s} {acc[name].norm().item():.6f} {p.grad.norm().item():.6f}")
optimizer.step()
print(model[0].weight)
print(loss_full, logits)
