import numpy as np
class Param:                               # like a leaf tensor that requires grad
    def __init__(self, value):
        self.data, self.grad = float(value), 0.0
class SGD:                                 # like torch.optim.SGD
    def __init__(self, params, lr):
        self.params, self.lr = params, lr
    def zero_grad(self):
        for p in self.params:
            p.grad = 0.0
    def step(self):
        for p in self.params:
            p.data -= self.lr * p.grad
def forward_backward(w, b, x, y, scale=1.0):   # loss = scale * MSE of w*x + b
    err = w.data * x + b.data - y
    w.grad += scale * 2 * np.mean(err * x)     # += : accumulate, never overwrite
    b.grad += scale * 2 * np.mean(err)
    return scale * np.mean(err ** 2)
rng = np.random.default_rng(0)
x = rng.uniform(0, 5, 64)
y = 2 * x + 3
w, b = Param(0.5), Param(0.0)
opt = SGD([w, b], lr=0.05)
# A) one backward pass on all 64 examples
opt.zero_grad()
forward_backward(w, b, x, y)
print(f"one batch of 64    : dL/dw={w.grad:.4f}  dL/db={b.grad:.4f}")
# B) four backward passes on 16 examples each, with no zero_grad in between
opt.zero_grad()
for i in range(0, 64, 16):
    forward_backward(w, b, x[i:i + 16], y[i:i + 16], scale=1 / 4)
print(f"4 batches of 16    : dL/dw={w.grad:.4f}  dL/db={b.grad:.4f}")
opt.step()
print(f"after one step     : w={w.data:.4f}  b={b.data:.4f}")
