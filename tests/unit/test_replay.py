"""Passes that run unwalked (recorder.replay): a long loop's passes that are not kept as they
happen skip the walk, and the one that turns out the latest is walked when it is exported, by
running its backward again on the numbers it had. Its graph must be the one an export at its
own backward would have drawn, to the bit, whatever the program did to its tensors since."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine as torch
from engine import nn
from recorder import passlog, record_passes

Program = Callable[[int], None]


def _latest(program: Program, steps: int, max_passes: int) -> tuple[dict[str, Any], Any]:
    with record_passes(max_passes, max_nodes=200) as log:
        program(steps)
    return log.graphs[-1], log


def _same_as_walked(program: Program, steps: int = 6) -> Any:
    """The latest pass with the earlier passes unwalked equals it with every pass exported at
    its own backward (walked as it ran); returns the first recording's log."""
    replayed, log = _latest(program, steps, max_passes=2)
    walked, eager = _latest(program, steps, max_passes=steps + 1)  # every pass kept
    assert eager.unwalked == 0
    assert replayed["pass_index"] == walked["pass_index"] == steps - 1
    assert replayed == walked  # values, gradients, the walk and its captions
    return log


def _matrix_steps(
    steps: int,
    seed: int,
    w_shape: tuple[int, int],
    x_shape: tuple[int, int],
    activation: str,
    lr: float,
    clear: Callable[[Any], Any] | None = None,
) -> Any:
    """``steps`` of plain gradient descent on ``activation(x @ w).sum()``; ``clear`` is given
    ``w.grad`` after each update (None: the gradients add up). Returns ``w``."""
    torch.manual_seed(seed)
    w = torch.randn(*w_shape, requires_grad=True)
    x = torch.randn(*x_shape)
    for _ in range(steps):
        getattr(x @ w, activation)().sum().backward()
        with torch.no_grad():
            w -= lr * w.grad
            if clear is not None:
                clear(w.grad)
    return w


def _fit(set_grads: str) -> Program:
    """The cubic fit of PyTorch's tutorial, its gradients cleared three ways."""

    def program(steps: int) -> None:
        torch.manual_seed(0)
        x = torch.linspace(-3.0, 3.0, 50)
        y = torch.sin(x)
        a, b, c, d = (torch.randn((), requires_grad=True) for _ in range(4))
        for _ in range(steps):
            loss = (a + b * x + c * x**2 + d * x**3 - y).pow(2).sum()
            loss.backward()
            with torch.no_grad():
                for p in (a, b, c, d):
                    if set_grads == "data":
                        p.data -= 1e-4 * p.grad  # through .data: no version bump
                    else:
                        p -= 1e-4 * p.grad
                    if set_grads == "zero_":
                        p.grad.zero_()  # the next pass sums into zeros
                    else:
                        p.grad = None

    return program


@pytest.mark.parametrize("set_grads", ["none", "zero_", "data"])
def test_a_loop_that_changes_its_leaves_in_place_is_drawn_as_it_was(set_grads: str) -> None:
    log = _same_as_walked(_fit(set_grads))
    assert log.unwalked == 5  # every pass after the first ran unwalked


def test_gradients_summed_over_passes_without_clearing_them() -> None:
    def program(steps: int) -> None:
        torch.manual_seed(1)
        w = torch.randn(3, requires_grad=True)
        x = torch.randn(4, 3)
        for _ in range(steps):
            ((x * w).tanh() * w).sum().backward()  # .grad keeps growing: the walk shows sums

    _same_as_walked(program)


def test_a_view_of_a_leaf_reads_the_values_the_leaf_had() -> None:
    """``W.t()`` is a view of W's array: the replay puts W's values back, and the view reads
    them (its version counter moved with W's: the check skips it)."""

    def program(steps: int) -> None:
        torch.manual_seed(2)
        W = torch.randn(4, 3, requires_grad=True)
        x = torch.randn(5, 3)
        for _ in range(steps):
            loss = (x @ W.t()).relu().pow(2).mean()
            loss.backward()
            with torch.no_grad():
                W -= 0.1 * W.grad
                W.grad = None

    _same_as_walked(program)


