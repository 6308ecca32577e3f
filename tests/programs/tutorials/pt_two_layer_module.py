# The two-layer net as a custom Module class (two Linear layers, clamp for the ReLU),
# trained with plain SGD.
import torch


class TwoLayer(torch.nn.Module):
    def __init__(self, d_in, hidden, d_out):
        super(TwoLayer, self).__init__()
        self.first = torch.nn.Linear(d_in, hidden)
        self.second = torch.nn.Linear(hidden, d_out)

    def forward(self, x):
        h_relu = self.first(x).clamp(min=0)
        return self.second(h_relu)


torch.manual_seed(18)
batch, d_in, hidden, d_out = 64, 1000, 100, 10
x = torch.randn(batch, d_in)
y = torch.randn(batch, d_out)

model = TwoLayer(d_in, hidden, d_out)
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4)
for t in range(500):
    loss = criterion(model(x), y)
    if t % 100 == 99:
        print(t, f"{loss.item():.1e}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(sum(p.numel() for p in model.parameters()))
