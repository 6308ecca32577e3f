# The two-layer net with autograd: weights require grad, the update runs under no_grad and
# the grads are zeroed in place.
import torch

torch.manual_seed(13)
batch, d_in, hidden, d_out = 64, 1000, 100, 10

inputs = torch.randn(batch, d_in)
targets = torch.randn(batch, d_out)
w_in = torch.randn(d_in, hidden, requires_grad=True)
w_out = torch.randn(hidden, d_out, requires_grad=True)

lr = 1e-6
for it in range(500):
    out = inputs.mm(w_in).clamp(min=0).mm(w_out)
    loss = (out - targets).pow(2).sum()
    if it % 100 == 99:
        print(it, f"{loss.item():.1e}")
    loss.backward()
    with torch.no_grad():
        w_in -= lr * w_in.grad
        w_out -= lr * w_out.grad
        w_in.grad.zero_()
        w_out.grad.zero_()

print(loss.grad_fn, w_in.grad.abs().sum())
