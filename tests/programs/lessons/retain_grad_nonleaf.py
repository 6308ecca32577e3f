import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
h = x * 2
h.retain_grad()
z = h.relu()
out = (z ** 2).sum()
out.backward()
print(h.grad)
print(x.grad)
print(h.is_leaf, h.retains_grad, z.retains_grad)
print(z.grad)
