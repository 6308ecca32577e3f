import torch
w = torch.tensor(0.5, requires_grad=True)
x, y = torch.tensor(2.0), torch.tensor(7.0)
history = []
for step in range(3):
    loss = (w * x - y) ** 2
    loss.backward()
    history.append(w.grad.item())
print(history)
print(w.grad)
w.grad.zero_()
print(w.grad, w.grad is None)
