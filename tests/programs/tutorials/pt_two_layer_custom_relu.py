# A ReLU as a custom autograd Function (forward clamps, backward zeroes the gradient where
# the input was negative), used in the two-layer net; inputs wrapped in Variable as in the
# older tutorial.
import torch
from torch.autograd import Variable


class Rectify(torch.autograd.Function):
    @staticmethod
    def forward(ctx, inp):
        ctx.save_for_backward(inp)
        return inp.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (inp,) = ctx.saved_tensors
        grad_input = grad_output.clone()
        grad_input[inp < 0] = 0
        return grad_input


torch.manual_seed(15)
batch, d_in, hidden, d_out = 64, 1000, 100, 10
x = Variable(torch.randn(batch, d_in))
y = Variable(torch.randn(batch, d_out), requires_grad=False)
w1 = Variable(torch.randn(d_in, hidden), requires_grad=True)
w2 = Variable(torch.randn(hidden, d_out), requires_grad=True)

rate = 1e-6
for t in range(500):
    relu = Rectify.apply
    y_pred = relu(x.mm(w1)).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, f"{loss.item():.1e}")
    loss.backward()
    with torch.no_grad():
        w1 -= rate * w1.grad
        w2 -= rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

print(type(y_pred.grad_fn).__name__)
