import torch
from torch import nn
torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
X = torch.rand(200, 1) * 5
y = 2 * X + 3 + 0.5 * torch.randn(200, 1)
X, y = X.to(device), y.to(device)
model = nn.Linear(1, 1).to(device)
print(model)
print(model.weight, model.bias)
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
for epoch in range(30):
    for i in range(0, 200, 32):
        xb, yb = X[i:i + 32], y[i:i + 32]
        pred = model(xb)
        loss = loss_fn(pred, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    if epoch % 10 == 0:
        print(f"epoch {epoch}: loss {loss.item():.4f}")
print(model.weight.item(), model.bias.item())
print(device, X.device, X.shape, xb.shape)
