"""Passes exported by reusing the structure of the pass before (recorder.pass_export) are the
graphs a whole export draws, number for number and caption for caption; a pass that differs in
anything a label or a caption is made from is exported whole."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine as torch
from engine import nn
from engine.core import observing as recording
from recorder.graph import export, freeze_leaves
from recorder.pass_export import PassExporter
from recorder.passlog import PassLog


def _record(program: Callable[[], None], reuse: bool, max_passes: int = 50) -> list[Any]:
    """The graphs of every pass the program runs (each exported at its own backward)."""
    exporter = PassExporter(200) if reuse else (lambda *a: export(*a, max_nodes=200))
    log = PassLog(
        max_passes, exporter, lambda root, steps, grads: freeze_leaves(root, steps, 200, grads)
    )
    with recording(log):
        program()
    assert not log.failures
    if reuse:
        _record.hits = exporter.hits  # type: ignore[attr-defined, union-attr]
    return log.graphs


def _same_both_ways(program: Callable[[], None], hits: int) -> list[Any]:
    whole = _record(program, reuse=False)
    reused = _record(program, reuse=True)
    assert reused == whole
    assert _record.hits >= hits  # type: ignore[attr-defined]
    return reused


def test_a_training_loop_reuses_its_structure_and_draws_the_same_graphs() -> None:
    def program() -> None:
        torch.manual_seed(0)
        model = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
        opt = torch.optim.Adam(model.parameters(), lr=0.05)
        X = torch.tensor([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
        y = torch.tensor([[0.0], [1.0], [1.0], [0.0]])
        for _ in range(12):
            loss = nn.functional.mse_loss(model(X), y)
            opt.zero_grad()
            loss.backward()
            opt.step()

    graphs = _same_both_ways(program, hits=11)
    assert len(graphs) == 12
    roots = [next(n for n in g["nodes"] if n["id"] == g["root"]) for g in graphs]
    assert roots[3]["value"] != roots[4]["value"]  # the numbers move, the structure does not


def test_what_changes_a_label_or_a_caption_is_a_new_structure() -> None:
    def program() -> None:
        torch.manual_seed(1)
        w = torch.randn(3, requires_grad=True)
        for step in range(8):
            n = 4 if step < 5 else 2  # the last batches are smaller: other shapes
            x = torch.randn(n, 3)
            scale = torch.tensor(1.0 if step < 3 else 2.0)  # unnamed: its value is its label
            y = (x * w).sum(dim=1) * scale
            if step == 6:
                y._name = "y"  # a name the program gives a tensor (the sandbox's)
            loss = (y**2 if step != 7 else y**3).mean()  # another exponent: another caption
            loss.backward()
            with torch.no_grad():
                w -= 0.01 * w.grad
            w.grad = None

    graphs = _same_both_ways(program, hits=3)  # passes 1, 2 and 4 are like the one before
    labels = [{n["label"] for n in g["nodes"]} for g in graphs]
    assert "1" in labels[2] and "2" in labels[3]
    assert "y" in labels[6]


def test_a_graph_cut_by_the_drawing_budget_is_exported_whole() -> None:
    def program() -> None:
        x = torch.ones(2, requires_grad=True)
        for _ in range(3):
            y = x
            for _ in range(150):
                y = y * 1.01
            y.sum().backward()

    whole = _record(program, reuse=False)
    reused = _record(program, reuse=True)
    assert reused == whole and "truncated" in reused[0]
    assert _record.hits == 0  # type: ignore[attr-defined]


@pytest.mark.parametrize("accumulate", [False, True])
def test_accumulated_gradients_keep_their_captions(accumulate: bool) -> None:
    def program() -> None:
        a = torch.tensor(2.0, requires_grad=True)
        a._name = "a"  # (unnamed, its label would be its value, new every pass)
        for step in range(4):
            b = a * a + a * 3.0  # a receives from two places: += in the captions
            b.backward()
            if not accumulate:
                a.grad = None
            with torch.no_grad():
                a += 0.1 * step

    graphs = _same_both_ways(program, hits=3)
    formulas = [step["formula"] for step in graphs[-1]["walk"]]
    assert any("+=" in f for f in formulas)


def _linear_sgd(seed: int, steps: int, step: Callable[[Any, Any, Any], None]) -> Callable[[], None]:
    """A program: nn.Linear(3, 1) trained by SGD on 4 random rows, ``step(model, opt, x)``
    being one step."""

    def program() -> None:
        torch.manual_seed(seed)
        model = nn.Linear(3, 1)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        x = torch.randn(4, 3)
        for _ in range(steps):
            step(model, opt, x)

    return program


def _kept_and_whole(program: Callable[[], None]) -> tuple[list[Any], list[Any]]:
    """The program's graphs kept as a long loop keeps them (pass 0, then the latest, exported
    after the program has gone on), and each exported at its own backward."""
    return _record(program, reuse=True, max_passes=2), _record(program, reuse=False)


class _ScaleInPlace(torch.autograd.Function):
    """A Function whose backward writes into the gradient it receives (allowed, if unusual)."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2.0

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        grad.mul_(2.0)
        return grad


def test_the_latest_pass_keeps_its_numbers_when_the_program_writes_into_gradients() -> None:
    """The walk keeps the arrays only the backward reads as they are, and copies those the
    program may change later: zero_grad(set_to_none=False) zeroes .grad in place after the
    last pass; a custom backward and a hook write into what they receive."""

    def step(model: Any, opt: Any, x: Any) -> None:
        h = _ScaleInPlace.apply(model(x))
        h.register_hook(lambda g: g.mul_(0.25))
        loss = (h**2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=False)

    kept, whole = _kept_and_whole(_linear_sgd(2, 5, step))
    assert kept[0] == whole[0] and kept[-1] == whole[-1]
    for graph in (kept[0], kept[-1]):
        by_id = {n["id"]: n for n in graph["nodes"]}
        (square,) = [s for s in graph["walk"] if by_id[s["node"]]["op"] == "pow"]
        (sent,) = square["contributions"]
        h = np.array(by_id[sent["to"]]["value"])
        # ∂L/∂h of L = mean(h²) over 4 rows, as sent: before the hook and the custom
        # backward wrote into it (after both, it would read h / 4)
        np.testing.assert_allclose(sent["grad"], 2 * h / 4, rtol=1e-6)


def test_a_leaf_gradient_the_walk_holds_is_not_the_one_the_program_changes() -> None:
    """A leaf's gradient is kept in the walk uncopied (only the accumulation reads it), so a
    leaf whose .grad is new in this pass gets a copy: clip_grad_norm_ scales .grad in place
    after the backward, and the latest pass, exported after that, still shows the gradient as
    it was sent."""

    def step(model: Any, opt: Any, x: Any) -> None:
        opt.zero_grad()  # .grad is None: the backward makes it
        loss = (model(x) ** 2).mean()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1e-3)
        opt.step()

    kept, whole = _kept_and_whole(_linear_sgd(3, 4, step))
    assert kept[-1] == whole[-1]
    by_id = {n["id"]: n for n in whole[-1]["nodes"]}
    sent = [
        c["grad"]
        for step in kept[-1]["walk"]
        for c in step["contributions"]
        if by_id[c["to"]]["label"] == "Linear.weight"
    ]
    assert sent, "the weight's contribution is in the walk"
    # as sent, the gradient's norm is far above the clip (after clipping it would be 1e-3)
    assert float(np.linalg.norm(np.array(sent[0], dtype=float))) > 1e-2