def test_a_module_trained_by_an_optimizer() -> None:
    def program(steps: int) -> None:
        torch.manual_seed(3)
        model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
        opt = torch.optim.Adam(model.parameters(), lr=0.05)
        X = torch.randn(16, 2)
        y = (X[:, :1] * X[:, 1:]).sign()
        for _ in range(steps):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(X), y)
            loss.backward()
            opt.step()

    _same_as_walked(program)


def test_two_leaves_sharing_one_array_are_put_back_in_order() -> None:
    """``b = a.detach().requires_grad_()`` is a second leaf over a's array: both are put back
    and restored, and the program's values are untouched by the export."""
    held: dict[str, Any] = {}

    def program(steps: int) -> None:
        a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a.detach().requires_grad_()
        for _ in range(steps):
            (a * b).sum().backward()
            with torch.no_grad():
                a -= 0.5  # b's values move too
            a.grad = b.grad = None
        held.update(a=a, b=b)

    _same_as_walked(program)
    with record_passes(2, max_nodes=200) as log:
        program(6)
    a, b = held["a"], held["b"]
    a_now = a._data.copy()
    assert log.graphs[-1]["walk"]  # replayed: both leaves' array put back, then restored
    assert np.array_equal(a._data, a_now) and b._data is a._data
    assert a.grad is None and b.grad is None


def test_the_export_leaves_the_programs_tensors_as_they_were() -> None:
    held: dict[str, Any] = {}

    def program(steps: int) -> None:
        w = _matrix_steps(steps, 5, (3, 3), (2, 3), "sigmoid", 0.1)
        held.update(w=w, grad=w.grad._data.copy(), value=w._data.copy(), version=w._version)

    with record_passes(2, max_nodes=200) as log:
        program(6)
    assert log.unwalked == 5
    assert log.graphs[-1]["walk"]  # the latest, replayed now
    w = held["w"]
    assert np.array_equal(w._data, held["value"]) and np.array_equal(w.grad._data, held["grad"])
    assert w._version == held["version"]
    assert w.grad_fn is None and w.requires_grad


def test_an_intermediate_changed_after_its_pass_is_drawn_without_a_walk() -> None:
    """The replay would read a value the pass never had: the version check fails, and the
    pass is drawn without its walk, and without its leaves' gradients (which only the replay
    could give), rather than with numbers it did not have."""

    def program(steps: int) -> None:
        w = torch.tensor([0.5, -1.0], requires_grad=True)
        for step in range(steps):
            h = (w * 2.0).exp()  # exp saves its output
            h.sum().backward()
            if step == steps - 1:
                h.data.mul_(3.0)  # its output changed in place, after the pass
                h.add_(0.0)  # (and its version counter moved)
            w.grad = None

    replayed, log = _latest(program, 4, max_passes=2)
    walked, _ = _latest(program, 4, max_passes=5)
    assert log.unwalked == 3
    assert replayed["walk"] == [] and walked["walk"] != []
    assert log.failures == [  # (the answer's notice: "The playground could not draw ...")
        "the backward walk of pass 4, nor its leaves' gradients: a tensor it read was changed "
        "in place after it ran"
    ]
    assert [n["id"] for n in replayed["nodes"]] == [n["id"] for n in walked["nodes"]]
    for ours, theirs in zip(replayed["nodes"], walked["nodes"], strict=True):
        if ours["kind"] == "param":  # (a leaf that requires grad)
            assert ours["grad"] is None and theirs["grad"] is not None
        else:  # what each node received, kept as the pass ran
            assert ours["grad"] == theirs["grad"]


