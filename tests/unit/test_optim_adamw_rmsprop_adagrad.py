"""AdamW, RMSprop and Adagrad against PyTorch: trained parameters, single steps on identical
gradients, printed reprs, defaults, argument validation and ``state_dict`` layout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from tests.unit import optim_vs_torch as vs
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
    vs.assert_training_matches(MAKERS[name])


@pytest.mark.torch
@pytest.mark.parametrize("name", list(MAKERS))
def test_steps_on_identical_gradients_match_pytorch(name: str) -> None:
    vs.assert_steps_on_identical_gradients_match(MAKERS[name])


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
    vs.assert_repr_defaults_and_groups_match(make)


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
        lambda lib, ps: lib.optim.AdamW(ps, eps=None),
        lambda lib, ps: lib.optim.RMSprop(ps, eps=None),
        lambda lib, ps: lib.optim.Adagrad(ps, eps=None),
    ],
)
def test_argument_errors_match_pytorch(make: Callable[[Any, Any], Any]) -> None:
    vs.assert_argument_errors_match(make)


def test_learning_rate_message() -> None:
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -0\.1$"):
        engine.optim.AdamW(vs.params(engine), lr=-0.1)
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -0\.1$"):
        engine.optim.RMSprop(vs.params(engine), lr=-0.1)
    with pytest.raises(ValueError, match=r"^Invalid learning rate: -0\.1$"):
        engine.optim.Adagrad(vs.params(engine), lr=-0.1)


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
    parameter left without a gradient, and after a second step; the values too (two steps on
    gradients of ones: no cancellation)."""
    vs.assert_state_layout_matches(make, values_within=2)


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
    vs.assert_fake_gpu_matches_cpu(MAKERS.values())


@pytest.mark.parametrize(
    "make",
    [
        lambda ps: engine.optim.AdamW(ps, lr=0.1, betas=(0.3, 0.9), weight_decay=0.5),
        lambda ps: engine.optim.Adam(ps, lr=0.01, weight_decay=0.1, maximize=True),
        lambda ps: engine.optim.Adam(ps, lr=0.01),
    ],
)
def test_the_flat_step_of_a_group_is_the_step_of_each_parameter(
    make: Callable[[Any], Any],
) -> None:
    """Adam's step of a whole group on flat buffers gives the numbers, the state and the
    version counts of the step of each parameter in turn, bit for bit; and a group whose
    state was loaded (not the flat buffers' views) takes the step of each."""

    def train(flat: bool, load_at: int | None = None) -> tuple[list[np.ndarray], list[int]]:
        engine.manual_seed(0)
        ps = [engine.nn.Parameter(engine.randn(*s)) for s in [(5, 3), (3,), (4, 4), (7,)]]
        opt = make(ps)
        if not flat:
            opt._flat_step = lambda group: False
        rng = np.random.default_rng(1)
        for i in range(12):
            for p in ps:
                p.grad = engine.tensor(rng.standard_normal(p.shape).astype(np.float32))
            if i == load_at:
                opt.load_state_dict(opt.state_dict())
            opt.step()
        state = [np.array(opt.state[id(p)][k]) for p in ps for k in ("exp_avg", "exp_avg_sq")]
        return [p.detach().numpy() for p in ps] + state, [p._version for p in ps]

    each, versions = train(flat=False)
    for arrays, counts in (train(flat=True), train(flat=True, load_at=5)):
        assert counts == versions
        for ours, theirs in zip(arrays, each, strict=True):
            np.testing.assert_array_equal(ours, theirs)
