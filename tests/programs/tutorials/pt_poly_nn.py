# Cubic fit with torch.nn: the features (x, x^2, x^3) go through Linear(3, 1) and a
# Flatten(0, 1) that makes the output 1-D; MSELoss(reduction='sum'); a manual update.
import math

import torch

torch.manual_seed(2)

xs = torch.linspace(-math.pi, math.pi, 2000)
target = torch.sin(xs)

powers = torch.tensor([1, 2, 3])
features = xs.unsqueeze(-1).pow(powers)
print(features.shape, features.dtype)

model = torch.nn.Sequential(
    torch.nn.Linear(3, 1),
    torch.nn.Flatten(0, 1),
)
print(model)
loss_fn = torch.nn.MSELoss(reduction="sum")

rate = 1e-6
for step in range(2000):
    guess = model(features)
    loss = loss_fn(guess, target)
    if step % 100 == 99:
        print(step, loss.item())
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for param in model.parameters():
            param -= rate * param.grad

lin = model[0]
# the even terms end near zero, where their last digits are rounding: six places
print(
    f"Result: y = {lin.bias.item():.6f} + {lin.weight[:, 0].item():.6f} x "
    f"+ {lin.weight[:, 1].item():.6f} x^2 + {lin.weight[:, 2].item():.6f} x^3"
)
