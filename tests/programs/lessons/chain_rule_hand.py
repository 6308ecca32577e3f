import torch
import math
x = torch.tensor(0.5, requires_grad=True)
u = x ** 2
v = torch.sin(u)
y = torch.exp(v)
y.backward()
manual = math.exp(math.sin(0.25)) * math.cos(0.25) * 2 * 0.5
print(f"autograd: {x.grad.item():.6f}")
print(f"by hand : {manual:.6f}")
print(abs(x.grad.item() - manual) < 1e-5)
print(y.grad_fn, y.grad_fn.next_functions)
print(v.grad_fn.next_functions[0][0].next_functions)
print(u, v, y)
