# The two-layer net trained with Adam: MSELoss(reduction='sum'), zero_grad/backward/step.
import torch

torch.manual_seed(17)
batch, d_in, hidden, d_out = 64, 1000, 100, 10
x = torch.randn(batch, d_in)
y = torch.randn(batch, d_out)

model = torch.nn.Sequential(
    torch.nn.Linear(d_in, hidden),
    torch.nn.ReLU(),
    torch.nn.Linear(hidden, d_out),
)
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.Adam(model.parameters(), lr=1e-4)

for t in range(500):
    loss = loss_fn(model(x), y)
    if t % 100 == 99:
        print(t, f"{loss.item():.1e}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(optimizer.state_dict()["param_groups"][0]["lr"], len(optimizer.state))
