# The older control-flow example: a middle Linear layer reused 0 to 3 times per forward
# pass, chosen by Python's random; SGD with momentum.
import random

import torch


class Repeater(torch.nn.Module):
    def __init__(self, d_in, hidden, d_out):
        super().__init__()
        self.input_linear = torch.nn.Linear(d_in, hidden)
        self.middle_linear = torch.nn.Linear(hidden, hidden)
        self.output_linear = torch.nn.Linear(hidden, d_out)

    def forward(self, x):
        h_relu = self.input_linear(x).clamp(min=0)
        for _ in range(random.randint(0, 3)):
            h_relu = self.middle_linear(h_relu).clamp(min=0)
        return self.output_linear(h_relu)


random.seed(19)
torch.manual_seed(19)
batch, d_in, hidden, d_out = 64, 1000, 100, 10
x = torch.randn(batch, d_in)
y = torch.randn(batch, d_out)

model = Repeater(d_in, hidden, d_out)
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, momentum=0.9)
for t in range(500):
    loss = criterion(model(x), y)
    if t % 100 == 99:
        print(t, f"{loss.item():.1e}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
