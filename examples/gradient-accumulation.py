import torch

torch.manual_seed(0)
x = torch.rand(64) * 5
y = 2 * x + 3
w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.05)

def loss_on(xb, yb, scale=1.0):
    return scale * ((w * xb + b - yb) ** 2).mean()

# A) one backward pass on all 64 examples
opt.zero_grad()
loss_on(x, y).backward()
print(f"one batch of 64    : dL/dw={w.grad.item():.4f}  dL/db={b.grad.item():.4f}")
# B) four backward passes on 16 examples each, with no zero_grad in between
opt.zero_grad()
for i in range(0, 64, 16):
    loss_on(x[i:i + 16], y[i:i + 16], scale=1 / 4).backward()
print(f"4 batches of 16    : dL/dw={w.grad.item():.4f}  dL/db={b.grad.item():.4f}")
opt.step()
print(f"after one step     : w={w.item():.4f}  b={b.item():.4f}")
