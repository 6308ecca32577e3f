"""Views and contiguity: is_contiguous, contiguous() (CloneBackward0), view refusing
shapes that would need a copy (PyTorch's message), reshape copying instead."""

import torch

x = torch.arange(6.0).reshape(2, 3).requires_grad_()
y = x.t()
print(y.is_contiguous(), x.is_contiguous(), y.contiguous().is_contiguous())
print(y.contiguous().grad_fn.name(), x.contiguous() is x)
try:
    y.view(-1)
except RuntimeError as e:
    print("RuntimeError:", e)
print(y.view(3, 2).shape)
try:
    y.view(4)
except RuntimeError as e:
    print("RuntimeError:", e)
e2 = torch.ones(3, 1).expand(3, 4)
print(e2.is_contiguous())
try:
    e2.view(12)
except RuntimeError as e:
    print("RuntimeError:", e)
print(e2.reshape(12))
s = x[:, 1]
print(s.is_contiguous(), s.view(2))
z = y.contiguous().view(-1)
z.sum().backward()
print(x.grad)
print(torch.tensor(3.0).is_contiguous(), x.T.T.is_contiguous(), (x.t() * 2).is_contiguous())
