"""In-place ops on graph tensors (version-counter messages name the forward op, in-place unary
ops, zero_/fill_/copy_ node names), indexed assignment errors, torch.Size arithmetic, x.type()
and integer inputs to float functions: all as PyTorch prints them."""

import torch

w = torch.ones(2, requires_grad=True)
for name, mod in [
    ("add_", lambda x: x.add_(1)),
    ("mul_", lambda x: x.mul_(2)),
    ("fill_", lambda x: x.fill_(2)),
    ("zero_", lambda x: x.zero_()),
    ("copy_", lambda x: x.copy_(torch.ones(2))),
    ("exp_", lambda x: x.exp_()),
    ("iadd", lambda x: x.__iadd__(1)),
    ("sub_", lambda x: x.sub_(1)),
    ("div_", lambda x: x.div_(2)),
]:
    x = w * 2
    y = x * x
    mod(x)
    print(name, x.grad_fn.name())
    try:
        y.sum().backward()
    except RuntimeError as e:
        print(str(e).split(" Hint")[0])
x = w.exp()
x.add_(1)
try:
    x.sum().backward()
    print("ok exp then add_ backward")
except RuntimeError as e:
    print(str(e).split(" Hint")[0])
x = torch.tensor([1.0, 4.0])
x.sqrt_()
x.exp_()
x.neg_()
x.abs_()
x.log_()
x.relu_()
x.tanh_()
x.sigmoid_()
x.square_()
x.reciprocal_()
x.sin_()
x.cos_()
print(x)
try:
    torch.arange(3).exp_()
except RuntimeError as e:
    print(e)
w2 = torch.ones(2, requires_grad=True)
h = w2 * 3
h.exp_()
print(h.grad_fn.name(), h.grad_fn.next_functions[0][0].name())
h.sum().backward()
print(w2.grad)
try:
    w2.exp_()
except RuntimeError as e:
    print(e)
z = w2 * 1
z.zero_()
print(z, z.grad_fn.name())
z.fill_(3.0)
print(z, z.grad_fn.name())
x = torch.zeros(3, 4)
for f in [
    lambda: x.__setitem__(torch.tensor([True]), 1),
    lambda: x.__setitem__(0, torch.tensor([1.0, 2.0])),
    lambda: x.__setitem__((slice(None), 0), torch.tensor([1.0, 2.0])),
    lambda: x.__setitem__(5, 1.0),
    lambda: x.__setitem__(torch.tensor([[True, False, True, False]]), 1.0),
]:
    try:
        f()
        print("ok")
    except (RuntimeError, IndexError) as e:
        print(type(e).__name__, e)
x[x > 0] = 7
x[1] = torch.arange(4.0)
x[:, 0] = torch.tensor([9.0, 8.0, 7.0])
x[0, 1:3] = 5
print(x)
s = torch.Size([2, 3, 4])
print(s[1:], s[0], s + torch.Size([5]), s + (5,), (1,) + s, s * 2, type(s[::2]).__name__)
print(torch.zeros(s[1:]).shape, torch.zeros(2, 3, 4).shape[-2:])
print(torch.ones(3).type(), torch.arange(2).type(), torch.tensor([True]).type())
print(torch.ones(2).type(torch.float64))
i = torch.arange(3)
print(i.exp(), i.sqrt(), i.sigmoid(), i.tanh(), i.log(), i.floor(), i.ceil())
for bad in [
    lambda: torch.tensor([1, 2]).add_(1.5),
    lambda: torch.tensor([True]).add_(torch.tensor([1])),
]:
    try:
        bad()
    except RuntimeError as e:
        print(e)
