"""Adadelta, Adamax, NAdam, RAdam and ASGD against PyTorch 2.13, step by step: trained
parameters, single steps on identical gradients, reprs, defaults and groups, argument errors,
state layout and version counts, ``load_state_dict``, closures, the fake GPU and schedules.

Every tolerance counts roundings by tests/tolerances.py's rules; each says how many and why.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import OPTIMIZER_STEP, close, magnitude
from tests.unit import optim_vs_torch as vs
from tests.unit.test_fake_gpu import cupy as fake_cupy  # noqa: F401  (a fixture: CuPy stand-in)

Fn = Callable[..., Any]


# ---- optimizers --------------------------------------------------------------------------------

OPTIMIZERS: dict[str, Fn] = {
    "adadelta": lambda lib, ps: lib.optim.Adadelta(ps),
    "adadelta_all": lambda lib, ps: lib.optim.Adadelta(
        ps, lr=0.5, rho=0.8, eps=1e-5, weight_decay=0.05, maximize=True
    ),
    "adamax": lambda lib, ps: lib.optim.Adamax(ps),
    "adamax_all": lambda lib, ps: lib.optim.Adamax(
        ps, lr=0.01, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1, maximize=True
    ),
    "nadam": lambda lib, ps: lib.optim.NAdam(ps),
    "nadam_wd": lambda lib, ps: lib.optim.NAdam(ps, lr=0.01, weight_decay=0.1, momentum_decay=0.01),
    "nadam_decoupled": lambda lib, ps: lib.optim.NAdam(
        ps, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True
    ),
    "radam": lambda lib, ps: lib.optim.RAdam(ps),
    "radam_wd": lambda lib, ps: lib.optim.RAdam(ps, lr=0.01, betas=(0.8, 0.9), weight_decay=0.1),
    "radam_decoupled": lambda lib, ps: lib.optim.RAdam(
        ps, lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, maximize=True
    ),
    "asgd": lambda lib, ps: lib.optim.ASGD(ps),
    "asgd_averaging": lambda lib, ps: lib.optim.ASGD(
        ps, lr=0.05, lambd=1e-3, alpha=0.5, t0=5, weight_decay=0.01
    ),
}


@pytest.mark.torch
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_training_matches_pytorch(name: str) -> None:
    """25 steps on a small classifier (the updates of one parameter add up to at most 0.33
    here, within the 2.5 that TRAINING_25_STEPS assumes)."""
    vs.assert_training_matches(OPTIMIZERS[name])


@pytest.mark.torch
@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_steps_on_identical_gradients_match_pytorch(name: str) -> None:
    """25 steps on the same gradients. A step of these optimizers has at most 25 roundings
    that may differ: Adadelta's two float32 square roots (MKL's, 2·MKL_SQRT) and four
    multiply-adds (weight decay, two addcmul, the update: UNFUSED each); NAdam's one root and
    three; Adamax, RAdam and ASGD fewer."""
    vs.assert_steps_on_identical_gradients_match(OPTIMIZERS[name])


OPTIMIZER_REPRS: list[Fn] = [
    lambda lib, ps: lib.optim.Adadelta(ps),
    lambda lib, ps: lib.optim.Adadelta(ps, 0.5, 0.8, 1e-5, 0.1, maximize=True),
    lambda lib, ps: lib.optim.Adamax(ps),
    lambda lib, ps: lib.optim.Adamax([{"params": ps[:1], "lr": 0.1}, {"params": ps[1:]}]),
    lambda lib, ps: lib.optim.NAdam(ps),
    lambda lib, ps: lib.optim.NAdam(ps, lr=0.1, momentum_decay=0.01, decoupled_weight_decay=True),
    lambda lib, ps: lib.optim.RAdam(ps),
    lambda lib, ps: lib.optim.RAdam(ps, betas=[0.5, 0.6], weight_decay=0.01),
    lambda lib, ps: lib.optim.ASGD(ps),
    lambda lib, ps: lib.optim.ASGD([{"params": ps[:1], "t0": 10}, {"params": ps[1:]}], lr=0.5),
    # the keyword-only switches (optimizer.Switches): kept in the groups as given
    lambda lib, ps: lib.optim.RAdam(ps, foreach=False, maximize=True, differentiable=False),
    lambda lib, ps: lib.optim.NAdam(ps, capturable=False, foreach=False),
    lambda lib, ps: lib.optim.Adamax(ps, 0.1, (0.8, 0.9), 1e-6, 0.0, False, capturable=False),
    lambda lib, ps: lib.optim.Adadelta(ps, differentiable=False, maximize=True),
]


@pytest.mark.torch
@pytest.mark.parametrize("make", OPTIMIZER_REPRS)
def test_optimizer_reprs_defaults_and_groups_match_pytorch(make: Fn) -> None:
    vs.assert_repr_defaults_and_groups_match(make)


@pytest.mark.torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, ps: lib.optim.Adadelta(ps, lr=-1.0),
        lambda lib, ps: lib.optim.Adadelta(ps, rho=1.5),
        lambda lib, ps: lib.optim.Adadelta(ps, eps=-1e-6),
        lambda lib, ps: lib.optim.Adadelta(ps, weight_decay=-0.1),
        lambda lib, ps: lib.optim.Adamax(ps, lr=-0.1),
        lambda lib, ps: lib.optim.Adamax(ps, eps=-1.0),
        lambda lib, ps: lib.optim.Adamax(ps, betas=(1.0, 0.9)),
        lambda lib, ps: lib.optim.Adamax(ps, betas=(0.9, -0.1)),
        lambda lib, ps: lib.optim.Adamax(ps, weight_decay=-1),
        lambda lib, ps: lib.optim.NAdam(ps, lr=-0.1),
        lambda lib, ps: lib.optim.NAdam(ps, betas=(0.9, 1.0)),
        lambda lib, ps: lib.optim.NAdam(ps, momentum_decay=-0.004),
        lambda lib, ps: lib.optim.NAdam(ps, eps=-1e-8),
        lambda lib, ps: lib.optim.RAdam(ps, lr=-0.1),
        lambda lib, ps: lib.optim.RAdam(ps, betas=(-0.1, 0.9)),
        lambda lib, ps: lib.optim.RAdam(ps, weight_decay=-0.1),
        lambda lib, ps: lib.optim.ASGD(ps, lr=-0.1),
        lambda lib, ps: lib.optim.ASGD(ps, weight_decay=-0.1),
        lambda lib, ps: lib.optim.ASGD([]),
        lambda lib, ps: lib.optim.NAdam(ps[0]),
        lambda lib, ps: lib.optim.RAdam([ps[0] * 2]),
        # None where a number is due: PyTorch's TypeError from its ``0.0 <= eps`` check
        lambda lib, ps: lib.optim.Adamax(ps, eps=None),
        lambda lib, ps: lib.optim.NAdam(ps, eps=None),
        lambda lib, ps: lib.optim.RAdam(ps, eps=None),
        lambda lib, ps: lib.optim.Adadelta(ps, eps=None),
        lambda lib, ps: lib.optim.ASGD(ps, lr=None),
        # keywords the signature does not take (optimizer.ParameterRule._options)
        lambda lib, ps: lib.optim.RAdam(ps, fused=True),
        lambda lib, ps: lib.optim.NAdam(ps, amsgrad=True),
        lambda lib, ps: lib.optim.Adamax(ps, decoupled_weight_decay=True),
        lambda lib, ps: lib.optim.Adadelta(ps, momentum=0.9),
        lambda lib, ps: lib.optim.Adadelta(ps, 1.0, 0.9, 1e-6, 0, None, False),
        lambda lib, ps: lib.optim.RAdam(ps, 1e-3, (0.9, 0.999), 1e-8, 0, False, None),
    ],
)
def test_optimizer_argument_errors_match_pytorch(make: Fn) -> None:
    vs.assert_argument_errors_match(make)


@pytest.mark.torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, ps: lib.optim.Adadelta(ps),
        lambda lib, ps: lib.optim.Adamax(ps),
        lambda lib, ps: lib.optim.NAdam(ps),
        lambda lib, ps: lib.optim.NAdam(ps, weight_decay=0.1, decoupled_weight_decay=True),
        lambda lib, ps: lib.optim.RAdam(ps, weight_decay=0.1, decoupled_weight_decay=True),
        lambda lib, ps: lib.optim.ASGD(ps),
    ],
)
def test_state_layout_and_version_counts_match_pytorch(make: Fn) -> None:
    """state_dict layout before and after steps with one parameter left without a gradient,
    and the version counter's in-place updates per step (NAdam's two addcdiv_, decoupled decay's
    mul_, ASGD's decay and update)."""
    vs.assert_state_layout_matches(make)


