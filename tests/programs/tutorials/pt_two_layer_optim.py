# The two-layer net trained with Adam: MSELoss(reduction='sum'), zero_grad/backward/step.
import torch

torch.manual_seed(17)
# prelude: _pt_two_layer_sequential.py
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
