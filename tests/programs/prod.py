"""prod: of all elements and along a dim, integer promotion, and gradients that stay exact when
elements are zero (one zero, two zeros)."""

import torch
x = torch.tensor([[1.0, 2.0, 0.0], [3.0, 4.0, 5.0]], requires_grad=True)
y = x.prod()
print(y, y.grad_fn.name())
y.backward()
print(x.grad)
x.grad = None
z = x.prod(dim=1)
print(z, z.grad_fn.name())
z.sum().backward()
print(x.grad)
print(torch.tensor([1, 2, 3]).prod(), torch.prod(torch.tensor([[1, 2], [3, 4]]), 0, keepdim=True), torch.tensor([True, False]).prod())
w = torch.tensor([2.0, 0.0, 0.0], requires_grad=True)
w.prod().backward()
print(w.grad)
print(torch.tensor(3.0, requires_grad=True).prod())
