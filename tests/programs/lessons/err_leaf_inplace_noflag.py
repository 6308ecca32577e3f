import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
lr = 0.1
(w ** 2).sum().backward()
w -= lr * w.grad