def test_a_hook_makes_the_passes_after_it_run_walked() -> None:
    """A hook is the program's own code: a pass that ran one is never run again, and the
    recorder walks every pass after it as it runs."""
    calls: list[int] = []

    def program(steps: int) -> None:
        w = torch.tensor([1.0, 2.0], requires_grad=True)
        for step in range(steps):
            y = w * w
            if step >= 2:
                y.register_hook(lambda g: calls.append(1))
            y.sum().backward()
            w.grad = None

    _same_as_walked(program)
    calls.clear()
    _, log = _latest(program, 6, max_passes=2)
    assert log.unwalked == 1  # pass 1; pass 2 registered a hook (walked, and so the rest)
    assert len(calls) == 4  # the export ran no hook again


def test_a_custom_functions_backward_is_never_run_again() -> None:
    ran: list[int] = []

    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            ran.append(1)
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

    def program(steps: int) -> None:
        w = torch.tensor([0.5, 1.5], requires_grad=True)
        for _ in range(steps):
            Cube.apply(w).sum().backward()
            with torch.no_grad():
                w -= 0.1 * w.grad
            w.grad = None

    _same_as_walked(program)
    ran.clear()
    _, log = _latest(program, 6, max_passes=2)
    assert log.unwalked == 0 and len(ran) == 6  # each call of it: its pass is walked


def test_a_pass_walked_as_it_ran_is_drawn_with_its_views_as_they_were() -> None:
    """A pass that is not run again (a hook ran in it) is still exported with its leaves'
    arrays holding their values from then: ``W.t()`` shows W's values from that pass, not the
    optimizer's later ones."""

    def program(steps: int) -> None:
        torch.manual_seed(6)
        W = torch.randn(3, 2, requires_grad=True)
        x = torch.randn(4, 2)
        for _ in range(steps):
            h = x @ W.t()
            h.register_hook(lambda g: None)
            h.tanh().sum().backward()
            with torch.no_grad():
                W -= 0.5 * W.grad
            W.grad = None

    log = _same_as_walked(program)
    assert log.unwalked == 0  # each pass registered a hook: each was walked


