import torch
w = torch.tensor(5.0, requires_grad=True)
lr = 0.1
step = 0
while True:
    loss = (w - 2) ** 2
    loss.backward()
    with torch.no_grad():
        w -= lr * w.grad
    w.grad.zero_()
    step += 1
    if loss.item() < 1e-4:
        break
print(step, round(w.item(), 4), f"{loss.item():.2e}")
