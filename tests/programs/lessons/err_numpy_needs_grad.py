import torch
x = torch.tensor([1.0], requires_grad=True)
y = x * 2
print(y.tolist())
z = torch.tensor([[1.0, 2.0]], requires_grad=True)
print(z.item())
