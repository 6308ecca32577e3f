# The setup that "Learning PyTorch with Examples" repeats on its nn and optim pages: a batch
# of 64 random inputs of 1000 features and targets of 10, drawn from torch's global generator,
# and the two-layer net as nn.Sequential (Linear, ReLU, Linear; 100 hidden units). Expects
# torch, seeded.

batch, d_in, hidden, d_out = 64, 1000, 100, 10
x = torch.randn(batch, d_in)
y = torch.randn(batch, d_out)

model = torch.nn.Sequential(
    torch.nn.Linear(d_in, hidden),
    torch.nn.ReLU(),
    torch.nn.Linear(hidden, d_out),
)
