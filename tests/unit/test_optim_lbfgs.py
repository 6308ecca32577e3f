"""L-BFGS against PyTorch 2.13: iterates on a quadratic with and without the strong-Wolfe line
search, a network trained in float32, reprs, defaults, argument errors and the state dict.

Every tolerance counts roundings by tests/tolerances.py's rules; each says how many and why.
"""

from __future__ import annotations

import copy
from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import U64, close, magnitude
from tests.unit.optim_vs_torch import Make, params
from tests.unit.test_fake_gpu import cupy as fake_cupy  # noqa: F401  (a fixture: CuPy stand-in)

# ---- L-BFGS ------------------------------------------------------------------------------------


def _quadratic() -> tuple[np.ndarray, np.ndarray]:
    """A least-squares problem with singular values 1 to 1.7 (condition 2.9 of its Hessian)."""
    rng = np.random.default_rng(2)
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    return q @ np.diag(np.linspace(1.0, 1.7, 6)) @ q.T, rng.normal(size=6)


@pytest.mark.torch
@pytest.mark.parametrize("line_search_fn", [None, "strong_wolfe"])
@pytest.mark.parametrize("history_size", [100, 2])
def test_lbfgs_matches_pytorch(line_search_fn: str | None, history_size: int) -> None:
    """Three ``step(closure)`` calls of up to 5 iterations on a well-conditioned least-squares
    problem (float64): the same closure evaluations and iterations, and the parameters within
    the roundings of the iteration: each of its ~15 iterations makes ~(2·history + 4) dot
    products of 6 terms (≤ 80 roundings) that the next direction amplifies by at most the
    Hessian's condition 2.9 per iteration: 15·80·2.9**5 < 3e5 roundings of the solution's scale."""
    torch = pytest.importorskip("torch")
    a, b = _quadratic()
    results = []
    for lib in (engine, torch):
        w = lib.zeros(6, dtype=lib.float64, requires_grad=True)
        at, bt = lib.tensor(a), lib.tensor(b)
        opt = lib.optim.LBFGS(
            [w], lr=0.8, max_iter=5, history_size=history_size, line_search_fn=line_search_fn
        )

        def closure(opt: Any = opt, w: Any = w, at: Any = at, bt: Any = bt) -> Any:
            opt.zero_grad()
            loss = 0.5 * ((at @ w - bt) ** 2).sum()
            loss.backward()
            return loss

        losses = [opt.step(closure).item() for _ in range(3)]
        state = opt.state_dict()["state"][0]
        results.append(
            (
                w.detach().numpy().copy(),
                losses,
                state["func_evals"],
                state["n_iter"],
                sorted(state),
                repr(opt),
            )
        )
    (ew, el, *e_rest), (tw, tl, *t_rest) = results
    assert e_rest == t_rest
    np.testing.assert_allclose(ew, tw, **close(3e5, magnitude(tw), U64))
    np.testing.assert_allclose(el, tl, **close(3e5, magnitude(tl), U64))


@pytest.mark.torch
def test_lbfgs_trains_a_network_as_pytorch_in_float32() -> None:
    """The first ``step`` (10 iterations) on a small tanh network in float32: the closure's
    losses as PyTorch's. Each loss sums 20 squared residuals (19 roundings) of a network of
    dot products of 3 and 4 terms with a tanh (LIBRARY_FUNCTION + 7 per layer pair): ~55
    roundings each side; the parameters it is evaluated at differ by the iterations' update
    roundings, which the loss feels at first order through its gradient (small, and shrinking
    as the iteration converges): 2·55 + 10 = 120 roundings of the largest loss."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3)).astype(np.float32)
    Y = (X @ np.array([1.0, -2.0, 0.5], dtype=np.float32) + 0.3).reshape(-1, 1)
    results = []
    for lib in (engine, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.Tanh(), lib.nn.Linear(4, 1))
        opt = lib.optim.LBFGS(model.parameters(), lr=0.5, max_iter=10)
        x, y = lib.tensor(X), lib.tensor(Y)
        seen: list[float] = []

        def closure(lib: Any = lib, opt: Any = opt, model: Any = model, x: Any = x, y: Any = y,
                    seen: list[float] = seen) -> Any:  # fmt: skip
            opt.zero_grad()
            loss = lib.nn.functional.mse_loss(model(x), y)
            loss.backward()
            seen.append(loss.item())
            return loss

        opt.step(closure)
        results.append(seen)
    assert len(results[0]) == len(results[1]) == 10
    np.testing.assert_allclose(results[0], results[1], **close(120, magnitude(results[1])))


@pytest.mark.torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, ps: lib.optim.LBFGS(ps),
        lambda lib, ps: lib.optim.LBFGS(ps, lr=0.1, max_iter=4, history_size=3),
        lambda lib, ps: lib.optim.LBFGS(ps, line_search_fn="strong_wolfe", max_eval=9),
    ],
)
def test_lbfgs_repr_and_defaults_match_pytorch(make: Make) -> None:
    torch = pytest.importorskip("torch")
    e, t = make(engine, params(engine)), make(torch, params(torch))
    assert repr(e) == repr(t)
    assert e.defaults == t.defaults and list(e.defaults) == list(t.defaults)


@pytest.mark.torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, ps: lib.optim.LBFGS(ps, lr=-1.0),
        lambda lib, ps: lib.optim.LBFGS([{"params": ps[:1]}, {"params": ps[1:]}]),
        lambda lib, ps: lib.optim.LBFGS([]),
    ],
)
def test_lbfgs_argument_errors_match_pytorch(make: Make) -> None:
    torch = pytest.importorskip("torch")
    errors = []
    for lib in (engine, torch):
        with pytest.raises(ValueError) as info:
            make(lib, params(lib))
        errors.append(str(info.value))
    assert errors[0] == errors[1]


def test_lbfgs_state_dict_round_trip() -> None:
    """Its state (counters, the history lists, the last direction) saves and loads: a resumed
    optimizer continues exactly as the one that never stopped."""
    a, b = _quadratic()
    runs = []
    for resume in (False, True):
        w = engine.zeros(6, dtype=engine.float64, requires_grad=True)
        at, bt = engine.tensor(a), engine.tensor(b)
        opt = engine.optim.LBFGS([w], max_iter=2, history_size=3)

        def closure(w: Any = w, at: Any = at, bt: Any = bt) -> Any:
            w.grad = None
            loss = 0.5 * ((at @ w - bt) ** 2).sum()
            loss.backward()
            return loss

        opt.step(closure)
        if resume:
            saved = copy.deepcopy(opt.state_dict())
            assert isinstance(saved["state"][0]["old_dirs"], list)
            assert isinstance(saved["state"][0]["func_evals"], int)
            opt = engine.optim.LBFGS([w], max_iter=2, history_size=3)
            opt.load_state_dict(saved)
        opt.step(closure)
        runs.append(w.detach().numpy().copy())
    np.testing.assert_array_equal(runs[1], runs[0])
