"""torch.autograd.Function as lessons and tutorials write it: ctx.save_for_backward and
saved_tensors, attributes stashed on ctx, needs_input_grad, non-tensor arguments, several
outputs, mark_non_differentiable, setup_context, a custom Function inside an nn.Module, double
backward through a differentiable backward, and the errors PyTorch raises."""

import math

import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output


x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = Square.apply(x)
print(y)
print(y.grad_fn.name(), type(y.grad_fn).__name__, y.requires_grad, y.is_leaf)
y.sum().backward()
print(x.grad)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)


class ScaledExp(torch.autograd.Function):
    """exp(k·x) with k a Python number: the output is saved, k is stashed on ctx."""

    @staticmethod
    def forward(ctx, x, k):
        out = torch.exp(k * x)
        ctx.save_for_backward(out)
        ctx.k = k
        print("needs_input_grad:", ctx.needs_input_grad)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * ctx.k * out, None


w = torch.tensor([0.5, -0.25], requires_grad=True)
z = ScaledExp.apply(w, 2.0)
(z * torch.tensor([1.0, 3.0])).sum().backward()
print(z, w.grad)
print(torch.allclose(w.grad, 2.0 * torch.exp(2.0 * w.detach()) * torch.tensor([1.0, 3.0])))


class MulAdd(torch.autograd.Function):
    """a·b + c with three tensor inputs, only some of which require grad."""

    @staticmethod
    def forward(ctx, a, b, c):
        ctx.save_for_backward(a, b)
        return a * b + c

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensors
        ga = g * b if ctx.needs_input_grad[0] else None
        gb = g * a if ctx.needs_input_grad[1] else None
        gc = g if ctx.needs_input_grad[2] else None
        return ga, gb, gc


a = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
b = torch.tensor([0.5, -1.0])
c = torch.tensor(1.5, requires_grad=True)
out = MulAdd.apply(a, b, c)
out.sum().backward()
print(out)
print(a.grad, b.grad, c.grad)


class Clip(torch.autograd.Function):
    """A straight-through estimator: forward clamps, backward passes the gradient where |x|<=1."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(-1.0, 1.0)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * (x.abs() <= 1).float()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x):
        return Clip.apply(self.fc(x))


torch.manual_seed(0)
net = Net()
inp = torch.tensor([[1.0, -2.0, 0.5], [0.1, 0.2, 0.3]])
loss = net(inp).pow(2).mean()
loss.backward()
print(loss)
print(net.fc.weight.grad)
print(net.fc.bias.grad)


class SortWithIndices(torch.autograd.Function):
    """Two outputs, one of them integer indices marked non-differentiable."""

    @staticmethod
    def forward(ctx, x):
        values, idx = torch.sort(x)
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    def backward(ctx, g_values, g_idx):
        (idx,) = ctx.saved_tensors
        grad = torch.zeros_like(g_values)
        grad[idx] = g_values
        return grad


v = torch.tensor([3.0, 1.0, 2.0], requires_grad=True)
vals, idx = SortWithIndices.apply(v)
print(vals, idx, idx.requires_grad)
(vals * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(v.grad)


class SinCos(torch.autograd.Function):
    """Two differentiable outputs: backward gets one gradient for each."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sin(x), torch.cos(x)

    @staticmethod
    def backward(ctx, g_sin, g_cos):
        (x,) = ctx.saved_tensors
        return g_sin * torch.cos(x) - g_cos * torch.sin(x)


t = torch.tensor([0.0, 0.5, 1.0], requires_grad=True)
s, co = SinCos.apply(t)
(s * 2 + co * 3).sum().backward()
print(s, co)
print(t.grad)
t.grad = None
s, co = SinCos.apply(t)
s.sum().backward()  # only one output used: the other's gradient arrives as zeros
print(t.grad)


class Cube(torch.autograd.Function):
    """A backward written with differentiable ops, so create_graph gives second derivatives."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


q = torch.tensor(2.0, requires_grad=True)
(dq,) = torch.autograd.grad(Cube.apply(q), q, create_graph=True)
(d2q,) = torch.autograd.grad(dq, q)
print(dq.item(), d2q.item(), dq.requires_grad)


class Linear2(torch.autograd.Function):
    """The new style: forward without ctx, setup_context saves what backward needs."""

    @staticmethod
    def forward(x, w):
        return x @ w.t()

    @staticmethod
    def setup_context(ctx, inputs, output):
        x, w = inputs
        ctx.save_for_backward(x, w)

    @staticmethod
    def backward(ctx, g):
        x, w = ctx.saved_tensors
        return g @ w, g.t() @ x


xs = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
W = torch.tensor([[0.1, -0.2], [0.3, 0.4]], requires_grad=True)
Linear2.apply(xs, W).sum().backward()
print(W.grad)


def gelu_tanh(u):
    return 0.5 * u * (1 + torch.tanh(math.sqrt(2 / math.pi) * (u + 0.044715 * u**3)))


class NoGradInputs(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return gelu_tanh(x)

    @staticmethod
    def backward(ctx, g):
        return g


r = NoGradInputs.apply(torch.tensor([0.5, 1.0]))
print(r, r.requires_grad, r.grad_fn)
with torch.no_grad():
    r2 = Square.apply(x)
print(r2.requires_grad, r2.grad_fn)


# ---- errors, with PyTorch's messages --------------------------------------------------------
class TooMany(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g, g


class WrongShape(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g[:2]


class NotATensor(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return 2


class GradForNumber(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, k):
        return x * k

    @staticmethod
    def backward(ctx, g):
        return g * 2, g


class NoBackward(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2


for fn, args in [
    (TooMany, (x,)),
    (WrongShape, (x,)),
    (NotATensor, (x,)),
    (GradForNumber, (x, 3.0)),
    (NoBackward, (x,)),
]:
    try:
        fn.apply(*args).sum().backward()
    except (RuntimeError, TypeError, NotImplementedError) as e:
        print(type(e).__name__ + ":", e)

try:
    Square()(x)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(" (Example")[0])


class ExpSaved(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = x.exp()
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, g):
        (out,) = ctx.saved_tensors
        return g * out


e = ExpSaved.apply(x)
with torch.no_grad():
    e.mul_(2)
try:
    e.sum().backward()
except RuntimeError as err:
    print("RuntimeError:", err)
