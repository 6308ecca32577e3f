import torch
x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
with torch.set_grad_enabled(False):
    y = x * 2
print(y.requires_grad, torch.is_grad_enabled())
is_train = True
with torch.set_grad_enabled(is_train):
    z = x * 2
print(z.requires_grad)
with torch.inference_mode():
    w = x + 1
print(w.requires_grad, w)
a, b = torch.chunk(x * 1, 2)
print(a, b)
print(torch.split(x, [1, 3]))
m = torch.tril(torch.ones(3, 3))
print(m, m.dtype)
t = torch.triu(x.reshape(2, 2))
print(t)
t.sum().backward()
print(x.grad)
scores = torch.arange(9.0).reshape(3, 3)
print(scores.masked_fill(torch.tril(torch.ones(3, 3)) == 0, float("-inf")))
print(torch.isfinite(torch.tensor([1.0, float("inf")])).all())
