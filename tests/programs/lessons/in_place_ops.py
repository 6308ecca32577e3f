import torch
x = torch.ones(3)
x.add_(1)
print(x)
x.mul_(3).sub_(1)
print(x)
x.zero_()
print(x)
x.fill_(2.5)
print(x)
y = torch.zeros(2, 2)
y[0, 1] = 5
y[1] = torch.tensor([1.0, 2.0])
print(y)
y[:, 0] += 10
print(y)
y.clamp_(max=6)
print(y)
x += 1
x *= 2
print(x)
