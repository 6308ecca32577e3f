# The same small classifier trained with four of torch.optim's adaptive optimizers (NAdam,
# RAdam, Adamax, Adadelta) from the same initial weights, printing each one's loss curve:
# the comparison a learner makes after the "Optimizing Model Parameters" tutorial.
import copy

import torch
from torch import nn

torch.manual_seed(7)
X = torch.randn(40, 4)
y = (X[:, 0] * X[:, 1] > 0).long()

start = nn.Sequential(nn.Linear(4, 12), nn.Tanh(), nn.Linear(12, 2))
loss_fn = nn.CrossEntropyLoss()

makers = {
    "NAdam": lambda ps: torch.optim.NAdam(ps, lr=0.02),
    "RAdam": lambda ps: torch.optim.RAdam(ps, lr=0.02),
    "Adamax": lambda ps: torch.optim.Adamax(ps, lr=0.02),
    "Adadelta": lambda ps: torch.optim.Adadelta(ps, lr=1.0),
}
for name, make in makers.items():
    model = copy.deepcopy(start)
    optimizer = make(model.parameters())
    losses = []
    for epoch in range(40):
        optimizer.zero_grad()
        loss = loss_fn(model(X), y)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    print(f"{name:8s}", " ".join(f"{v:.4f}" for v in losses[::8]), f"final {losses[-1]:.4f}")

print(optimizer)
state = optimizer.state_dict()
print(sorted(state["state"][0].keys()), state["param_groups"][0]["rho"])

nadam = torch.optim.NAdam(start.parameters(), lr=0.01, momentum_decay=0.004)
loss_fn(start(X), y).backward()
nadam.step()
print({k: (tuple(v.shape), v.dtype) for k, v in nadam.state_dict()["state"][0].items()})
print(f"{nadam.state_dict()['state'][0]['mu_product'].item():.6f}")
