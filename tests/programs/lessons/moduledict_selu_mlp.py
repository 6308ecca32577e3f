# An MLP whose layers and activations live in nn.ModuleDict (pick the activation by name),
# with a learned per-feature scale in an nn.ParameterDict, trained on a toy regression.
# SELU is the self-normalising activation; the lesson prints the model, its parameters'
# names, the grad_fn of the output and the loss as it trains.
import torch
from torch import nn

torch.manual_seed(3)
X = torch.randn(64, 3)
y = (X[:, :1] * 2 - X[:, 1:2]).tanh() + 0.1 * X[:, 2:]


class FlexibleMLP(nn.Module):
    def __init__(self, activation="selu"):
        super().__init__()
        self.layers = nn.ModuleDict({
            "hidden": nn.Linear(3, 16),
            "out": nn.Linear(16, 1),
        })
        self.activations = nn.ModuleDict([
            ["selu", nn.SELU()],
            ["relu6", nn.ReLU6()],
            ["mish", nn.Mish()],
        ])
        self.scales = nn.ParameterDict({"input": nn.Parameter(torch.ones(3))})
        self.activation = activation

    def forward(self, x):
        x = x * self.scales["input"]
        x = self.activations[self.activation](self.layers["hidden"](x))
        return self.layers["out"](x)


model = FlexibleMLP()
print(model)
print([name for name, _ in model.named_parameters()])
print("keys:", list(model.layers.keys()), "selu" in model.activations, len(model.activations))

pred = model(X)
print(pred.grad_fn)
print(model.activations["selu"](torch.tensor([-1.0, 0.0, 1.0])))
print(model.activations["relu6"](torch.tensor([-1.0, 3.0, 9.0])))

loss_fn = nn.MSELoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for step in range(60):
    optimizer.zero_grad()
    loss = loss_fn(model(X), y)
    loss.backward()
    optimizer.step()
    if step % 15 == 0 or step == 59:
        print(f"step {step:2d}  loss {loss.item():.4f}")

for name in ("relu6", "mish"):
    model.activation = name
    with torch.no_grad():
        print(name, f"{loss_fn(model(X), y).item():.4f}")
print(model.scales["input"])
