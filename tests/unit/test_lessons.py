"""The lessons in shared/seeds reproduce exactly through the engine.

Most of these programs use only float32 +, -, *, / (each correctly rounded, in the same order on
every CPU) and NumPy's sums (pairwise in a fixed order, whatever SIMD it has), so their numbers
are the same bits on every machine and compare exactly. The training loop also runs a matrix
product (OpenBLAS's kernels sum in their own order) and draws from randn: it is compared with
room for that.
"""

from __future__ import annotations

import numpy as np

import engine as torch
from tests.tolerances import U32, rounds_to


def test_tiny_engine_three_sgd_steps() -> None:
    w = torch.tensor(0.5, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    x, y = torch.tensor(2.0), torch.tensor(7.0)
    seen = []
    for _ in range(3):
        err = w * x + b + torch.tensor(-1.0) * y
        loss = err * err
        w.grad = b.grad = None
        loss.backward()
        seen.append(tuple(round(v, 4) for v in (loss.item(), w.grad.item(), b.grad.item())))
        with torch.no_grad():
            w -= 0.05 * w.grad
            b -= 0.05 * b.grad
    assert seen == [(36.0, -24.0, -12.0), (9.0, -12.0, -6.0), (2.25, -6.0, -3.0)]


def test_scalar_graph_x_squared_plus_3x() -> None:
    x = torch.tensor(2.0, requires_grad=True)
    y = x * x + 3 * x
    y.backward()
    assert (y.item(), x.grad.item()) == (10.0, 7.0)
    assert y.grad_fn.name() == "AddBackward0" and x.is_leaf and not y.is_leaf


def test_linear_regression_by_hand() -> None:
    x = torch.tensor([1.0, 2.0, 3.0])
    y_true = torch.tensor([2.0, 4.0, 6.0])
    w = torch.tensor(0.0, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    loss = ((w * x + b - y_true) ** 2).mean()
    loss.backward()
    assert round(loss.item(), 4) == 18.6667
    assert (round(w.grad.item(), 4), round(b.grad.item(), 4)) == (-18.6667, -8.0)


def test_training_loop_reaches_3_and_1() -> None:
    torch.manual_seed(0)
    x = torch.tensor([[1.0], [2.0], [3.0], [4.0]])
    y = 3.0 * x + 1.0
    w = torch.randn(1, 1, requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    for _ in range(40):
        loss = ((x @ w + b - y) ** 2).mean()
        loss.backward()
        with torch.no_grad():
            w -= 0.05 * w.grad
            b -= 0.05 * b.grad
            w.grad.zero_()
            b.grad.zero_()
    # PyTorch 2.13 prints 0.0105 and 3.08 0.75 for this program (same RNG stream).
    # What may round differently elsewhere: w's gradient, a 4-term dot product (3 roundings of
    # terms |x * dL/dp| <= 65 at the start), each step; gradient descent here contracts errors
    # (the step's eigenvalues are in (0, 1)), so 40 steps of lr 0.05 add at most
    # 40 * 0.05 * 3 * 65 u to w and b, and the final loss moves by |dL/dw| + |dL/db| < 1 times that.
    error = 40 * 0.05 * 3 * 65 * U32
    assert rounds_to(loss.item(), 0.0105, 4, error)
    assert rounds_to(w.item(), 3.08, 2, error) and rounds_to(b.item(), 0.75, 2, error)


def test_gradient_accumulation_practice() -> None:
    rng = np.random.default_rng(0)
    xs = rng.uniform(0, 5, 64)
    x = torch.tensor(xs, dtype=torch.float64)
    y = 2 * x + 3
    w = torch.tensor(0.5, dtype=torch.float64, requires_grad=True)
    b = torch.tensor(0.0, dtype=torch.float64, requires_grad=True)
    opt = torch.optim.SGD([w, b], lr=0.05)
    opt.zero_grad()
    ((w * x + b - y) ** 2).mean().backward()
    full = (round(w.grad.item(), 4), round(b.grad.item(), 4))
    opt.zero_grad()
    for i in range(0, 64, 16):
        (((w * x[i : i + 16] + b - y[i : i + 16]) ** 2).mean() / 4).backward()
    accumulated = (round(w.grad.item(), 4), round(b.grad.item(), 4))
    opt.step()
    assert full == accumulated == (-39.5945, -13.4047)
    assert (round(w.item(), 4), round(b.item(), 4)) == (2.4797, 0.6702)
