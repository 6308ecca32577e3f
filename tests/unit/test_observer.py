"""The backward loop's observer interface (engine.core.PassObserver): the loop is the algorithm,
and whoever watches it (none, a walk, a light pass, the recorder's PassLog with its replay) sees
what ran without changing a bit of what it computes."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import numpy as np
import pytest

import engine as torch
from engine.core import Node, Walk, observing, run_backward
from recorder import PassWalk, record_passes


class Watcher:
    """An observer that walks every pass (or lets each run light) and remembers what it saw."""

    def __init__(self, light: bool) -> None:
        self.lets_run_light = light
        self.walks: list[tuple[Any, PassWalk, bool]] = []
        self.light_passes: list[tuple[Any, dict[int, Any], dict[int, Any] | None, Any]] = []

    def light(self) -> bool:
        return self.lets_run_light

    def walk(self, accumulate: bool, grad_call: bool, graphed: bool) -> PassWalk:
        return PassWalk(accumulate, grad_call, graphed)

    def walked(self, root: Any, walk: Walk, replayable: bool) -> None:
        assert isinstance(walk, PassWalk)
        self.walks.append((root, walk, replayable))

    def ran_light(
        self,
        root: Any,
        seed: Any,
        node_grads: dict[int, Any],
        leaves: dict[int, Any] | None,
        before: dict[int, Any] | None,
    ) -> None:
        self.light_passes.append((root, node_grads, leaves, before))

    def kept(self, array: Any) -> Any:
        return array.copy()


def _mlp_steps(steps: int = 3) -> dict[str, np.ndarray]:
    """A small MLP trained a few steps (broadcast bias, a shared weight, gradients summed over
    two backward calls per step): every parameter's final value and gradient."""
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    x = torch.randn(5, 3)
    y = torch.randn(5, 1)
    for _ in range(steps):
        opt.zero_grad()
        ((model(x) - y) ** 2).mean().backward()
        (model(x * 2).sum() * 0.01).backward()  # summed into the same .grad
        opt.step()
    return {
        f"{name}{part}": (p.grad if part == ".grad" else p).detach().numpy().copy()
        for name, p in model.named_parameters()
        for part in ("", ".grad")
    }


def _hooked() -> dict[str, np.ndarray]:
    """A tensor hook that scales a gradient, and autograd.grad of an intermediate."""
    w = torch.tensor([1.5, -2.0, 0.5], requires_grad=True)
    h = w * w
    h.register_hook(lambda g: g * 3)
    out = (h.exp() * w).sum()
    (gh,) = torch.autograd.grad(out, [h], retain_graph=True)
    out.backward()
    return {"w.grad": w.grad.numpy().copy(), "gh": gh.numpy().copy()}


PROGRAMS: dict[str, Callable[[], dict[str, np.ndarray]]] = {"mlp": _mlp_steps, "hooks": _hooked}


@contextmanager
def _watched(kind: str) -> Iterator[Any]:
    if kind == "none":
        with nullcontext() as nothing:
            yield nothing
    elif kind == "recorder":
        with record_passes(2, max_nodes=200) as log:  # the first pass walked, the rest light
            yield log
    else:
        with observing(Watcher(light=kind == "light")) as watcher:
            yield watcher


@pytest.mark.parametrize("program", sorted(PROGRAMS))
@pytest.mark.parametrize("kind", ["walk", "light", "recorder"])
def test_watching_changes_no_bit_of_the_results(program: str, kind: str) -> None:
    bare = PROGRAMS[program]()
    with _watched(kind) as watcher:
        watched = PROGRAMS[program]()
    assert bare.keys() == watched.keys()
    for name, value in bare.items():
        assert value.tobytes() == watched[name].tobytes(), name
    if kind == "recorder":
        assert watcher.count > 0 and not watcher.failures and watcher.graphs


def test_a_walk_sees_every_node_latest_first_and_what_each_sent() -> None:
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    b = torch.tensor(0.5, requires_grad=True)  # broadcast into x's shape
    with observing(Watcher(light=False)) as watcher:
        loss = ((x * x + b).tanh()).sum()
        loss.backward()
    ((root, walk, replayable),) = watcher.walks
    assert root is loss and replayable
    seqs = [step.node.seq for step in walk.steps]
    assert seqs == sorted(seqs, reverse=True)
    assert [step.node.name() for step in walk.steps] == [
        "SumBackward0",
        "TanhBackward0",
        "AddBackward0",
        "MulBackward0",
    ]
    # what reached the leaves is what they hold: b's contribution was summed to its shape
    sent_to = {id(x): [], id(b): []}  # type: dict[int, list[Any]]
    for step in walk.steps:
        for _i, receiver, gi, _total in step.contributions:
            if id(receiver) in sent_to:
                sent_to[id(receiver)].append(gi)
    assert np.array_equal(sum(sent_to[id(x)]), x.grad.numpy())
    assert np.shape(sent_to[id(b)][0]) == () and np.array_equal(sent_to[id(b)][0], b.grad.numpy())


def test_a_light_pass_gives_each_nodes_gradient_and_the_leaves() -> None:
    x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
    c = torch.tensor([2.0, 2.0, 2.0])  # a constant the graph draws
    with observing(Watcher(light=True)) as watcher:
        y = x * c
        z = y.relu().sum()
        z.backward()
    assert not watcher.walks
    ((root, node_grads, leaves, before),) = watcher.light_passes
    assert root is z and before == {}  # x had no .grad to sum into
    nodes: list[Node] = [z.grad_fn, z.grad_fn.inputs[0].grad_fn, y.grad_fn]
    assert {id(n) for n in nodes} == set(node_grads)
    assert np.array_equal(node_grads[id(y.grad_fn)], [1.0, 0.0, 1.0])
    assert leaves is not None and set(leaves) == {id(x), id(c)}


def test_the_loop_runs_unwatched_and_no_observer_outlives_its_block() -> None:
    x = torch.tensor([3.0], requires_grad=True)
    with observing(Watcher(light=False)) as watcher:
        pass
    (x * x).sum().backward()
    assert not watcher.walks and x.grad.item() == 6.0
    result = run_backward([(x * x).sum()], [np.ones((), np.float32)], False, inputs=[x])
    assert result[id(x)].item() == 6.0
