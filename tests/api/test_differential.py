"""Lesson-style PyTorch programs: /api/v1/run prints what PyTorch prints and fails where it fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.examples import example
from tests.api.conftest import run
from tests.api.differential import run_with_torch, same_output

pytestmark = pytest.mark.torch


def _replaced(source: str, old: str, new: str) -> str:
    """``source`` with its one ``old`` replaced (a test fails here when a file it adapts moves on)."""
    assert source.count(old) == 1, old
    return source.replace(old, new)


# The gallery's programs (examples/) are compared with PyTorch in test_gallery.py.
CORPUS: dict[str, str] = {
    "printing-basics": """import torch
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

# Variants of gallery programs, built from the gallery's files (examples/): the example as the
# editor loads it, then what it leaves unprinted (test_gallery.py checks the examples as they are).
# the gallery's training step from a fixed start, printing the loss every ten steps
CORPUS["manual-training-loop"] = _replaced(
    _replaced(
        example("training-step").source,
        "w = torch.randn(1, 1, requires_grad=True)\n",
        "w = torch.tensor([[0.5]], requires_grad=True)\n",
    ),
    "        b.grad.zero_()\n",
    '        b.grad.zero_()\n    if step % 10 == 0:\n        print(step, f"{loss.item():.4f}")\n',
)
CORPUS["scalar-graph"] = example("x-squared-plus-3x").source + "print(x.grad, y)\n"
CORPUS["linear-regression"] = example("linear-regression").source + "print(prediction, loss)\n"
CORPUS["tiny-engine"] = (
    example("tiny-engine").source + "print(w.is_leaf, loss.is_leaf, w.requires_grad)\n"
)
CORPUS["accumulation"] = (
    example("error-forgot-zero-grad").source + "w.grad.zero_()\nprint(w.grad)\n"
)
# The same accumulation on evenly spaced data: what it checks does not hang on the random stream.
CORPUS["grad-accumulation-micro-batches"] = _replaced(
    example("gradient-accumulation").source,
    "torch.manual_seed(0)\nx = torch.rand(64) * 5\n",
    "x = torch.linspace(0, 5, 64)\n",
)

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
