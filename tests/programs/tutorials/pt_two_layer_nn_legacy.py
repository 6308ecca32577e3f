# The nn-package two-layer net as first published: Sequential(Linear, ReLU, Linear), the
# loss built with the legacy size_average=False (a sum), updates through param.data.
import torch

torch.manual_seed(16)
batch, d_in, hidden, d_out = 64, 1000, 100, 10
x = torch.randn(batch, d_in)
y = torch.randn(batch, d_out)

model = torch.nn.Sequential(
    torch.nn.Linear(d_in, hidden),
    torch.nn.ReLU(),
    torch.nn.Linear(hidden, d_out),
)
loss_fn = torch.nn.MSELoss(size_average=False)
print(loss_fn.reduction)

learning_rate = 1e-4
for t in range(500):
    y_pred = model(x)
    loss = loss_fn(y_pred, y)
    if t % 100 == 99:
        print(t, f"{loss.item():.1e}")
    model.zero_grad()
    loss.backward()
    for param in model.parameters():
        param.data -= learning_rate * param.grad.data

print(model)
