import torch

w = torch.tensor(0.5, requires_grad=True)
x, y = torch.tensor(2.0), torch.tensor(7.0)
for step in range(3):
    loss = (w * x - y) ** 2
    loss.backward()
    print(f"step {step}: dL/dw = {w.grad.item():.1f}")
