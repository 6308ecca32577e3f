import torch
w = torch.tensor([1.0, -1.0], requires_grad=True)
print(w.grad)
print(w.grad is None)
(w * 2).sum().backward()
print(w.grad)
w.grad.zero_()
print(w.grad)
print(w.grad is None)
w.grad = None
print(w.grad)
(w ** 2).sum().backward()
(w ** 2).sum().backward()
print(w.grad)
