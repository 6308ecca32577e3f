"""Recording passes (recorder.passlog.PassLog): the first passes exported as they run, later ones
kept only as their walk and frozen leaves, the latest exported once at the end, exactly as an
export at its own time would have drawn it."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine as torch
from engine import nn
from engine.core import observing as recording
from recorder import record_passes
from recorder.graph import export, freeze_leaves
from recorder.passlog import PassLog


def _train(steps: int, max_passes: int) -> tuple[list[dict[str, Any]], PassLog]:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
    X = torch.randn(5, 3)
    y = torch.randn(5, 1)
    with record_passes(max_passes, max_nodes=200) as log:
        for _ in range(steps):
            loss = nn.functional.mse_loss(model(X), y)
            opt.zero_grad()
            loss.backward()
            opt.step()  # changes the leaves in place after each pass
    return log.graphs, log


def test_the_latest_pass_is_drawn_as_it_was_at_its_own_backward() -> None:
    kept, log = _train(12, max_passes=4)  # passes 0, 1, 2 and the latest (11)
    everything, _ = _train(12, max_passes=12)  # each exported at its own backward
    assert log.count == 12
    assert [g["pass_index"] for g in kept] == [0, 1, 2, 11]
    assert kept[-1] == everything[-1]  # values, gradients, walk: all as they were
    assert kept[:3] == everything[:3]
    assert log.export_s > 0 and log.freeze_s > 0


def test_leaves_read_off_the_walk_are_those_the_graph_walk_finds() -> None:
    torch.manual_seed(1)
    w = torch.randn(3, 2, requires_grad=True)
    b = torch.zeros(2, requires_grad=True)
    x = torch.randn(4, 3)
    log = PassLog(1, export, lambda root, steps, grads: {})
    captured: list[Any] = []

    def keep(root: Any, steps: Any, node_grads: Any, grads: Any = None) -> None:
        captured.append((root, steps))

    log.record = keep  # type: ignore[method-assign]
    with recording(log):
        loss = ((x @ w + b).relu() * 2.0).sum()
        loss.backward()
    root, steps = captured[0]
    from_walk = freeze_leaves(root, steps, max_nodes=100)
    walked = freeze_leaves(root, None, max_nodes=100)
    assert from_walk.keys() == walked.keys() == {id(w), id(b), id(x)}
    for key, (value, grad) in walked.items():
        assert np.array_equal(from_walk[key][0], value)
        assert (grad is None) == (from_walk[key][1] is None)
    w_value, _ = from_walk[id(w)]
    assert w_value is not w._data  # a copy: the optimizer may change w in place
    with torch.no_grad():
        w -= 1.0
    assert not np.array_equal(w_value, w._data)


def test_a_walk_that_misses_part_of_the_graph_falls_back_to_walking_it() -> None:
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * 3.0).sum()
    steps: list[Any] = []  # no walk at all: the graph is walked
    frozen = freeze_leaves(loss, steps, max_nodes=100)
    assert set(frozen) == {id(w)}
    partial = [type("Step", (), {"node": loss.grad_fn})()]  # the root's step only
    assert set(freeze_leaves(loss, partial, max_nodes=100)) == {id(w)}


def test_big_passes_are_kept_until_their_nodes_reach_the_budget_then_only_the_latest() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    X, y = torch.randn(5, 3), torch.randn(5, 1)

    def run(max_kept_nodes: int | None) -> tuple[list[dict[str, Any]], PassLog]:
        with record_passes(20, max_nodes=200, max_kept_nodes=max_kept_nodes) as log:
            for _ in range(10):
                model.zero_grad()
                nn.functional.mse_loss(model(X), y).backward()
        return log.graphs, log

    unbounded, _ = run(None)
    size = len(unbounded[0]["nodes"])
    assert [g["pass_index"] for g in unbounded] == list(range(10))
    kept, log = run(2 * size + 1)  # the first three passes reach it; then only the latest
    assert log.count == 10
    assert [g["pass_index"] for g in kept] == [0, 1, 2, 9]
    assert log.kept_nodes == 3 * size
    assert [len(g["nodes"]) for g in kept] == [size] * 4


@pytest.mark.parametrize("set_to_none", [True, False])
def test_a_frozen_gradient_is_the_walks_array_never_the_live_grad(set_to_none: bool) -> None:
    """The gradients a freeze keeps may be arrays the walk holds (equal to .grad after the
    pass, to the bit) instead of copies: never .grad's own array, which the program changes
    (zero_grad, the optimizer), whether the pass made .grad or added into it."""
    torch.manual_seed(4)
    w = torch.randn(3, 2, requires_grad=True)
    x = torch.randn(4, 3)
    log = PassLog(1, export, lambda root, steps, grads: {})
    captured: list[Any] = []

    def keep(root: Any, steps: Any, node_grads: Any, grads: Any = None) -> None:
        captured.append((root, steps, grads))

    log.record = keep  # type: ignore[method-assign]
    opt = torch.optim.SGD([w], lr=0.1)
    with recording(log):
        for _ in range(2):
            opt.zero_grad(set_to_none=set_to_none)
            (x @ w).tanh().sum().backward()
            root, steps, grads = captured[-1]
            assert id(w) in grads  # the walk holds an array equal to w.grad
            _, grad = freeze_leaves(root, steps, max_nodes=100, grads=grads)[id(w)]
            assert grad is not w.grad._data
            assert np.array_equal(grad, w.grad._data)
            before = w.grad._data.copy()
            opt.step()
            opt.zero_grad(set_to_none=False)  # writes zeros into .grad's array
            assert np.array_equal(grad, before)
