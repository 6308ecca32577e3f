import torch

def first_line(e):
    return str(e).split("\n")[0]

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("backward twice:", first_line(e)[:60])

c = torch.tensor(3.0)
try:
    (c * 2).backward()
except RuntimeError as e:
    print("no grad:", first_line(e))

w = torch.tensor([1.0, 2.0], requires_grad=True)
h = w.exp()
h.add_(1)
try:
    h.sum().backward()
except RuntimeError as e:
    print("in place:", first_line(e)[:70])

try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print("shapes:", first_line(e))
else:
    print("no error")
finally:
    print("done")

try:
    torch.ones(3).view(2, 2)
except (RuntimeError, ValueError) as e:
    print(type(e).__name__, first_line(e))
