"""Lesson-style PyTorch programs: /api/v1/run prints what PyTorch prints and fails where it fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import run
from tests.api.differential import run_with_torch, same_output

pytestmark = pytest.mark.torch

# The gallery's programs (examples/) are compared with PyTorch in test_gallery.py.
CORPUS: dict[str, str] = {
    "scalar-graph": """import torch
x = torch.tensor(2.0, requires_grad=True)
y = x * x + 3 * x
print(y.item())
y.backward()
print(x.grad.item())
print(x.grad, y)
""",
    "linear-regression": """import torch
x = torch.tensor([1.0, 2.0, 3.0])
y_true = torch.tensor([2.0, 4.0, 6.0])
w = torch.tensor(0.0, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
prediction = w * x + b
loss = ((prediction - y_true) ** 2).mean()
loss.backward()
print(round(loss.item(), 4))
print(round(w.grad.item(), 4), round(b.grad.item(), 4))
print(prediction, loss)
""",
    "tiny-engine": """import torch
w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
x, y = torch.tensor(2.0), torch.tensor(7.0)
for step in range(3):
    err = w * x + b + -1.0 * y
    loss = err * err
    w.grad = None
    b.grad = None
    loss.backward()
    print(f"step {step}: loss={loss.item():6.3f}  dL/dw={w.grad.item():+.2f}  dL/db={b.grad.item():+.2f}")
    with torch.no_grad():
        w -= 0.05 * w.grad
        b -= 0.05 * b.grad
print(loss.grad_fn.name(), w.is_leaf, loss.is_leaf, w.requires_grad)
""",
    "manual-training-loop": """import torch
x = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
y = 3.0 * x + 1.0
w = torch.tensor([[0.5]], requires_grad=True)
b = torch.zeros(1, requires_grad=True)
for step in range(40):
    prediction = x @ w + b
    loss = ((prediction - y) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.05 * w.grad
        b -= 0.05 * b.grad
        w.grad.zero_()
        b.grad.zero_()
    if step % 10 == 0:
        print(step, f"{loss.item():.4f}")
print(round(loss.item(), 4))
print(round(w.item(), 2), round(b.item(), 2))
""",
    "printing": """import torch
a = torch.tensor([[1.0, 2.5], [3.0, -4.125]])
print(a)
print(a.shape, a.dtype, a.size(0), a.dim(), a.numel())
print(torch.zeros(2, 3))
print(torch.arange(5))
print(torch.tensor([1, 2, 3]).dtype)
print(torch.tensor(3.14159))
print(torch.tensor([0.1, 0.001, 1000.0]))
print(torch.ones(3, requires_grad=True))
print(a.sum(), a.mean(), a.max(), a.T)
print(a.tolist(), a[0, 1].item(), a[1])
""",
    "grad-fn-display": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y.sum()
print(y)
print(z)
print(y.grad_fn.name(), z.grad_fn.name(), x.grad_fn)
print(y.requires_grad, y.is_leaf, x.is_leaf)
""",
    "accumulation": """import torch
w = torch.tensor(0.5, requires_grad=True)
x, y = torch.tensor(2.0), torch.tensor(7.0)
for step in range(3):
    loss = (w * x - y) ** 2
    loss.backward()
    print(f"step {step}: dL/dw = {w.grad.item():.1f}")
w.grad.zero_()
print(w.grad)
""",
    "grad-accumulation-micro-batches": """import torch
x = torch.linspace(0, 5, 64)
y = 2 * x + 3
w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
opt = torch.optim.SGD([w, b], lr=0.05)
def loss_on(xb, yb, scale=1.0):
    return scale * ((w * xb + b - yb) ** 2).mean()
opt.zero_grad()
loss_on(x, y).backward()
print(f"one batch of 64    : dL/dw={w.grad.item():.4f}  dL/db={b.grad.item():.4f}")
opt.zero_grad()
for i in range(0, 64, 16):
    loss_on(x[i:i + 16], y[i:i + 16], scale=1 / 4).backward()
print(f"4 batches of 16    : dL/dw={w.grad.item():.4f}  dL/db={b.grad.item():.4f}")
opt.step()
print(f"after one step     : w={w.item():.4f}  b={b.item():.4f}")
""",
    "no-grad-detach": """import torch
x = torch.tensor(3.0, requires_grad=True)
y = x * x
with torch.no_grad():
    z = x * 2
d = y.detach()
print(y.requires_grad, z.requires_grad, d.requires_grad, z.grad_fn, d.grad_fn)
out = y + d * x
out.backward()
print(x.grad)
print(torch.is_grad_enabled())
""",
    "retain-grad": """import torch
x = torch.tensor(2.0, requires_grad=True)
h = x * 3
h.retain_grad()
y = h ** 2
y.backward()
print(h.grad, x.grad)
""",
    "autograd-grad": """import torch
x = torch.tensor(1.5, requires_grad=True)
y = x ** 3
(g,) = torch.autograd.grad(y, x)
print(g)
""",
    "activations": """import torch
import torch.nn.functional as F
x = torch.tensor([-2.0, -0.5, 0.0, 0.5, 2.0], requires_grad=True)
print(torch.relu(x))
print(torch.sigmoid(x))
print(torch.tanh(x))
print(F.softmax(x, dim=0))
print(F.log_softmax(x, dim=0))
y = (torch.sigmoid(x) * torch.tanh(x)).sum()
y.backward()
print(x.grad)
""",
    "broadcasting": """import torch
a = torch.ones(3, 1, requires_grad=True)
b = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
c = (a * b).sum()
c.backward()
print(a.grad)
print(b.grad)
print((a + b).shape)
""",
    "matmul-grads": """import torch
W = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
v = torch.tensor([0.5, -1.0])
out = (W @ v).pow(2).sum()
out.backward()
print(out, W.grad)
""",
    "nn-linear-fixed-weights": """import torch
from torch import nn
model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.fill_(0.5)
    model.bias.fill_(-1.0)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
y = torch.tensor([[1.0], [2.0]])
loss_fn = nn.MSELoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for epoch in range(5):
    optimizer.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    optimizer.step()
    print(epoch, round(loss.item(), 4))
print(model.weight.grad, model.bias.grad)
""",
    "sequential-adam": """import torch
from torch import nn
model = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
with torch.no_grad():
    for p in model.parameters():
        p.fill_(0.1)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.tensor([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
y = torch.tensor([[1.0], [1.0], [0.0]])
for step in range(3):
    opt.zero_grad()
    loss = ((model(x) - y) ** 2).mean()
    loss.backward()
    opt.step()
    print(step, f"{loss.item():.5f}")
print(len(list(model.parameters())))
""",
    "cross-entropy": """import torch
from torch import nn
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]], requires_grad=True)
target = torch.tensor([0, 2])
loss = nn.CrossEntropyLoss()(logits, target)
loss.backward()
print(round(loss.item(), 4))
print(logits.grad)
""",
    "bce": """import torch
from torch import nn
p = torch.tensor([0.9, 0.2, 0.6], requires_grad=True)
t = torch.tensor([1.0, 0.0, 1.0])
loss = nn.BCELoss()(p, t)
loss.backward()
print(f"{loss.item():.4f}", p.grad)
z = torch.tensor([1.5, -0.5], requires_grad=True)
print(nn.BCEWithLogitsLoss()(z, torch.tensor([1.0, 0.0])))
""",
    "python-in-the-loop": """import torch
x = torch.tensor(1.0, requires_grad=True)
y = x
for i in range(4):
    if i % 2 == 0:
        y = y * 2
    else:
        y = y + 1
y.backward()
print(y.item(), x.grad.item())
values = [round(v, 2) for v in torch.tensor([0.123, 4.567]).tolist()]
print(values, len(values), sum(values))
""",
    "indexing-slicing": """import torch
t = torch.arange(12.0).reshape(3, 4)
print(t[1], t[:, 2], t[1:, ::2], t[-1, -1])
t2 = t.clone().requires_grad_(True)
t2[0].sum().backward()
print(t2.grad)
""",
    "err-non-scalar": """import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.backward()
""",
    "err-broadcast": """import torch
a = torch.ones(3)
b = torch.ones(4)
print(a + b)
""",
    "err-leaf-inplace": """import torch
w = torch.tensor([1.0, 2.0], requires_grad=True)
w += 1
""",
    "err-item-many": """import torch
print(torch.tensor([1.0, 2.0]).item())
""",
    "err-index": """import torch
t = torch.tensor([1.0, 2.0, 3.0])
print(t[0])
print(t[5])
""",
    "err-name": """import torch
w = torch.tensor(2.0)
print(w)
print(wx)
""",
    "err-python-float-backward": """import torch
x = torch.tensor(2.0, requires_grad=True)
loss = (x * x).item()
loss.backward()
""",
}

# Programs shared with the engine's own PyTorch comparison (tests/programs/), adapted to the
# playground's language: it has no type() (see the sandbox's allow-list).
_PROGRAMS = Path(__file__).parents[1] / "programs"
CORPUS["api-tour"] = (_PROGRAMS / "api_tour.py").read_text().replace(", type(b[0, 0].item()))", ")")
CORPUS["loop-idioms"] = (_PROGRAMS / "loop_idioms.py").read_text()
CORPUS["printing"] = (_PROGRAMS / "printing.py").read_text()
CORPUS["sorting-and-masks"] = (_PROGRAMS / "sorting_and_masks.py").read_text()
CORPUS["nn-training"] = (
    (_PROGRAMS / "nn_training.py")
    .read_text()
    .replace("type(opt2).__name__", "'SGD'")
    .replace("print(z.grad_fn, z.grad_fn", "print(z.grad_fn.name(), z.grad_fn")
)


@pytest.fixture(scope="module")
def torch_oracle() -> None:
    pytest.importorskip("torch")


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_program_matches_pytorch(client: TestClient, torch_oracle: None, name: str) -> None:
    source = CORPUS[name]
    expected = run_with_torch(source)
    body = run(client, source)
    assert same_output(body["stdout"], expected["stdout"]), (body["stdout"], expected["stdout"])
    if expected["error"] is None:
        assert body["ok"], body["error"]
    else:
        assert body["error"] is not None, "PyTorch failed but the playground did not"
        got = body["error"]
        assert got["type"] == expected["error"]["type"], (got, expected["error"])
        assert got["message"].split("\n")[0] == expected["error"]["message"], (
            got,
            expected["error"],
        )
        assert got["line"] == expected["error"]["line"]
