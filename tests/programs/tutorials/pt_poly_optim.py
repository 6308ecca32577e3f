# Cubic fit with an optimizer: RMSprop does the update, zero_grad/step replace the manual loop.
import math

import torch

torch.manual_seed(3)

xs = torch.linspace(-math.pi, math.pi, 2000)
target = torch.sin(xs)
features = xs.unsqueeze(-1).pow(torch.tensor([1, 2, 3]))

model = torch.nn.Sequential(torch.nn.Linear(3, 1), torch.nn.Flatten(0, 1))
loss_fn = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
print(optimizer)

for step in range(2000):
    guess = model(features)
    loss = loss_fn(guess, target)
    if step % 100 == 99:
        print(step, f"{loss.item():.1e}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

lin = model[0]
# RMSprop ends in a small oscillation around the fit (steps of about lr): two decimals
print(
    f"Result: y = {lin.bias.item():.2f} + {lin.weight[:, 0].item():.2f} x "
    f"+ {lin.weight[:, 1].item():.2f} x^2 + {lin.weight[:, 2].item():.2f} x^3"
)
