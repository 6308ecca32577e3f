"""Higher-order gradients (``create_graph=True``): every op-table row, second order, vs PyTorch.

For each sample call of the op table: the first-order gradients that ``create_graph=True``
returns equal the plain backward's, they carry a graph, and differentiating a random linear
combination of them again gives PyTorch's second derivatives (float64). Rows whose backward
cannot be recorded must say so with a RuntimeError naming the node, nothing else.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import U64, close, magnitude, tol
from tests.unit.test_op_table import CASE_ROUNDINGS, PARAMS, _inputs

#: PyTorch's second derivative of binary_cross_entropy divides by (x + 1e-12)**2 *
#: (1 - x + 1e-12)**2 (an epsilon against division by zero) where the exact one has x**2 and
#: (1 - x)**2: with x in [0.1, 0.9], at most 2 * 1e-12 / 0.1 relative for each.
BCE_EPSILON = 2 * (2 * 1e-12 / 0.1)

#: Rows whose backward cannot be recorded yet: convolution and pooling (their backward is a
#: col2im of indexed additions; recording it needs transposed-convolution rows of its own).
UNSUPPORTED: set[str] = {"conv", "max_pool", "avg_pool"}


def _first_order(lib: Any, name: str, i: int) -> tuple[Any, list[Any], tuple[Any, ...], Any]:
    fn, arrays = _inputs(name, i, seed=5)
    dtype = lib.float64
    ts = [lib.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    out = fn(lib, *ts)
    g = lib.tensor(np.random.default_rng(7).normal(size=tuple(out.shape)), dtype=dtype)
    grads = lib.autograd.grad(out, ts, g, create_graph=True, allow_unused=True)
    return out, ts, grads, arrays


def _combine(lib: Any, grads: tuple[Any, ...], arrays: list[np.ndarray]) -> Any:
    """sum_k <grad_k, v_k> over the gradients that carry a graph (None when none do)."""
    rng = np.random.default_rng(11)
    total = None
    for gk, a in zip(grads, arrays, strict=True):
        v = rng.normal(size=a.shape)
        if gk is None or not gk.requires_grad:
            continue
        term = (gk * lib.tensor(v, dtype=lib.float64)).sum()
        total = term if total is None else total + term
    return total


@pytest.mark.parametrize(("name", "i"), PARAMS)
def test_second_derivatives_match_pytorch(name: str, i: int) -> None:
    if name in UNSUPPORTED:
        with pytest.raises(RuntimeError, match=r"create_graph=True .* not supported through"):
            _first_order(engine, name, i)
        return
    torch = pytest.importorskip("torch")
    _, ts, grads, arrays = _first_order(engine, name, i)
    _, tts, tgrads, _ = _first_order(torch, name, i)

    # first order: the same values as PyTorch's (and so as the plain backward's, tested elsewhere)
    for gk, tgk in zip(grads, tgrads, strict=True):
        if tgk is None:
            assert gk is None or not np.any(gk.detach().numpy())
            continue
        assert gk is not None
        expected = tgk.detach().numpy()
        # the op table's gradient count (test_op_table.py), in float64
        np.testing.assert_allclose(
            gk.detach().numpy(), expected, **close(2 * CASE_ROUNDINGS, magnitude(expected), U64)
        )

    s, ts_ = _combine(engine, grads, arrays), _combine(torch, tgrads, arrays)
    if s is None:  # our first gradient is a constant (a kink op): PyTorch's second is zero
        if ts_ is not None:
            for h in torch.autograd.grad(ts_, tts, allow_unused=True):
                assert h is None or not h.abs().sum().item()
        return
    assert ts_ is not None
    hs = engine.autograd.grad(s, ts, allow_unused=True)
    ths = torch.autograd.grad(ts_, tts, allow_unused=True)
    for h, th in zip(hs, ths, strict=True):
        if th is None:
            assert h is None or not np.any(h.numpy()), f"{name} case {i}"
            continue
        got = np.zeros(th.shape) if h is None else h.numpy()
        # The rules of the first-order gradient's operations run once more: twice its count.
        # The second backward sums products of first-order terms, and where they cancel (the
        # derivative of softplus's sigmoid, e/(1+e), in its tail) it errs at their scale.
        scale = max(
            magnitude(th.numpy()), *(magnitude(g.detach().numpy()) for g in tgrads if g is not None)
        )
        epsilon = BCE_EPSILON / U64 if name == "binary_cross_entropy" else 0.0  # in roundings
        np.testing.assert_allclose(
            got,
            th.numpy(),
            **close(4 * CASE_ROUNDINGS + epsilon, scale, U64),
            err_msg=f"{name} {i}",
        )


def test_double_backward_graph_names_and_leaf_grad() -> None:
    x = engine.tensor(2.0, requires_grad=True)
    (g,) = engine.autograd.grad(x**3, x, create_graph=True)
    assert g.item() == 12.0 and g.grad_fn is not None and g.grad_fn.name() == "MulBackward0"
    (g2,) = engine.autograd.grad(g, x)
    assert g2.item() == 12.0 and g2.grad_fn is None

    w = engine.tensor(1.5, requires_grad=True)
    (w**4 - 2 * w).backward(create_graph=True)
    assert w.grad is not None and w.grad.requires_grad
    assert repr(w.grad) == "tensor(11.5000, grad_fn=<CopyBackwards>)"
    first = w.grad
    w.grad = None
    first.backward()
    # 12 w**2 = 27 through the recorded backward: NumPy's float32 power (within 4 ulp, its
    # AVX-512 and baseline loops differ) twice, and a product: 8 + 8 + 1 roundings
    assert w.grad.item() == pytest.approx(27.0, rel=tol(17))


def test_indexing_records_its_backward_under_pytorchs_names() -> None:
    a = engine.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    for index, expected in (
        ((slice(1, None), slice(None, None, 2)), "SliceBackwardBackward0"),
        (1, "SelectBackwardBackward0"),
        ([0, 2, 0], "IndexPutImplBackward0"),
    ):
        y = a[index]
        seed = engine.ones(*y.shape, dtype=engine.float64, requires_grad=True)
        (g,) = engine.autograd.grad(y, a, seed, create_graph=True)
        assert g.grad_fn is not None and g.grad_fn.name() == expected
        (back,) = engine.autograd.grad((g * a).sum(), seed)  # d/dseed of <scatter(seed), a>
        np.testing.assert_array_equal(back.numpy(), a.detach().numpy()[index])


def test_a_rule_the_facade_cannot_run_is_named_in_the_error() -> None:
    from engine.ops import MUL, Op
    from engine.tensor import apply

    # a row whose backward needs an array function the tensor facade does not offer
    odd = Op(
        "odd", "OddBackward0", MUL.forward, lambda xp, g, *_: (xp.fft(g), None), ("?", "?"), ""
    )
    x = engine.tensor([3.0, 1.0], requires_grad=True)
    y = apply(odd, (x, 2.0))
    with pytest.raises(RuntimeError, match=r"not supported through OddBackward0 .*xp\.fft"):
        engine.autograd.grad(y.sum(), x, create_graph=True)
    (plain,) = engine.autograd.grad(apply(MUL, (x, 2.0)).sum(), x, create_graph=True)
    assert plain.tolist() == [2.0, 2.0]
