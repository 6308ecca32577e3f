import torch
from torch import nn
torch.manual_seed(0)
device = "cuda" if torch.cuda.is_available() else "cpu"
X = torch.rand(200, 1) * 5                       # 200 house sizes
y = 2 * X + 3 + 0.5 * torch.randn(200, 1)        # prices with noise
X, y = X.to(device), y.to(device)                # move data to the GPU if present
model = nn.Linear(1, 1).to(device)               # holds w and b, requires_grad=True
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.02)
for epoch in range(100):
    for i in range(0, 200, 32):                  # mini-batches of 32
        xb, yb = X[i:i + 32], y[i:i + 32]
        pred = model(xb)                         # 1. forward pass (graph is recorded)
        loss = loss_fn(pred, yb)                 # 2. loss
        optimizer.zero_grad()                    # 3. clear old gradients
        loss.backward()                          # 4. autograd fills .grad
        optimizer.step()                         # 5. w -= lr * w.grad, b -= lr * b.grad
print(model.weight.item(), model.bias.item())    # should approach 2 and 3
