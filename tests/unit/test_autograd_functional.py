"""torch.autograd.functional (issue 41) against PyTorch 2.13 and central differences, in
float64: jacobian, hessian, vjp, jvp, hvp, vhp on single and tuple inputs and outputs, with
and without ``create_graph`` (whose results must themselves be differentiable, as PyTorch's).

Tolerances (tests/tolerances.py): float64 results of a few dozen operations, each side in its
own order (relative 1e-12); central differences with step 1e-6 (truncation ~1e-12 · f''' and
rounding ~1e-10 / h: 1e-6 relative)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine

#: name -> (function of (library, *inputs), input arrays); each a smooth function
CASES: dict[str, tuple[Callable[..., Any], list[list[Any]]]] = {
    "one_in_one_out": (lambda L, x: (x**2).sin() * x.exp(), [[0.3, -0.7, 1.1]]),
    "matrix_in_vector_out": (
        lambda L, w: (w @ L.tensor([1.0, -2.0], dtype=L.float64)).tanh(),
        [[[0.2, 0.5], [-0.4, 0.9], [0.1, 0.3]]],
    ),
    "tuple_in": (
        lambda L, a, b: (a[:2] * b).sum(0).sigmoid(),
        [[1.0, 2.0, 3.0], [[0.5, -1.0], [2.0, 0.3]]],
    ),
    "tuple_out": (lambda L, x: (x.exp().sum(), x * x), [[0.1, 0.2]]),
    "tuple_both": (lambda L, a, b: (a * b, (a - b).cos()), [[0.4, -0.1], [1.5, 0.2]]),
    "unused_input": (lambda L, a, b: a.log(), [[1.5, 2.5], [0.0]]),
}

#: scalar functions, for hessian / hvp / vhp
SCALAR: dict[str, tuple[Callable[..., Any], list[list[Any]]]] = {
    "cubic": (lambda L, x: (x**3).sum() + (x[0] * x[1]).exp(), [[0.3, -0.5, 0.8]]),
    "two_inputs": (
        lambda L, a, b: ((a @ b).tanh() ** 2).sum(),
        [[[0.2, 0.5], [-0.4, 0.9]], [0.7, -0.3]],
    ),
    "linear": (lambda L, x: x.sum() * 2, [[1.0, 2.0]]),  # a zero Hessian
}


def _inputs(L: Any, arrays: list[Any], requires_grad: bool = False) -> tuple[Any, ...]:
    return tuple(L.tensor(a, dtype=L.float64, requires_grad=requires_grad) for a in arrays)


def _arrays(value: Any) -> Any:
    if isinstance(value, tuple):
        return tuple(_arrays(v) for v in value)
    return value.detach().numpy()


def _assert_close(ours: Any, theirs: Any) -> None:
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            _assert_close(a, b)
        return
    assert not isinstance(ours, tuple)
    assert ours.shape == theirs.shape
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def _call(L: Any, what: str, name: str, create_graph: bool = False) -> Any:
    """Call torch.autograd.functional.<what> on a case, as a learner would: single tensors
    where the case has one input."""
    fn, arrays = (SCALAR if what in ("hessian", "hvp", "vhp") else CASES)[name]
    inputs = _inputs(L, arrays)
    arg = inputs if len(inputs) > 1 else inputs[0]
    F = L.autograd.functional
    f = lambda *xs: fn(L, *xs)  # noqa: E731
    if what in ("jacobian", "hessian"):
        return getattr(F, what)(f, arg, create_graph=create_graph)
    if what == "vjp":
        outs = f(*inputs)
        seeds = tuple(L.linspace(-1, 1, o.numel(), dtype=L.float64).reshape(o.shape) for o in
                      (outs if isinstance(outs, tuple) else (outs,)))  # fmt: skip
        v = seeds if isinstance(outs, tuple) else seeds[0]
        return F.vjp(f, arg, v, create_graph=create_graph)
    vs = tuple(L.linspace(0.5, -1, x.numel(), dtype=L.float64).reshape(x.shape) for x in inputs)
    v = vs if len(inputs) > 1 else vs[0]
    return getattr(F, what)(f, arg, v, create_graph=create_graph)


JACOBIAN_LIKE = [(w, n) for w in ("jacobian", "vjp", "jvp") for n in CASES]
HESSIAN_LIKE = [(w, n) for w in ("hessian", "hvp", "vhp") for n in SCALAR]


@pytest.mark.torch
@pytest.mark.parametrize(("what", "name"), JACOBIAN_LIKE + HESSIAN_LIKE)
def test_values_and_shapes_match_pytorch(what: str, name: str) -> None:
    torch = pytest.importorskip("torch")
    _assert_close(_arrays(_call(engine, what, name)), _arrays(_call(torch, what, name)))


def _flat(value: Any) -> list[Any]:
    if isinstance(value, tuple):
        return [t for v in value for t in _flat(v)]
    return [value]


@pytest.mark.torch
@pytest.mark.parametrize(("what", "name"), JACOBIAN_LIKE + HESSIAN_LIKE)
def test_create_graph_results_are_differentiable_as_in_pytorch(what: str, name: str) -> None:
    """With create_graph=True on inputs that require grad, the results stay in the graph: the
    gradient of their sum with respect to the inputs matches PyTorch's."""
    torch = pytest.importorskip("torch")

    def run(L: Any) -> Any:
        fn, arrays = (SCALAR if what in ("hessian", "hvp", "vhp") else CASES)[name]
        inputs = _inputs(L, arrays, requires_grad=True)
        arg = inputs if len(inputs) > 1 else inputs[0]
        F = L.autograd.functional
        f = lambda *xs: fn(L, *xs)  # noqa: E731
        if what in ("jacobian", "hessian"):
            result = getattr(F, what)(f, arg, create_graph=True)
        elif what == "vjp":
            outs = f(*inputs)
            seeds = tuple(L.ones_like(o) for o in (outs if isinstance(outs, tuple) else (outs,)))
            result = F.vjp(f, arg, seeds if isinstance(outs, tuple) else seeds[0],
                           create_graph=True)[1]  # fmt: skip
        else:
            vs = tuple(L.ones_like(x) for x in inputs)
            result = getattr(F, what)(f, arg, vs if len(inputs) > 1 else vs[0],
                                      create_graph=True)[1]  # fmt: skip
        parts = [t for t in _flat(result) if t.requires_grad]
        if not parts:
            return None
        total = sum(((t * t).sum() for t in parts), L.tensor(0.0, dtype=L.float64))
        grads = L.autograd.grad(total, inputs, allow_unused=True, materialize_grads=True)
        return tuple(g.detach().numpy() for g in grads)

    ours, theirs = run(engine), run(torch)
    if theirs is None:
        assert ours is None
    else:
        _assert_close(ours, theirs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_jacobian_is_the_central_difference_quotient(name: str) -> None:
    fn, arrays = CASES[name]
    inputs = _inputs(engine, arrays)
    jac = engine.autograd.functional.jacobian(lambda *xs: fn(engine, *xs), inputs)
    outs = fn(engine, *inputs)
    outs = outs if isinstance(outs, tuple) else (outs,)
    jac = jac if isinstance(outs, tuple) and len(outs) > 1 else (jac,)
    h = 1e-6
    for j, x in enumerate(inputs):
        for k in range(x.numel()):
            plus = [t.detach().clone() for t in inputs]
            minus = [t.detach().clone() for t in inputs]
            plus[j].view(-1)[k] += h
            minus[j].view(-1)[k] -= h
            fp, fm = fn(engine, *plus), fn(engine, *minus)
            fp, fm = (fp, fm) if isinstance(fp, tuple) else ((fp,), (fm,))
            for i in range(len(outs)):
                numeric = (fp[i] - fm[i]).numpy() / (2 * h)
                analytic = jac[i][j].reshape(*outs[i].shape, -1)[..., k].numpy()
                np.testing.assert_allclose(analytic, numeric, rtol=1e-6, atol=1e-8)


def test_single_inputs_give_single_results_and_plain_results_leave_the_graph() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    jac = engine.autograd.functional.jacobian(lambda a: a * a, x)
    assert isinstance(jac, engine.Tensor) and jac.shape == (2, 2) and not jac.requires_grad
    out, g = engine.autograd.functional.vjp(lambda a: (a * a).sum(), x)
    assert not out.requires_grad and g.tolist() == [2.0, 4.0]
    hess = engine.autograd.functional.hessian(lambda a: (a**3).sum(), x, vectorize=True)
    assert hess.tolist() == [[6.0, 0.0], [0.0, 12.0]]


def test_pytorchs_errors() -> None:
    F = engine.autograd.functional
    x = engine.tensor([1.0, 2.0])
    with pytest.raises(RuntimeError, match="v can only be None if the user-provided function"):
        F.vjp(lambda a: a * 2, x)
    with pytest.raises(RuntimeError, match="should contain a single element"):
        F.hessian(lambda a: a * 2, x)
    with pytest.raises(
        RuntimeError, match="Output 0 of the user-provided function is independent of input 1"
    ):
        F.jacobian(lambda a, b: a * 2, (x, engine.ones(1)), strict=True)
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        F.jacobian(lambda a: a, [1.0, 2.0])
