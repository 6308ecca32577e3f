# A two-layer ReLU network without biases on random data, trained by hand with autograd: a
# batch of 64 inputs of 1,000 features, 100 hidden units, 10 outputs, 500 steps (the older
# "Learning PyTorch with Examples" pattern). The inputs alone are 64,000 numbers.
import torch

torch.manual_seed(1)
N, D_in, H, D_out = 64, 1000, 100, 10

x = torch.randn(N, D_in)
y = torch.randn(N, D_out)
w1 = torch.randn(D_in, H, requires_grad=True)
w2 = torch.randn(H, D_out, requires_grad=True)

learning_rate = 1e-6
for t in range(500):
    y_pred = x.mm(w1).clamp(min=0).mm(w2)
    loss = (y_pred - y).pow(2).sum()
    if t in (0, 49, 99):
        print(t, f"{loss.item():.4g}")
    loss.backward()
    with torch.no_grad():
        w1 -= learning_rate * w1.grad
        w2 -= learning_rate * w2.grad
        w1.grad.zero_()
        w2.grad.zero_()

print("converged:", loss.item() < 1e-2)
