# Cubic fit as a custom nn.Module: four scalar Parameters, a forward, and a method that
# describes the fitted polynomial; SGD with lr=1e-6.
import math

import torch


class Cubic(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(()))
        self.b = torch.nn.Parameter(torch.randn(()))
        self.c = torch.nn.Parameter(torch.randn(()))
        self.d = torch.nn.Parameter(torch.randn(()))

    def forward(self, x):
        return self.a + self.b * x + self.c * x ** 2 + self.d * x ** 3

    def describe(self):
        return f"y = {self.a.item()} + {self.b.item()} x + {self.c.item()} x^2 + {self.d.item()} x^3"


torch.manual_seed(4)
xs = torch.linspace(-math.pi, math.pi, 2000)
target = torch.sin(xs)

model = Cubic()
print(model)
print([name for name, _ in model.named_parameters()])
criterion = torch.nn.MSELoss(reduction="sum")
optimizer = torch.optim.SGD(model.parameters(), lr=1e-6)

for step in range(2000):
    loss = criterion(model(xs), target)
    if step % 100 == 99:
        print(step, loss.item())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()

print(f"Result: {model.describe()}")
