# The sequence-models page: an nn.LSTM(3, 3) stepped one input at a time with an explicit
# (h, c), then the whole sequence at once; both end in the same state.
import torch
import torch.nn as nn

torch.manual_seed(1)

lstm = nn.LSTM(3, 3)
print(lstm)
print([(name, tuple(p.shape)) for name, p in lstm.named_parameters()])
inputs = [torch.randn(1, 3) for _ in range(5)]

hidden = (torch.randn(1, 1, 3), torch.randn(1, 1, 3))
start = (hidden[0].clone(), hidden[1].clone())
for i in inputs:
    out, hidden = lstm(i.view(1, 1, -1), hidden)
print(out)
print(hidden)

seq = torch.cat(inputs).view(len(inputs), 1, -1)
out_all, hidden_all = lstm(seq, start)
print(out_all)
print(hidden_all)
print(torch.allclose(out_all[-1], out[0]), out_all.shape)
