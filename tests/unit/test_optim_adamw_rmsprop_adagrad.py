"""AdamW, RMSprop and Adagrad against PyTorch: trained parameters, single steps on identical
gradients, printed reprs, defaults, argument validation and ``state_dict`` layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import OPTIMIZER_STEP, TRAINING_25_STEPS, close, magnitude
from tests.unit.test_fake_gpu import cupy as fake_cupy  # noqa: F401  (a fixture: CuPy stand-in)

MAKERS: dict[str, Callable[[Any, Any], Any]] = {
    "adamw": lambda lib, ps: lib.optim.AdamW(ps),
    "adamw_lr_wd": lambda lib, ps: lib.optim.AdamW(ps, lr=0.01, weight_decay=0.1),
    "adamw_amsgrad": lambda lib, ps: lib.optim.AdamW(
        ps, lr=0.02, betas=(0.8, 0.99), weight_decay=0.05, amsgrad=True
    ),
    "adamw_maximize": lambda lib, ps: lib.optim.AdamW(ps, lr=0.01, eps=1e-6, maximize=True),
    "adamw_no_wd": lambda lib, ps: lib.optim.AdamW(ps, lr=0.01, betas=(0.3, 0.9), weight_decay=0),
    "rmsprop": lambda lib, ps: lib.optim.RMSprop(ps),
    "rmsprop_momentum_wd": lambda lib, ps: lib.optim.RMSprop(
        ps, lr=0.005, momentum=0.9, weight_decay=0.01
    ),
    "rmsprop_centered": lambda lib, ps: lib.optim.RMSprop(ps, lr=0.005, alpha=0.9, centered=True),
    "rmsprop_all": lambda lib, ps: lib.optim.RMSprop(
        ps, lr=0.003, alpha=0.95, eps=1e-6, momentum=0.5, centered=True
    ),
    "rmsprop_maximize": lambda lib, ps: lib.optim.RMSprop(ps, lr=0.001, maximize=True),
    "adagrad": lambda lib, ps: lib.optim.Adagrad(ps),
    "adagrad_all": lambda lib, ps: lib.optim.Adagrad(
        ps, lr=0.1, lr_decay=0.01, weight_decay=0.05, initial_accumulator_value=0.1
    ),
    "adagrad_maximize": lambda lib, ps: lib.optim.Adagrad(ps, lr=0.05, eps=1e-6, maximize=True),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(MAKERS))
def test_training_matches_pytorch(name: str) -> None:
    """25 steps on a small classifier: the parameters agree to float32 rounding."""
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(16, 3)), rng.integers(0, 2, 16)
    results = []
    for lib in (engine, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
        opt = MAKERS[name](lib, model.parameters())
        x = lib.tensor(X, dtype=lib.float32)
        y = lib.tensor(Y)
        for _ in range(25):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        results.append([p.detach().numpy().copy() for p in model.parameters()])
    for e, t in zip(*results, strict=True):
        np.testing.assert_allclose(e, t, **TRAINING_25_STEPS)


@pytest.mark.torch
@pytest.mark.parametrize("name", list(MAKERS))
def test_steps_on_identical_gradients_match_pytorch(name: str) -> None:
    """The update rule alone: fed the same gradients, parameters and state stay within the
    roundings that PyTorch's kernels make differently on different CPUs (its float32 sqrt is
    MKL's, within 1 ulp; its multiply-adds are fused or not by CPU capability)."""
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
        opt = MAKERS[name](lib, ps)
        for step_grads in grads:
            for p, g in zip(ps, step_grads, strict=True):
                p.grad = lib.tensor(g.copy())
            opt.step()
        results.append(
            (
                [p.detach().numpy().copy() for p in ps],
                opt.state_dict()["state"],
            )
        )
    (e_params, e_state), (t_params, t_state) = results
    # A difference made at one step stays in the state: moving averages shrink it, the
    # parameters and the momentum buffer keep it, so 25 steps add up to 25 OPTIMIZER_STEPs.
    # Parameters and buffers are sums of updates of both signs: the bound is at the scale of
    # the array (issue 10's failure: 40 ulp of a buffer element of 0.42, which is 1.4u of the
    # buffer's largest element, 14.5).
    steps = 25 * OPTIMIZER_STEP
    for e, t in zip(e_params, t_params, strict=True):
        np.testing.assert_allclose(e, t, **close(steps, magnitude(t)))
    assert e_state.keys() == t_state.keys()
    for i in t_state:
        assert list(e_state[i]) == list(t_state[i])
        for key, value in t_state[i].items():
            expected = value.numpy()
            np.testing.assert_allclose(
                e_state[i][key].numpy(), expected, **close(steps, magnitude(expected))
            )
            assert e_state[i][key].shape == tuple(value.shape)


