import torch
torch.manual_seed(42)
W1 = torch.randn(4, 2, requires_grad=True)
b1 = torch.zeros(4, requires_grad=True)
W2 = torch.randn(3, 4, requires_grad=True)
b2 = torch.zeros(3, requires_grad=True)
x_t = torch.tensor([0.5, -1.2])
z1 = W1 @ x_t + b1
a1 = torch.sigmoid(z1)
z2 = W2 @ a1 + b2
log_probs = torch.log_softmax(z2, dim=0)
loss = -log_probs[1]
loss.backward()
print(loss)
print(W1.grad)
print(b1.grad, b2.grad)
print(z1.grad_fn, loss.grad_fn.name())
