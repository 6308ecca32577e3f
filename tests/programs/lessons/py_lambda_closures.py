import torch

activations = {"relu": lambda t: t.clamp(min=0), "square": lambda t: t * t, "id": lambda t: t}
x = torch.tensor([-1.0, 0.5, 2.0], requires_grad=True)
for name, f in sorted(activations.items()):
    y = f(x).sum()
    grad, = torch.autograd.grad(y, x)
    print(name, y.item(), grad)

def make_scaler(k):
    def scale(t):
        return k * t
    return scale

double, triple = make_scaler(2.0), make_scaler(3.0)
z = double(x) + triple(x)
z.sum().backward()
print(x.grad)
values = [torch.tensor(v) for v in (3.0, -1.0, 2.0)]
print(sorted(values, key=lambda t: t.item()))
print(max(values, key=lambda t: abs(t.item())))
print(list(map(lambda t: t.item() ** 2, values)))
