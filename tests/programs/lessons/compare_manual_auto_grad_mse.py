import torch
torch.manual_seed(1)
X = torch.randn(5, 2)
y = torch.randn(5, 1)
W = torch.randn(2, 1, requires_grad=True)
b = torch.zeros(1, requires_grad=True)
pred = X @ W + b
loss = ((pred - y) ** 2).mean()
loss.backward()
n = X.shape[0]
dW = 2 / n * X.T @ (pred.detach() - y)
db = 2 / n * (pred.detach() - y).sum(dim=0)
print(W.grad)
print(dW)
print(b.grad, db)
print(torch.allclose(W.grad, dW), torch.allclose(b.grad, db))
