import torch
from torch import nn
torch.manual_seed(0)
def forward(x, params):
    w1, b1, w2, b2 = params
    h = torch.relu(x @ w1 + b1)
    return h @ w2 + b2
params = [torch.randn(2, 4, requires_grad=True), torch.zeros(4, requires_grad=True),
          torch.randn(4, 1, requires_grad=True), torch.zeros(1, requires_grad=True)]
X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
Y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
for step in range(200):
    loss = ((forward(X, params) - Y) ** 2).mean()
    for p in params:
        p.grad = None
    loss.backward()
    with torch.no_grad():
        for p in params:
            p -= 0.1 * p.grad
    if step % 50 == 0:
        print(step, round(loss.item(), 5))
print(forward(X, params).detach().round(decimals=2))