def test_the_replay_warns_of_nothing() -> None:
    """An overflow the pass warned of as it ran is not warned of again when it is replayed."""

    def program(steps: int) -> None:
        w = torch.tensor([60.0, 1.0], requires_grad=True)
        for _ in range(steps):
            w.exp().pow(2).sum().backward()  # exp(60)^2 overflows float32: NumPy warns
            w.grad = None

    with np.errstate(over="ignore"), record_passes(2, max_nodes=200) as log:
        program(4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            assert log.graphs[-1]["walk"]


@pytest.mark.parametrize("rows", [10, 160])  # 480 bytes: copied; 80 KB: tested for zeros
@pytest.mark.parametrize("clear", ["zero_", "times_minus_zero", "halve"])
def test_a_weight_matrix_whose_gradient_is_cleared_in_place(clear: str, rows: int) -> None:
    """The gradient a pass sums into is kept for its replay: zeros (all bits zero) as a
    broadcast zero, anything else (-0.0 included: the sums' signs can differ) as a copy."""

    clears = {
        "zero_": lambda g: g.zero_(),
        "times_minus_zero": lambda g: g.mul_(-0.0),  # -0.0 where the gradient was positive
        "halve": lambda g: g.mul_(0.5),
    }
    _same_as_walked(
        lambda steps: _matrix_steps(steps, 7, (rows, 128), (6, rows), "relu", 1e-3, clears[clear])
    )


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
@pytest.mark.parametrize("size", [100, passlog.ZERO_TEST_BYTES // 4 + 1, 40_000])
def test_what_a_pass_keeps_of_the_gradient_it_sums_into(dtype: Any, size: int) -> None:
    """A gradient of all zero bits, big enough to test, is kept as a read-only broadcast zero;
    one that is not (one element -0.0, or the dtype's smallest subnormal), or small, as a copy
    that a later in-place change leaves alone."""
    zeros = np.zeros(size, dtype)
    big = zeros.nbytes >= passlog.ZERO_TEST_BYTES
    kept = passlog.kept(zeros)
    assert kept.shape == zeros.shape and kept.dtype == dtype and not kept.any()
    assert (kept.strides == (0,)) == big and (kept is passlog.kept(zeros.copy())) == big
    assert not np.signbit(kept).any()
    for odd in (-0.0, np.finfo(dtype).smallest_subnormal):
        g = zeros.copy()
        g[size // 2] = odd
        assert g.view(np.uint8).any()
        kept = passlog.kept(g)
        assert kept is not g and kept.strides != (0,)
        assert kept.tobytes() == g.tobytes()
        g.fill(3)
        assert kept.tobytes() != g.tobytes()
    matrix = np.zeros((size // 8, 8), dtype)  # by rows: zero bits whatever the shape
    assert passlog.kept(matrix).shape == matrix.shape
    assert (passlog.kept(matrix).strides == (0, 0)) == (matrix.nbytes >= passlog.ZERO_TEST_BYTES)


def test_hooks_registered_after_the_pass_are_not_run_by_its_replay() -> None:
    ran: list[str] = []
    held: dict[str, Any] = {}

    def program(steps: int) -> None:
        w = torch.tensor([1.0, -2.0], requires_grad=True)
        for _ in range(steps):
            h = (w * w).sin()
            h.sum().backward()
            with torch.no_grad():
                w -= 0.1 * w.grad
            w.grad = None
        held.update(h=h, w=w)

    with record_passes(2, max_nodes=200) as log:
        program(5)
        held["h"].register_hook(lambda g: ran.append("h"))
        held["w"].register_hook(lambda g: ran.append("w"))
        held["h"].retain_grad()
        torch.autograd.set_detect_anomaly(True)
    try:
        assert log.graphs[-1]["walk"]  # replayed, as the pass ran: no hook, no anomaly check
    finally:
        torch.autograd.set_detect_anomaly(False)
    assert ran == [] and held["h"].grad is None and held["w"].grad is None
    assert held["h"]._hooks is not None  # the program's hooks are back


def test_a_leaf_given_a_new_array_after_its_pass() -> None:
    """``p.data = ...`` gives a leaf a new array (of another shape, even): the pass read the old
    one, which its replay reads again."""

    def program(steps: int) -> None:
        w = torch.tensor([0.5, 1.5, -1.0], requires_grad=True)
        for step in range(steps):
            (w.exp() * w).sum().backward()
            with torch.no_grad():
                if step == steps - 1:
                    w.data = torch.zeros(5)  # after the last pass
                else:
                    w -= 0.1 * w.grad
            w.grad = None

    replayed, log = _latest(program, 5, max_passes=2)
    walked, _ = _latest(program, 5, max_passes=6)
    assert log.unwalked == 4 and replayed["walk"]
    assert replayed["walk"] == walked["walk"]


def test_a_backward_from_a_leaf_has_nothing_to_replay() -> None:
    """``w.backward()`` on a leaf: the pass has no node and no walk, and nothing is said of a
    walk it could not draw."""

    def program(steps: int) -> None:
        w = torch.tensor(2.0, requires_grad=True)
        for _ in range(steps):
            w.backward()

    graph, log = _latest(program, 6, max_passes=2)
    assert log.unwalked == 5 and graph["walk"] == [] and log.failures == []


def test_a_hook_registered_in_the_last_step_leaves_the_last_pass_walked() -> None:
    """A lesson that looks at a gradient on its last step only: that pass runs the hook, so it
    is walked as it runs (the passes before it ran unwalked), and it is drawn with its walk."""
    seen: list[Any] = []

    def program(steps: int) -> None:
        w = torch.tensor([0.3, -0.7], requires_grad=True)
        for step in range(steps):
            y = (w * w).tanh()
            if step == steps - 1:
                y.register_hook(lambda g: seen.append(g.tolist()))
            y.sum().backward()
            with torch.no_grad():
                w -= 0.1 * w.grad
            w.grad = None

    log = _same_as_walked(program)
    assert log.unwalked == 4 and log.failures == [] and len(seen) == 2  # (two recordings)