def _params(lib: Any) -> list[Any]:
    return [lib.zeros(2, 3, requires_grad=True), lib.zeros(3, requires_grad=True)]


REPR_CASES: list[Callable[[Any, Any], Any]] = [
    lambda lib, ps: lib.optim.AdamW(ps),
    lambda lib, ps: lib.optim.AdamW(ps, lr=0.1, betas=(0.5, 0.6), weight_decay=0, amsgrad=True),
    lambda lib, ps: lib.optim.AdamW([{"params": ps[:1], "lr": 0.5}, {"params": ps[1:]}], lr=0.01),
    lambda lib, ps: lib.optim.RMSprop(ps),
    lambda lib, ps: lib.optim.RMSprop(ps, 0.1, 0.9, 1e-6, 0.01, 0.5, True, maximize=True),
    lambda lib, ps: lib.optim.RMSprop([{"params": ps[:1], "momentum": 0.9}, {"params": ps[1:]}]),
    lambda lib, ps: lib.optim.Adagrad(ps),
    lambda lib, ps: lib.optim.Adagrad(ps, 0.5, 0.1, 0.01, 0.2, 1e-8, maximize=True),
    lambda lib, ps: lib.optim.Adagrad([{"params": ps[:1], "lr_decay": 0.5}, {"params": ps[1:]}]),
]


@pytest.mark.torch
@pytest.mark.parametrize("make", REPR_CASES)
def test_repr_defaults_and_groups_match_pytorch(make: Callable[[Any, Any], Any]) -> None:
    torch = pytest.importorskip("torch")
    e, t = make(engine, _params(engine)), make(torch, _params(torch))
    assert repr(e) == repr(t)
    assert str(e) == str(t)
    assert e.defaults == t.defaults
    assert list(e.defaults) == list(t.defaults)
    for eg, tg in zip(e.param_groups, t.param_groups, strict=True):
        assert list(eg) == list(tg)
        assert {k: v for k, v in eg.items() if k != "params"} == {
            k: v for k, v in tg.items() if k != "params"
        }


@pytest.mark.torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, ps: lib.optim.AdamW(ps, lr=-0.1),
        lambda lib, ps: lib.optim.AdamW(ps, eps=-1e-8),
        lambda lib, ps: lib.optim.AdamW(ps, betas=(1.0, 0.999)),
        lambda lib, ps: lib.optim.AdamW(ps, betas=(0.9, -0.5)),
        lambda lib, ps: lib.optim.AdamW(ps, weight_decay=-0.01),
        lambda lib, ps: lib.optim.AdamW([]),
        lambda lib, ps: lib.optim.RMSprop(ps, lr=-0.1),
        lambda lib, ps: lib.optim.RMSprop(ps, eps=-1.0),
        lambda lib, ps: lib.optim.RMSprop(ps, momentum=-0.9),
        lambda lib, ps: lib.optim.RMSprop(ps, weight_decay=-1),
        lambda lib, ps: lib.optim.RMSprop(ps, alpha=-0.99),
        lambda lib, ps: lib.optim.RMSprop(ps[0]),
        lambda lib, ps: lib.optim.Adagrad(ps, lr=-0.1),
        lambda lib, ps: lib.optim.Adagrad(ps, lr_decay=-1),
        lambda lib, ps: lib.optim.Adagrad(ps, weight_decay=-0.5),
        lambda lib, ps: lib.optim.Adagrad(ps, initial_accumulator_value=-0.1),
        lambda lib, ps: lib.optim.Adagrad(ps, eps=-1e-10),
        lambda lib, ps: lib.optim.Adagrad([ps[0] * 2]),
    ],
)
def test_argument_errors_match_pytorch(make: Callable[[Any, Any], Any]) -> None:
    torch = pytest.importorskip("torch")
    errors = []
    for lib in (engine, torch):
        with pytest.raises((ValueError, TypeError)) as info:
            make(lib, _params(lib))
        errors.append((type(info.value), str(info.value)))
    assert errors[0] == errors[1]


def test_learning_rate_message() -> None:
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -0\.1$"):
        engine.optim.AdamW(_params(engine), lr=-0.1)
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -0\.1$"):
        engine.optim.RMSprop(_params(engine), lr=-0.1)
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -0\.1$"):
        engine.optim.Adagrad(_params(engine), lr=-0.1)


