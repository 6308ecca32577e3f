"""What the optimizer tests compare with PyTorch 2.13, written once: 25 training steps on a
small classifier, 25 steps on identical gradients (parameters and every state entry), reprs,
defaults and groups, argument errors, the state_dict layout, and the fake GPU against the CPU.

``make(lib, params)`` builds the optimizer under test from ``engine`` or ``torch``. Every
tolerance counts roundings by tests/tolerances.py's rules.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import OPTIMIZER_STEP, TRAINING_25_STEPS, close, magnitude

Make = Callable[[Any, Any], Any]


def params(lib: Any) -> list[Any]:
    """Two zero parameters (a matrix and a vector) for the construction tests."""
    return [lib.zeros(2, 3, requires_grad=True), lib.zeros(3, requires_grad=True)]


def assert_training_matches(make: Make) -> None:
    """25 steps on a small classifier: the parameters agree to float32 rounding
    (TRAINING_25_STEPS: the updates of one parameter add up to well under the 2.5 that bound
    assumes, computed in float64)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(16, 3)), rng.integers(0, 2, 16)
    results = []
    for lib in (engine, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
        opt = make(lib, model.parameters())
        x, y = lib.tensor(X, dtype=lib.float32), lib.tensor(Y)
        for _ in range(25):
            opt.zero_grad()
            lib.nn.functional.cross_entropy(model(x), y).backward()
            opt.step()
        results.append([p.detach().numpy().copy() for p in model.parameters()])
    for e, t in zip(*results, strict=True):
        np.testing.assert_allclose(e, t, **TRAINING_25_STEPS)


def assert_steps_on_identical_gradients_match(make: Make) -> None:
    """The update rule alone, 25 steps on the same gradients: parameters and every state entry
    (its dtype and shape too) within 25 OPTIMIZER_STEPs of the array's largest element.

    A difference made at one step stays in the state: moving averages shrink it, the parameters
    and a momentum buffer keep it, so 25 steps add up to 25 OPTIMIZER_STEPs (a step of these
    optimizers has at most that many roundings that may differ: MKL's float32 square roots,
    within 1 ulp, and multiply-adds fused or not by CPU capability). Parameters and buffers are
    sums of updates of both signs: the bound is at the scale of the array (issue 10's failure:
    40 ulp of a buffer element of 0.42, 1.4u of the buffer's largest element, 14.5)."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    shapes = [(8, 3), (8,), (2, 8), (2,), (37,)]
    start = [rng.normal(size=s).astype(np.float32) for s in shapes]
    grads = [
        [rng.normal(size=s).astype(np.float32) * (0.1 + k % 3) for s in shapes] for k in range(25)
    ]
    results = []
    for lib in (engine, torch):
        ps = [lib.tensor(a.copy(), requires_grad=True) for a in start]
        opt = make(lib, ps)
        for step_grads in grads:
            for p, g in zip(ps, step_grads, strict=True):
                p.grad = lib.tensor(g.copy())
            opt.step()
        results.append(([p.detach().numpy().copy() for p in ps], opt.state_dict()["state"]))
    (e_params, e_state), (t_params, t_state) = results
    steps = 25 * OPTIMIZER_STEP
    for e, t in zip(e_params, t_params, strict=True):
        np.testing.assert_allclose(e, t, **close(steps, magnitude(t)))
    assert e_state.keys() == t_state.keys()
    for i in t_state:
        assert list(e_state[i]) == list(t_state[i])
        for key, value in t_state[i].items():
            expected = value.numpy()
            got = e_state[i][key]
            assert str(got.dtype) == str(value.dtype) and tuple(got.shape) == tuple(value.shape)
            np.testing.assert_allclose(got.numpy(), expected, **close(steps, magnitude(expected)))


def assert_repr_defaults_and_groups_match(make: Make) -> None:
    torch = pytest.importorskip("torch")
    e, t = make(engine, params(engine)), make(torch, params(torch))
    assert repr(e) == repr(t)
    assert str(e) == str(t)
    assert e.defaults == t.defaults and list(e.defaults) == list(t.defaults)
    for eg, tg in zip(e.param_groups, t.param_groups, strict=True):
        assert list(eg) == list(tg)
        assert {k: v for k, v in eg.items() if k != "params"} == {
            k: v for k, v in tg.items() if k != "params"
        }


def assert_argument_errors_match(make: Make) -> None:
    """The same exception type and message as PyTorch's."""
    torch = pytest.importorskip("torch")
    errors = []
    for lib in (engine, torch):
        with pytest.raises((ValueError, TypeError)) as info:
            make(lib, params(lib))
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def assert_state_layout_matches(make: Make, values_within: int | None = None) -> None:
    """The state_dict layout (keys, shapes, dtypes, groups) before any step, and after each of
    two steps with one parameter left without a gradient; with ``values_within``, the state's
    values within that many OPTIMIZER_STEPs (gradients of ones: no cancellation). Then the
    version counters: each in-place update of PyTorch's step bumps the parameter's."""
    torch = pytest.importorskip("torch")
    ps = {lib: params(lib) for lib in (engine, torch)}
    opts = {lib: make(lib, ps[lib]) for lib in (engine, torch)}

    def layout(lib: Any) -> Any:
        sd = opts[lib].state_dict()
        state = {
            i: {k: (tuple(v.shape), str(v.dtype)) for k, v in s.items()}
            for i, s in sd["state"].items()
        }
        return state, sd["param_groups"]

    def values(lib: Any) -> list[np.ndarray]:
        return [v.numpy() for s in opts[lib].state_dict()["state"].values() for v in s.values()]

    assert layout(engine) == layout(torch)
    for step in range(2):
        for lib in (engine, torch):
            ps[lib][0].grad = lib.ones(2, 3) * (step + 1)
            opts[lib].step()
        assert layout(engine) == layout(torch)
        if values_within is not None:
            for e, t in zip(values(engine), values(torch), strict=True):
                np.testing.assert_allclose(e, t, **close(values_within * OPTIMIZER_STEP))
    assert ps[engine][0]._version == ps[torch][0]._version
    assert ps[engine][1]._version == ps[torch][1]._version == 0


def assert_fake_gpu_matches_cpu(makers: Iterable[Make]) -> None:
    """On (fake) CuPy arrays the state stays on the device and the steps equal the CPU's."""
    for make in makers:
        runs = []
        for dev in ("cpu", "cuda"):
            engine.manual_seed(0)
            w = engine.randn(4, 3, device=dev, requires_grad=True)
            opt = make(engine, [w])
            for _ in range(5):
                opt.zero_grad()
                ((w * w).sum() + w.sum()).backward()
                opt.step()
            assert w.device.type == dev
            arrays = [v for v in opt.state_of(w).values() if hasattr(v, "shape") and v.shape]
            assert arrays
            assert all((type(a) is np.ndarray) == (dev == "cpu") for a in arrays)
            runs.append(w.detach().cpu().numpy())
        np.testing.assert_array_equal(runs[1], runs[0])
