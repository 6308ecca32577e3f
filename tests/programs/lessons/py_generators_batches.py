import torch

def batches(X, y, size):
    for i in range(0, len(X), size):
        yield X[i:i + size], y[i:i + size]

def epochs(n):
    epoch = 0
    while epoch < n:
        yield epoch
        epoch += 1

torch.manual_seed(1)
X = torch.rand(40, 1) * 4
y = 3 * X - 1
w = torch.zeros(1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for epoch in epochs(25):
    total = 0.0
    for xb, yb in batches(X, y, 8):
        loss = ((xb * w + b - yb) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.05 * w.grad
            b -= 0.05 * b.grad
        w.grad.zero_()
        b.grad.zero_()
        total += loss.item()
    if epoch % 8 == 0:
        print(epoch, round(total, 4))
print(round(w.item(), 3), round(b.item(), 3))
sizes = [len(xb) for xb, _ in batches(X, y, 16)]
print(sizes, sum(1 for _ in batches(X, y, 7)))