@pytest.mark.torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, ps: lib.optim.AdamW(ps, amsgrad=True),
        lambda lib, ps: lib.optim.RMSprop(ps),
        lambda lib, ps: lib.optim.RMSprop(ps, momentum=0.9, centered=True),
        lambda lib, ps: lib.optim.Adagrad(ps, initial_accumulator_value=0.5),
    ],
)
def test_state_dict_layout_matches_pytorch(make: Callable[[Any, Any], Any]) -> None:
    """Before any step (Adagrad fills its state at construction), after a step with one
    parameter left without a gradient, and after a second step."""
    torch = pytest.importorskip("torch")
    ps = {lib: _params(lib) for lib in (engine, torch)}
    opts = {lib: make(lib, ps[lib]) for lib in (engine, torch)}

    def layout(lib: Any) -> Any:
        sd = opts[lib].state_dict()
        state = {
            i: {k: (tuple(v.shape), str(v.dtype)) for k, v in s.items()}
            for i, s in sd["state"].items()
        }
        return state, sd["param_groups"]

    def values(lib: Any) -> list[np.ndarray]:
        sd = opts[lib].state_dict()
        return [v.numpy() for s in sd["state"].values() for v in s.values()]

    assert layout(engine) == layout(torch)
    for step in range(2):
        for lib in (engine, torch):
            ps[lib][0].grad = lib.ones(2, 3) * (step + 1)
            opts[lib].step()
        assert layout(engine) == layout(torch)
        for e, t in zip(values(engine), values(torch), strict=True):
            # two steps on gradients of ones: no cancellation
            np.testing.assert_allclose(e, t, **close(2 * OPTIMIZER_STEP))


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: engine.optim.AdamW(ps, lr=0.1),
        lambda ps: engine.optim.RMSprop(ps, lr=0.1),
        lambda ps: engine.optim.Adagrad(ps, lr=0.1),
    ],
)
def test_zero_grad_and_version_counter(make: Callable[[Any], Any]) -> None:
    w = engine.tensor([1.0, -2.0, 3.0], requires_grad=True)
    opt = make([w])
    alias = w.detach()
    (w * w).sum().backward()
    before = w._version
    opt.step()
    assert w._version > before
    assert alias._version == w._version  # detached aliases see the in-place update
    assert not np.array_equal(alias.numpy(), [1.0, -2.0, 3.0])
    opt.zero_grad(set_to_none=False)
    assert w.grad is not None
    np.testing.assert_array_equal(w.grad.numpy(), [0.0, 0.0, 0.0])
    opt.zero_grad()
    assert w.grad is None
    opt.step()  # no gradient: nothing moves
    np.testing.assert_array_equal(w.detach().numpy(), alias.numpy())


@pytest.mark.torch
def test_version_counts_match_pytorch() -> None:
    """AdamW's decoupled decay is a separate in-place ``mul_`` in PyTorch: two bumps a step."""
    torch = pytest.importorskip("torch")
    for make in (
        lambda lib, ps: lib.optim.AdamW(ps),
        lambda lib, ps: lib.optim.AdamW(ps, weight_decay=0),
        lambda lib, ps: lib.optim.RMSprop(ps, momentum=0.5),
        lambda lib, ps: lib.optim.Adagrad(ps),
    ):
        counts = []
        for lib in (engine, torch):
            w = lib.ones(3, requires_grad=True)
            opt = make(lib, [w])
            w.grad = lib.ones(3)
            opt.step()
            opt.step()
            counts.append(w._version)
        assert counts[0] == counts[1]


def test_programs_import_these_optimizers_from_torch_optim() -> None:
    from server.program.imports import TORCH

    assert TORCH["torch.optim"] == engine.optim.__name__  # a program's torch.optim is this
    for name in ("AdamW", "RMSprop", "Adagrad"):
        assert hasattr(engine.optim, name)


@pytest.mark.usefixtures("fake_cupy")
def test_steps_on_fake_gpu_match_cpu() -> None:
    """On (fake) CuPy arrays the state stays on the device and the steps equal the CPU's."""
    for make in MAKERS.values():
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
            arrays = [v for v in opt.state_of(w).values() if not isinstance(v, int)]
            assert arrays
            assert all((type(a) is np.ndarray) == (dev == "cpu") for a in arrays)
            runs.append(w.detach().cpu().numpy())
        np.testing.assert_array_equal(runs[1], runs[0])
