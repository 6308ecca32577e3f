# The two-layer net with torch tensors and a hand-written backward: mm, clamp(min=0),
# t(), clone() and a masked assignment for the ReLU's gradient.
import torch

torch.manual_seed(12)
dtype = torch.float
device = torch.device("cpu")
batch, d_in, hidden, d_out = 64, 1000, 100, 10

inputs = torch.randn(batch, d_in, device=device, dtype=dtype)
targets = torch.randn(batch, d_out, device=device, dtype=dtype)
w_in = torch.randn(d_in, hidden, device=device, dtype=dtype)
w_out = torch.randn(hidden, d_out, device=device, dtype=dtype)

lr = 1e-6
for it in range(500):
    pre = inputs.mm(w_in)
    act = pre.clamp(min=0)
    out = act.mm(w_out)
    loss = (out - targets).pow(2).sum().item()
    if it % 100 == 99:
        print(it, f"{loss:.1e}")
    d_out_ = 2.0 * (out - targets)
    d_w_out = act.t().mm(d_out_)
    d_act = d_out_.mm(w_out.t())
    d_pre = d_act.clone()
    d_pre[pre < 0] = 0
    d_w_in = inputs.t().mm(d_pre)
    w_in -= lr * d_w_in
    w_out -= lr * d_w_out

print(w_in.shape, w_out.shape)
