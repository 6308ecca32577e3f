import torch
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
def attempt(label, fn):
    try:
        fn()
        print(label, "ok")
    except Exception as e:
        print(label, type(e).__name__, e)
def twice():
    y = (x * x).sum()
    y.backward()
    y.backward()
attempt("twice", twice)
attempt("nonscalar", lambda: (x * 2).backward())
attempt("nograd", lambda: torch.tensor(2.0).backward())
def item_loss():
    loss = (x * 2).sum()
    v = loss.item()
    torch.tensor(v).backward()
attempt("item", item_loss)
def detached():
    loss = (x.detach() * 2).sum()
    loss.backward()
attempt("detach", detached)
def inplace():
    y = x.exp()
    y.add_(1)
    y.sum().backward()
attempt("inplace", inplace)
attempt("leaf", lambda: x.add_(1))
attempt("shape", lambda: torch.ones(2, 3) @ torch.ones(2, 3))
attempt("broadcast", lambda: torch.ones(2, 3) + torch.ones(4))
attempt("view", lambda: torch.ones(3).view(2, 2))
attempt("index", lambda: torch.ones(3)[5])
attempt("mean_int", lambda: torch.tensor([1, 2]).mean())
attempt("numpy", lambda: (x * 2).numpy())
def nograd_block():
    with torch.no_grad():
        y = x * 2
    print(y.requires_grad, y.grad_fn)
    y.sum().backward()
attempt("no_grad", nograd_block)
def gradient_arg():
    x.grad = None
    y = x * 2
    y.backward(gradient=torch.tensor([1.0, 0.1, 0.01]))
    print(x.grad)
attempt("gradient=", gradient_arg)
def autograd_grad():
    y = (x ** 3).sum()
    (g,) = torch.autograd.grad(y, x)
    print(g, x.grad)
attempt("autograd.grad", autograd_grad)
def retain():
    a = x * 2
    a.retain_grad()
    a.sum().backward()
    print(a.grad, a.is_leaf, x.is_leaf)
attempt("retain", retain)
