# Recurrent layers and their cells: nn.RNN and nn.GRU over a batch-first sequence, the same
# computation stepped with nn.RNNCell / nn.GRUCell / nn.LSTMCell sharing the layer's
# weights, and a few steps of training a GRU to predict the next value of a sine wave.
import math

import torch
import torch.nn as nn

torch.manual_seed(31)

seq = torch.randn(2, 5, 4)  # batch 2, 5 steps, 4 features

rnn = nn.RNN(4, 3, batch_first=True)
out, h_n = rnn(seq)
print(out.shape, h_n.shape)
cell = nn.RNNCell(4, 3)
with torch.no_grad():
    cell.weight_ih.copy_(rnn.weight_ih_l0)
    cell.weight_hh.copy_(rnn.weight_hh_l0)
    cell.bias_ih.copy_(rnn.bias_ih_l0)
    cell.bias_hh.copy_(rnn.bias_hh_l0)
h = torch.zeros(2, 3)
for t in range(5):
    h = cell(seq[:, t], h)
print(torch.allclose(h, h_n[0], atol=1e-6), h)

gru = nn.GRU(4, 3, num_layers=2, batch_first=True)
out, h_n = gru(seq)
print(out.shape, h_n.shape, [n for n, _ in gru.named_parameters()][:4])
gcell = nn.GRUCell(4, 3)
print(gcell, gcell.weight_ih.shape)
lcell = nn.LSTMCell(4, 3)
hx, cx = torch.zeros(2, 3), torch.zeros(2, 3)
for t in range(5):
    hx, cx = lcell(seq[:, t], (hx, cx))
print(hx.shape, cx.shape, type(hx.grad_fn).__name__)

# next-value prediction on a sine wave
wave = torch.sin(torch.linspace(0, 4 * math.pi, 41))
xs = wave[:-1].view(1, 40, 1)
ys = wave[1:].view(1, 40, 1)


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(1, 8, batch_first=True)
        self.head = nn.Linear(8, 1)

    def forward(self, x):
        out, _ = self.gru(x)
        return self.head(out)


model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
for step in range(60):
    loss = nn.functional.mse_loss(model(xs), ys)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if step % 15 == 14:
        print(step, f"{loss.item():.5f}")
