import torch
x = torch.tensor(3.0, requires_grad=True)
a = x * 2
b = x ** 2
y = a + b
y.backward()
print(x.grad)
x.grad = None
z = x * x * x
g = torch.autograd.grad(z, x)
print(g)
print(g[0].item())
x2 = torch.tensor([1.0, 2.0], requires_grad=True)
out = x2.pow(3).sum()
out.backward(retain_graph=True)
print(x2.grad)
out.backward()
print(x2.grad)
