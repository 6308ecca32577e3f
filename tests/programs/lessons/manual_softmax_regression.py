import torch
torch.manual_seed(0)
X = torch.randn(12, 3)
y = torch.tensor([0, 1, 2] * 4)
W = torch.zeros(3, 3, requires_grad=True)
b = torch.zeros(3, requires_grad=True)
for step in range(30):
    logits = X @ W + b
    loss = torch.nn.functional.cross_entropy(logits, y)
    loss.backward()
    with torch.no_grad():
        W -= 0.5 * W.grad
        b -= 0.5 * b.grad
    W.grad.zero_()
    b.grad.zero_()
    if step % 10 == 9:
        acc = (logits.argmax(1) == y).float().mean()
        print(f"{step + 1:3d} {loss.item():.4f} {acc:.2f}")
print(W)
