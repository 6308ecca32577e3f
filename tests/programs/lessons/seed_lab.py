import torch

x = torch.linspace(-2, 2, 9)
y = 2 * x - 1
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
prediction = w * x + b
loss = ((prediction - y) ** 2).mean()
print(loss.requires_grad, loss.grad_fn is not None)
loss.backward()
print(w.grad, b.grad)
print(torch.isfinite(w.grad).item(), torch.isfinite(b.grad))
losses = []
for step in range(60):
    prediction = w * x + b
    loss = ((prediction - y) ** 2).mean()
    if w.grad is not None:
        w.grad.zero_()
        b.grad.zero_()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        b -= 0.1 * b.grad
    losses.append(loss.item())
print(losses[0] > losses[-1], len(losses))
print(f"w={w.item():.3f}, b={b.item():.3f}")
loss_value = loss.item()
loss_value.backward()
