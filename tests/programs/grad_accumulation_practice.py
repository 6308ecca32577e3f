import torch
torch.manual_seed(0)
x = torch.rand(64, dtype=torch.float64) * 5
y = 2 * x + 3
w = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
b = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.05)
opt.zero_grad()
loss = ((w * x + b - y) ** 2).mean()
loss.backward()
print(f"one batch of 64    : dL/dw={w.grad.item():.4f}  dL/db={b.grad.item():.4f}")
opt.zero_grad()
for i in range(0, 64, 16):
    loss = ((w * x[i:i + 16] + b - y[i:i + 16]) ** 2).mean() / 4
    loss.backward()
print(f"4 batches of 16    : dL/dw={w.grad.item():.4f}  dL/db={b.grad.item():.4f}")
opt.step()
print(f"after one step     : w={w.item():.4f}  b={b.item():.4f}")
