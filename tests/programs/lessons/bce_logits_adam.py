import torch
from torch import nn
torch.manual_seed(3)
X = torch.randn(40, 3)
true_w = torch.tensor([1.5, -2.0, 0.5])
y = (X @ true_w > 0).float().unsqueeze(1)
model = nn.Linear(3, 1)
loss_fn = nn.BCEWithLogitsLoss()
opt = torch.optim.Adam(model.parameters(), lr=0.1)
for step in range(1, 61):
    opt.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step}: loss={loss.item():.4f}")
probs = torch.sigmoid(model(X))
preds = (probs > 0.5).float()
print("accuracy", (preds == y).float().mean().item())
print(probs[:3])
print(model.weight.data, model.bias.data)
