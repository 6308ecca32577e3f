import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x.detach()
y[0] = 100.0
print(x)
z = x.clone()
print(z)
with torch.no_grad():
    x[1] = 5.0
print(x, x.requires_grad, x.is_leaf)
x.data[2] = 7.0
print(x)
