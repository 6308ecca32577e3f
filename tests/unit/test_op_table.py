"""Every op in the table: gradients against central differences (float64) and against PyTorch.

Iterates ``engine.ops.OPS`` and the sample calls in ``op_cases.CASES``; a row without a
sample call fails the coverage test, so a new op cannot go unchecked.
"""

from __future__ import annotations

import zlib
from typing import Any

import numpy as np
import pytest

import engine
from engine.ops import OPS
from tests.tolerances import LIBRARY_FUNCTION, U32, U64, central_differences, close, magnitude
from tests.unit.op_cases import CASES, SUMS_OF_PRODUCTS

PARAMS = [(name, i) for name, cases in CASES.items() for i in range(len(cases))]

#: One op-table case against PyTorch, in roundings of its dtype: up to ~20 correctly rounded
#: operations (composite rows, reductions of <= 12 terms) and up to 3 library functions in a
#: chain (LIBRARY_FUNCTION each: NumPy's SIMD loops within 4 ulp, PyTorch's within 1), with a
#: condition number of at most ~4 on the sampled domains (|x| >= 0.2 from kinks, [0.1, 0.9]
#: for asin/acos/tan, [0.5, 2] for logs and divisors), relative to the result's largest
#: element (a row of terms of both signs, such as softmax's gradient, cancels), or for a sum of
#: products (op_cases.SUMS_OF_PRODUCTS: a dot product, a full sum) to its largest sum of term
#: magnitudes, which a result that cancels to near zero can be far below. A gradient runs the
#: rules of as many operations again: twice that.
CASE_ROUNDINGS = 4 * (20 + 3 * LIBRARY_FUNCTION)


def _draw(rng: np.random.Generator, shape: tuple[int, ...], domain: str) -> np.ndarray:
    if domain == "pos":
        return rng.uniform(0.5, 2.0, shape)
    if domain == "unit":
        return rng.uniform(0.1, 0.9, shape)
    x = rng.normal(size=shape)
    if domain == "away":
        x = np.where(np.abs(x) < 0.2, np.sign(x + 1e-12) * (0.2 + np.abs(x)), x)
        # distinct magnitudes so that max/min never tie
        x = x + np.arange(x.size).reshape(shape) * 1e-3
    return x


def stable_seed(*parts: object) -> int:
    """A seed for ``parts`` that is the same in every process: ``hash()`` of a string changes
    with PYTHONHASHSEED, which would draw other inputs on every run and make a failure
    impossible to reproduce."""
    return zlib.crc32(repr(parts).encode())


def _inputs(name: str, i: int, seed: int = 0) -> tuple[Any, list[np.ndarray]]:
    fn, specs = CASES[name][i]
    rng = np.random.default_rng(stable_seed(name, i, seed))
    return fn, [_draw(rng, shape, dom) for shape, dom in specs]


def _term_scales(
    name: str, fn: Any, arrays: list[np.ndarray], g: np.ndarray
) -> tuple[float, list[float]]:
    """The scale of a case's rounding error, for its value and for each input's gradient: the
    largest sum of term magnitudes among their elements for a row in SUMS_OF_PRODUCTS (the
    case on ``|inputs|`` and ``|g|``, in float64), else 0 (the result's own largest element
    is the scale)."""
    if name not in SUMS_OF_PRODUCTS:
        return 0.0, [0.0] * len(arrays)
    value, grads = _engine_value_and_grads(fn, [np.abs(a) for a in arrays], np.abs(g))
    return magnitude(value), [magnitude(grad) for grad in grads]


def _engine_value_and_grads(
    fn: Any, arrays: list[np.ndarray], g: np.ndarray | None
) -> tuple[np.ndarray, list[np.ndarray]]:
    ts = [engine.tensor(a, dtype=engine.float64, requires_grad=True) for a in arrays]
    out = fn(engine, *ts)
    upstream = g if g is not None else np.ones(out.shape)
    out.backward(engine.tensor(upstream, dtype=engine.float64))
    grads = [
        t.grad.numpy() if t.grad is not None else np.zeros_like(a)
        for t, a in zip(ts, arrays, strict=True)
    ]
    return out.detach().numpy(), grads


def test_every_op_has_a_case() -> None:
    assert set(OPS) == set(CASES), f"ops without cases: {set(OPS) - set(CASES)}"


