import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
v = torch.ones_like(y)
y.backward(v)
print(x.grad)
print(torch.ones_like(x), torch.zeros_like(x), torch.full_like(x, 3.0))
print(torch.rand_like(x).shape, torch.randn_like(x).dtype)
