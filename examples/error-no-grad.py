import torch

w = torch.tensor(1.5, requires_grad=True)
pred = w.detach() * 2.0
loss = (pred - 4.0) ** 2
print(loss.requires_grad)
loss.backward()
