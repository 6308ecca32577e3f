"""torch.autograd.Function and Tensor.register_hook: gradients against central differences
(float64), second derivatives through create_graph, the graph node and walk step a custom
Function records, and the hook semantics PyTorch has (order, replacement, retain_grad, remove).
tests/programs/custom_functions.py and grad_hooks.py check the same against PyTorch's output."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine as torch
from recorder import record_passes
from tests.tolerances import central_differences


def _numeric_grad(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6) -> Any:
    return central_differences(lambda values: f(values[0]), [x], 0, eps)


class Softplus(torch.autograd.Function):
    """log(1 + e^x) with its derivative σ(x) written by hand from saved tensors."""

    @staticmethod
    def forward(ctx: Any, x: Any, beta: float) -> Any:
        ctx.save_for_backward(x)
        ctx.beta = beta
        return torch.log1p(torch.exp(beta * x)) / beta

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return g * torch.sigmoid(ctx.beta * x), None


class SinCos(torch.autograd.Function):
    """Two differentiable outputs; a backward made of differentiable ops."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return torch.sin(x), torch.cos(x)

    @staticmethod
    def backward(ctx: Any, g_sin: Any, g_cos: Any) -> Any:
        (x,) = ctx.saved_tensors
        return g_sin * torch.cos(x) - g_cos * torch.sin(x)


class Bilinear(torch.autograd.Function):
    """x @ W @ y for a matrix and two vectors: three tensor inputs, broadcast-free."""

    @staticmethod
    def forward(ctx: Any, x: Any, w: Any, y: Any) -> Any:
        ctx.save_for_backward(x, w, y)
        return x @ w @ y

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        x, w, y = ctx.saved_tensors
        return g * (w @ y), g * torch.outer(x, y), g * (x @ w)


def _f64(values: Any) -> Any:
    return torch.tensor(values, dtype=torch.float64, requires_grad=True)


def test_custom_function_gradient_matches_central_differences() -> None:
    rng = np.random.default_rng(0)
    xv = rng.normal(size=(3, 2))
    weights = rng.normal(size=(3, 2))

    def value(a: np.ndarray) -> float:
        t = torch.tensor(a, dtype=torch.float64)
        return float((Softplus.apply(t, 1.5) * torch.tensor(weights)).sum())

    x = _f64(xv)
    (Softplus.apply(x, 1.5) * torch.tensor(weights)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), _numeric_grad(value, xv), rtol=1e-6, atol=1e-9)


def test_three_inputs_gradients_match_central_differences() -> None:
    rng = np.random.default_rng(1)
    xs = [rng.normal(size=3), rng.normal(size=(3, 4)), rng.normal(size=4)]
    ts = [_f64(a) for a in xs]
    Bilinear.apply(*ts).backward()
    for k in range(3):

        def value(a: np.ndarray, k: int = k) -> float:
            args = [torch.tensor(a if j == k else xs[j], dtype=torch.float64) for j in range(3)]
            return float(Bilinear.apply(*args))

        np.testing.assert_allclose(ts[k].grad.numpy(), _numeric_grad(value, xs[k]), rtol=1e-6)


def test_several_outputs_and_second_order_match_central_differences() -> None:
    xv = np.array([0.3, -1.2, 2.0])
    a, b = 2.0, -3.0

    def first(v: np.ndarray) -> Any:  # d/dx of sum(a·sin x + b·cos x), through the Function
        t = _f64(v)
        s, c = SinCos.apply(t)
        (g,) = torch.autograd.grad((a * s + b * c).sum(), t, create_graph=True)
        return g

    g = first(xv)
    np.testing.assert_allclose(
        g.detach().numpy(),
        _numeric_grad(lambda v: float(np.sum(a * np.sin(v) + b * np.cos(v))), xv),
        rtol=1e-6,
    )
    assert g.requires_grad  # the user's backward was recorded
    weights = np.array([1.0, -0.5, 0.25])
    t = _f64(xv)
    s, c = SinCos.apply(t)
    (g1,) = torch.autograd.grad((a * s + b * c).sum(), t, create_graph=True)
    (h,) = torch.autograd.grad((g1 * torch.tensor(weights)).sum(), t)
    numeric = _numeric_grad(lambda v: float((first(v).detach().numpy() * weights).sum()), xv)
    np.testing.assert_allclose(h.numpy(), numeric, rtol=1e-6, atol=1e-9)


