import torch
import torch.nn.functional as F
x = torch.tensor([-2.0, 0.0, 3.0], requires_grad=True)
y = F.relu(x)
y.sum().backward()
print(y, x.grad)
l = torch.nn.LeakyReLU(0.1)
x.grad = None
l(x).sum().backward()
print(l, x.grad)
print(torch.nn.ReLU()(torch.tensor([-1.0, 1.0])))
