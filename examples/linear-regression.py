import torch

x = torch.tensor([1.0, 2.0, 3.0])
y_true = torch.tensor([2.0, 4.0, 6.0])
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)

prediction = w * x + b
loss = ((prediction - y_true) ** 2).mean()
loss.backward()

print(round(loss.item(), 4))
print(round(w.grad.item(), 4), round(b.grad.item(), 4))
