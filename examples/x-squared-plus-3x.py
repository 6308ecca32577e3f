import torch

x = torch.tensor(2.0, requires_grad=True)
y = x * x + 3 * x

print(y.item())
y.backward()
print(x.grad.item())