def test_one_of_several_outputs_used_gets_zeros_for_the_other() -> None:
    received = []

    class Pair(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2, x * 3

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any) -> Any:
            received.append((ga.tolist(), gb.tolist()))
            return 2 * ga + 3 * gb

    x = torch.tensor([1.0, 2.0], requires_grad=True)
    a, _ = Pair.apply(x)
    a.sum().backward()
    assert received == [([1.0, 1.0], [0.0, 0.0])]
    assert x.grad.tolist() == [2.0, 2.0]


def test_node_names_ctx_and_errors() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = Softplus.apply(x, 1.0)
    assert y.grad_fn.name() == "SoftplusBackward" and type(y.grad_fn).__name__ == "SoftplusBackward"
    assert repr(y.grad_fn).startswith("<torch.autograd.function.SoftplusBackward object at 0x")
    assert "grad_fn=<SoftplusBackward>" in repr(y)
    assert y.grad_fn.next_functions[0][0].name() == "torch::autograd::AccumulateGrad"
    # no input requiring grad, or grad mode off: no node
    assert Softplus.apply(torch.tensor([1.0]), 1.0).grad_fn is None
    with torch.no_grad():
        assert not Softplus.apply(x, 1.0).requires_grad
    y.sum().backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.sum().backward()  # its backward reads saved tensors, freed by the first backward

    class NoSaved(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    z = NoSaved.apply(x)
    z.sum().backward()
    z.sum().backward()  # nothing saved: a second backward is fine, as in PyTorch

    class Wrong(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.sum()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g.expand(3)

    with pytest.raises(
        RuntimeError, match=r"WrongBackward returned an invalid gradient at index 0"
    ):
        Wrong.apply(x).backward()


def test_walk_step_says_the_users_backward_computed_it() -> None:
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = torch.tensor(3.0, requires_grad=True)
    x._name = "x"
    with record_passes() as log:
        y = Square.apply(x)
        y._name = "y"
        (y * 2).backward()
    graph = log.graphs[0]
    node = next(n for n in graph["nodes"] if n["name"] == "y")
    assert node["op"] == "function" and node["grad_fn"] == "SquareBackward"
    step = next(s for s in graph["walk"] if s["node"] == node["id"])
    assert "Square.backward" in step["formula"]
    assert step["formula"].endswith("= Square.backward(2) = 12")
    assert step["contributions"][0]["accumulated_grad"] == 12.0


def test_hooks_replace_gradients_consistently_with_central_differences() -> None:
    """A hook that scales an intermediate's gradient by 3 makes the leaf's gradient 3x the
    true one; a leaf hook then sees (and may change) what is accumulated."""
    xv = np.array([0.2, -0.7, 1.1])

    def value(v: np.ndarray) -> float:
        return float(np.sum(np.tanh(v) ** 2))

    x = _f64(xv)
    seen: list[Any] = []
    x.register_hook(lambda g: seen.append(g.numpy().copy()))
    h = torch.tanh(x)
    h.register_hook(lambda g: g * 3)
    (h * h).sum().backward()
    expected = 3 * _numeric_grad(value, xv)
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(seen[0], expected, rtol=1e-6)


def test_hook_order_retain_grad_and_remove() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()  # registered first, runs last
    first = y.register_hook(lambda g: g + 1)
    order: list[Any] = []
    y.register_hook(lambda g: order.append(g.tolist()))
    y.sum().backward()
    assert order == [[2.0, 2.0]] and y.grad.tolist() == [2.0, 2.0] and x.grad.tolist() == [6.0, 6.0]
    first.remove()
    first.remove()  # twice is harmless
    x.grad = None
    y2 = x * 3
    with y2.register_hook(lambda g: g * 0):
        pass  # a handle used as a context manager removes its hook on exit
    y2.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="doesn't require gradient"):
        torch.tensor([1.0]).register_hook(lambda g: g)


def test_leaf_hook_runs_once_per_backward_on_the_summed_gradient() -> None:
    calls: list[float] = []
    v = torch.tensor(2.0, requires_grad=True)
    v.register_hook(lambda g: calls.append(g.item()) or g * 10)
    (v * v + 3 * v).backward()
    (v * v + 3 * v).backward()
    assert calls == [7.0, 7.0] and v.grad.item() == 140.0


def test_hooks_under_create_graph_are_recorded() -> None:
    b = torch.tensor(3.0, requires_grad=True)
    c = b**2
    c.register_hook(lambda g: g * 2)
    (gb,) = torch.autograd.grad(c, b, create_graph=True)
    assert gb.item() == 12.0 and gb.requires_grad
    (h,) = torch.autograd.grad(gb, b)
    assert h.item() == 4.0
