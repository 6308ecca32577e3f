import torch
x = torch.tensor(1.0, requires_grad=True)
with torch.no_grad():
    with torch.enable_grad():
        y = x * 2
    z = x * 2
print(y.requires_grad, z.requires_grad)
torch.set_grad_enabled(False)
w = x * 3
print(w.requires_grad)
torch.set_grad_enabled(True)
print((x * 3).requires_grad)

def g(t):
    return t * 2
print(g(x).requires_grad)
