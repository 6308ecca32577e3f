import functools
import torch

calls = {"n": 0}

def counted(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        calls["n"] += 1
        return fn(*args, **kwargs)
    return wrapper

@torch.no_grad()
def evaluate(w, x):
    return (w * x).sum()

@counted
def loss_fn(w, x, target):
    return ((w * x).sum() - target) ** 2

w = torch.tensor([0.5, -1.0], requires_grad=True)
x = torch.tensor([2.0, 1.0])
e = evaluate(w, x)
print(e, e.requires_grad, e.grad_fn)
for _ in range(3):
    loss = loss_fn(w, x, 4.0)
    loss.backward()
print(loss, w.grad, calls["n"], loss_fn.__name__)

@torch.enable_grad()
def inner(w):
    return w * 2

with torch.no_grad():
    r = inner(w)
print(r.requires_grad)
