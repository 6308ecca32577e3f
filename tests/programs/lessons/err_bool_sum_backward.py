import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
n = (x > 1).sum()
print(n, n.requires_grad)
n.backward()
