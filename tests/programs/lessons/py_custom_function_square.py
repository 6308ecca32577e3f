import torch

class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_out):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_out

class ClampGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, limit):
        ctx.limit = limit
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g.clamp(-ctx.limit, ctx.limit), None

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = Square.apply(x)
print(y, y.grad_fn.name())
loss = ClampGrad.apply(y, 4.0).sum() * 10
loss.backward()
print(x.grad)
print(Square.apply(torch.tensor(3.0)).requires_grad)
try:
    class Bad(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b
        @staticmethod
        def backward(ctx, g):
            return g
    a = torch.tensor(2.0, requires_grad=True)
    Bad.apply(a, torch.tensor(3.0)).backward()
except RuntimeError as e:
    print("error:", str(e).split("\n")[0])
