# The blitz's newer autograd page: Q = 3a^3 - b^2 with an explicit external gradient, the
# check against the analytic gradient, the graph's node classes, and freezing a model's
# parameters except a new head (a small model stands in for the pretrained one).
import torch
from torch import nn, optim

torch.manual_seed(22)

a = torch.tensor([2.0, 3.0], requires_grad=True)
b = torch.tensor([6.0, 4.0], requires_grad=True)
Q = 3 * a ** 3 - b ** 2
external_grad = torch.tensor([1.0, 1.0])
Q.backward(gradient=external_grad)
print(9 * a ** 2 == a.grad)
print(-2 * b == b.grad)
print(a.grad, b.grad)

# the recorded graph, walked from the output
node = Q.grad_fn
print(type(node).__name__)
print([type(fn).__name__ for fn, _ in node.next_functions])
print(node.next_functions[0][0].next_functions)

u = torch.rand(5, 5)
v = torch.rand(5, 5)
w = torch.rand((5, 5), requires_grad=True)
s = u + v
print(f"Does `s` require gradients?: {s.requires_grad}")
t = u + w
print(f"Does `t` require gradients?: {t.requires_grad}")

class Pretrained(nn.Module):
    """Stands in for the tutorial's resnet18: a body and a 1000-way head called fc."""

    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU())
        self.fc = nn.Linear(32, 1000)

    def forward(self, x):
        return self.fc(self.body(x))


model = Pretrained()
for param in model.parameters():
    param.requires_grad = False
# a new head, whose parameters require grad by default
model.fc = nn.Linear(32, 10)
print([p.requires_grad for p in model.parameters()])
optimizer = optim.SGD(model.parameters(), lr=1e-2, momentum=0.9)

batch = torch.rand(4, 16)
labels = torch.rand(4, 10)
loss = ((model(batch) - labels) ** 2).sum()
loss.backward()
optimizer.step()
print([p.grad is None for p in model.parameters()])
print(model.fc.weight.grad.shape, f"{loss.item():.4f}")