@pytest.mark.parametrize(("name", "i"), PARAMS)
def test_gradient_matches_central_differences(name: str, i: int) -> None:
    fn, arrays = _inputs(name, i)
    out, _ = _engine_value_and_grads(fn, arrays, None)
    rng = np.random.default_rng(1)
    g = rng.normal(size=out.shape)
    _, grads = _engine_value_and_grads(fn, arrays, g)
    # Central differences err by eps**2/6 * |f'''| (~1e-13 here) plus the objective's rounding
    # error over 2 eps: ~100 float64 roundings of terms summing to <= ~100, / 2e-6: ~5e-7, so
    # atol 1e-6 and rtol 1e-5 for large gradients. "to" rounds to float32 inside the
    # objective: u32 * ~10 / 2e-3 ~ 3e-4, so eps 1e-3, atol 1e-4 and rtol 1e-3.
    eps, rtol, atol = (1e-3, 1e-3, 1e-4) if name == "to" else (1e-6, 1e-5, 1e-6)

    def objective(values: list[np.ndarray]) -> float:
        with engine.no_grad():
            ts = [engine.tensor(v, dtype=engine.float64) for v in values]
            return float((fn(engine, *ts).numpy() * g).sum())

    for k in range(len(arrays)):
        numeric = central_differences(objective, arrays, k, eps)
        np.testing.assert_allclose(
            grads[k], numeric, rtol=rtol, atol=atol, err_msg=f"{name} case {i}, input {k}"
        )


@pytest.mark.torch
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize(("name", "i"), PARAMS)
def test_matches_pytorch(name: str, i: int, seed: int) -> None:
    torch = pytest.importorskip("torch")
    fn, arrays = _inputs(name, i, seed)
    for dtype, tdtype, unit in (
        (engine.float64, torch.float64, U64),
        (engine.float32, torch.float32, U32),
    ):
        ts = [engine.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
        tt = [torch.tensor(a, dtype=tdtype, requires_grad=True) for a in arrays]
        out, tout = fn(engine, *ts), fn(torch, *tt)
        assert out.dtype.name == str(tout.dtype).removeprefix("torch.")
        assert tuple(out.shape) == tuple(tout.shape)
        value = tout.detach().numpy()
        g = np.random.default_rng(seed).normal(size=tuple(out.shape))
        value_terms, grad_terms = _term_scales(name, fn, arrays, g)
        np.testing.assert_allclose(
            out.detach().numpy(),
            value,
            **close(CASE_ROUNDINGS, max(magnitude(value), value_terms), unit),
        )
        assert out.grad_fn.name() == tout.grad_fn.name()
        out.backward(engine.tensor(g, dtype=dtype))
        tout.backward(torch.tensor(g, dtype=tdtype))
        for t, tt_, terms in zip(ts, tt, grad_terms, strict=True):
            if tt_.grad is None:
                assert t.grad is None or not np.any(t.grad.numpy())
                continue
            assert t.grad is not None
            assert t.grad.dtype.name == str(tt_.grad.dtype).removeprefix("torch.")
            grad = tt_.grad.numpy()
            np.testing.assert_allclose(
                t.grad.numpy(),
                grad,
                **close(2 * CASE_ROUNDINGS, max(magnitude(grad), terms), unit),
                err_msg=f"{name} case {i}",
            )


@pytest.mark.torch
def test_random_broadcast_shapes_match_pytorch() -> None:
    """Binary ops on random broadcastable shapes: values and un-broadcast gradients."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(7)
    binaries = ["__add__", "__sub__", "__mul__", "__truediv__"]
    for trial in range(40):
        nd = int(rng.integers(1, 4))
        full = tuple(int(s) for s in rng.integers(1, 4, nd))
        sa = tuple(1 if rng.random() < 0.3 else s for s in full)
        sb = tuple(1 if rng.random() < 0.3 else s for s in full)[int(rng.integers(0, nd)) :]
        a, b = rng.normal(size=sa), rng.uniform(0.5, 2, size=sb)
        op = binaries[trial % len(binaries)]
        ea = engine.tensor(a, requires_grad=True)
        eb = engine.tensor(b, requires_grad=True)
        ta = torch.tensor(a, dtype=torch.float32, requires_grad=True)
        tb = torch.tensor(b, dtype=torch.float32, requires_grad=True)
        eo, to = getattr(ea, op)(eb), getattr(ta, op)(tb)
        (eo * eo).sum().backward()
        (to * to).sum().backward()
        # The engine keeps NumPy's float64 here, PyTorch is asked for float32: its roundings
        # of a and b and of the op (3), relative to |a| + |b| (a - b cancels).
        scale = magnitude(a) + magnitude(b)
        np.testing.assert_allclose(eo.detach().numpy(), to.detach().numpy(), **close(3, scale))
        # Gradients of sum(out**2): those 3, 2 * out * d(out) (2), and the sum over up to 27
        # broadcast copies (26), relative to the sum of the terms' magnitudes, which on these
        # 40 seeded cases is at most 88 times the largest gradient (computed in float64).
        for e, t in ((ea.grad.numpy(), ta.grad.numpy()), (eb.grad.numpy(), tb.grad.numpy())):
            np.testing.assert_allclose(e, t, **close(3 + 2 + 26, 88 * magnitude(t)))
