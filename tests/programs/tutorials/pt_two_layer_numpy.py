# A one-hidden-layer ReLU net (no biases) on random data, forward and backward written by
# hand in NumPy: 64 examples of 1000 inputs, 100 hidden units, 10 outputs, 500 steps.
import numpy as np

np.random.seed(11)
batch, d_in, hidden, d_out = 64, 1000, 100, 10

inputs = np.random.randn(batch, d_in)
targets = np.random.randn(batch, d_out)
w_in = np.random.randn(d_in, hidden)
w_out = np.random.randn(hidden, d_out)

lr = 1e-6
for it in range(500):
    pre = inputs.dot(w_in)
    act = np.maximum(pre, 0)
    out = act.dot(w_out)
    loss = np.square(out - targets).sum()
    if it % 100 == 99:
        print(it, loss)
    d_out_ = 2.0 * (out - targets)
    d_w_out = act.T.dot(d_out_)
    d_act = d_out_.dot(w_out.T)
    d_pre = d_act.copy()
    d_pre[pre < 0] = 0
    d_w_in = inputs.T.dot(d_pre)
    w_in -= lr * d_w_in
    w_out -= lr * d_w_out

print(w_in.shape, w_out.shape, round(float(loss), 6))
