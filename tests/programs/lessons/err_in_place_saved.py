import torch
a = torch.tensor([1.0, 2.0], requires_grad=True)
b = a * 2
c = b ** 2
b.add_(1)
print(b)
c.sum().backward()