@pytest.mark.parametrize("name", list(OPTIMIZERS))
def test_load_state_dict_resumes_exactly(name: str) -> None:
    """Save after 4 steps, load into a fresh optimizer over a copy of the parameters, continue:
    bit for bit the run that never stopped (the same operations on the same numbers)."""
    engine.manual_seed(0)
    w = engine.randn(5, 3, requires_grad=True)
    grads = [engine.randn(5, 3) for _ in range(8)]
    opt = OPTIMIZERS[name](engine, [w])
    for g in grads[:4]:
        w.grad = g.clone()
        opt.step()
    saved = copy.deepcopy(opt.state_dict())
    w2 = w.detach().clone().requires_grad_(True)
    resumed = OPTIMIZERS[name](engine, [w2])
    resumed.load_state_dict(saved)
    assert repr(resumed) == repr(opt)
    for g in grads[4:]:
        for p, o in ((w, opt), (w2, resumed)):
            p.grad = g.clone()
            o.step()
    np.testing.assert_array_equal(w2.detach().numpy(), w.detach().numpy())
    for (k1, v1), (k2, v2) in zip(
        opt.state_dict()["state"][0].items(), resumed.state_dict()["state"][0].items(), strict=True
    ):
        assert k1 == k2
        np.testing.assert_array_equal(v1.numpy(), v2.numpy())


