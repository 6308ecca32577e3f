# Control flow and weight sharing: each forward pass uses a random number of extra terms,
# all sharing the parameter e (Python's random module decides). SGD with momentum.
import math
import random

import torch


class WobblyPoly(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))
        self.e = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        y = self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3
        for power in range(4, random.randint(4, 6)):
            y = y + self.e * x ** power
        return y

    def describe(self):
        return (
            f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 "
            f"+ {self.d.item()} x^3 + {self.e.item()} x^4 ? + {self.e.item()} x^5 ?"
        )


random.seed(5)
torch.manual_seed(5)
xs = torch.linspace(-math.pi, math.pi, 2000)
target = torch.sin(xs)

model = WobblyPoly()
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-8, momentum=0.9)
for step in range(2000):
    loss = criterion(model(xs), target)
    if step % 200 == 199:
        print(step, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"Result: {model.describe()}")
