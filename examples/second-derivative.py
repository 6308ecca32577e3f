import torch

x = torch.tensor(2.0, requires_grad=True)
y = x ** 3
(dy_dx,) = torch.autograd.grad(y, x, create_graph=True)
print("dy/dx =", dy_dx)                 # 3x² = 12, with a grad_fn: it was recorded
dy_dx.backward()                        # differentiate the derivative
print("d2y/dx2 =", x.grad)              # 6x = 12