@pytest.mark.torch
def test_load_state_dict_errors_and_a_pytorch_state_dict() -> None:
    """PyTorch's messages for mismatched groups; and a state_dict saved by PyTorch's NAdam
    (its tensors turned into ours) continues as PyTorch continues (4 more steps: 4
    OPTIMIZER_STEPs of the array's magnitude)."""
    torch = pytest.importorskip("torch")
    for lib in (engine, torch):
        opt = lib.optim.NAdam(vs.params(lib))
        with pytest.raises(ValueError, match="different number of parameter groups"):
            opt.load_state_dict({"state": {}, "param_groups": []})
        with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
            opt.load_state_dict({"state": {}, "param_groups": [{"params": [0], "lr": 0.1}]})
    rng = np.random.default_rng(4)
    start = rng.normal(size=(4, 3)).astype(np.float32)
    grads = [rng.normal(size=(4, 3)).astype(np.float32) for _ in range(7)]
    tw = torch.tensor(start, requires_grad=True)
    topt = torch.optim.NAdam([tw], lr=0.05)
    for g in grads[:3]:
        tw.grad = torch.tensor(g)
        topt.step()
    saved = topt.state_dict()
    ours = {
        "state": {
            i: {k: engine.tensor(v.numpy()) for k, v in s.items()}
            for i, s in saved["state"].items()
        },
        "param_groups": copy.deepcopy(saved["param_groups"]),
    }
    ew = engine.tensor(tw.detach().numpy().copy(), requires_grad=True)
    eopt = engine.optim.NAdam([ew], lr=0.5)
    eopt.load_state_dict(ours)
    assert eopt.param_groups[0]["lr"] == 0.05
    for g in grads[3:]:
        tw.grad, ew.grad = torch.tensor(g), engine.tensor(g)
        topt.step()
        eopt.step()
    expected = tw.detach().numpy()
    np.testing.assert_allclose(
        ew.detach().numpy(), expected, **close(4 * OPTIMIZER_STEP, magnitude(expected))
    )


@pytest.mark.parametrize("name", ["nadam", "radam", "adadelta", "asgd"])
def test_step_takes_a_closure(name: str) -> None:
    """``step(closure)`` evaluates the closure with gradients enabled and returns its loss."""
    w = engine.tensor([1.0, -2.0], requires_grad=True)
    opt = OPTIMIZERS[name](engine, [w])

    def closure() -> Any:
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with engine.no_grad():
        loss = opt.step(closure)
    assert loss.item() == 5.0
    assert w.grad is not None and w.tolist() != [1.0, -2.0]


@pytest.mark.usefixtures("fake_cupy")
def test_steps_on_fake_gpu_match_cpu() -> None:
    vs.assert_fake_gpu_matches_cpu(OPTIMIZERS.values())


def test_rates_the_schedules_change_reach_the_new_optimizers() -> None:
    """lr_scheduler works on them as on the others (it edits ``param_groups``)."""
    w = engine.zeros(2, requires_grad=True)
    opt = engine.optim.RAdam([w], lr=0.1)
    sched = engine.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(3):
        w.grad = engine.ones(2)
        opt.step()
        sched.step()
    assert math.isclose(opt.param_groups[0]["lr"], 0.0125)
