"""The latest pass of a long loop, exported as it was (recorder.passlog.PassLog's ``replay``).

A loop of 2,000 backward passes shows its first passes and its latest; which pass is the latest
is known only when the program ends, and by then an optimizer has changed the leaves in place.
So each pass that is not kept as it happens keeps copies of its leaves (the freeze), and the
latest is exported at the end, with its leaves' arrays holding their values from then for the
while (:func:`export_as_it_was`): what the graph shows of them, and of views of them (``W.t()``
reads W's array), is what the pass had.

Most such passes run unwalked (the backward loop does not record what each node sent): the
walk of the latest is made here, by running its backward again on those numbers:

- its nodes are un-freed, and their version checks skip the leaves (their counters moved with
  the changes that are undone for the while) and views of them (which share their counters);
- its leaves' ``.grad`` are, for the while, copies of what the pass summed into (None, or the
  gradient an earlier pass left), so the walk shows the same sums;
- the same loop (engine.core.run_backward) runs with a walk; every ``.grad`` is put back.

The same rules on the same arrays in the same order give the same numbers, to the bit. A node
whose other inputs changed since (an in-place change the version counters saw) fails its check,
and the pass is drawn without its walk, never with numbers it did not have. A pass whose
backward ran the program's own code (a hook, a custom Function's backward) is never run again:
the recorder walks such passes as they run.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from engine import core
from engine.core import Node, Walk, edge, observing, run_backward
from recorder.graph import reachable
from recorder.passlog import PassWalk, WalkStep


def export_as_it_was(
    export: Callable[..., dict[str, Any]],
    root: Any,
    steps: list[WalkStep] | None,
    node_grads: dict[int, Any],
    frozen: dict[int, Any],
    again: tuple[Any, list[tuple[Any, Any]], list[tuple[Any, Any]]] | None,
) -> dict[str, Any]:
    """``export(root, steps, node_grads, frozen)`` with the leaves' arrays holding their frozen
    values; a pass that ran unwalked (``again``: its seed, its leaves with the gradients they
    had before it, and its leaves with the arrays they had) is walked again first."""
    fn = getattr(root, "grad_fn", None)
    if fn is None:
        return export(root, steps, node_grads, frozen)
    nodes = reachable(fn)
    if again is not None:  # the very arrays the pass read
        arrays = [(array, frozen[id(leaf)][0]) for leaf, array in again[2]]
    else:  # (a walked pass: its leaves' arrays now, where they are still of its shape)
        arrays = []
        for n in nodes:
            for x in n.inputs:
                copies = frozen.get(id(x))
                if copies is not None:
                    arrays.append((x._data, copies[0]))
    with _put_back(arrays):
        if steps is None and again is not None:
            walked = _walk_again(root, nodes, frozen, *again)
            if walked is not None:
                steps, node_grads = walked
        return export(root, steps, node_grads, frozen)


@contextmanager
def _put_back(arrays: list[tuple[Any, Any]]) -> Iterator[None]:
    """Each array holds the values given for it inside the block, and its own after."""
    undo: list[tuple[Any, Any]] = []
    put: set[int] = set()
    try:
        for array, then in arrays:
            if id(array) in put or not getattr(getattr(array, "flags", None), "writeable", True):
                continue  # (an array NumPy will not write into has not changed)
            if array.shape != then.shape or array.dtype != then.dtype:
                continue  # (a leaf given a new array since: its old one is what the pass read)
            put.add(id(array))
            undo.append((array, array.copy()))
            array[...] = then
        yield
    finally:
        for array, now in reversed(undo):  # (two leaves may share one array)
            array[...] = now


class _Capture:
    """The replay's observer: walks the pass, runs none unwalked, keeps the walk."""

    def __init__(self) -> None:
        self.walk_made: tuple[list[WalkStep], dict[int, Any]] | None = None

    def light(self) -> bool:
        return False

    def walk(self, accumulate: bool, grad_call: bool, graphed: bool) -> PassWalk:
        return PassWalk(accumulate, grad_call, graphed)

    def walked(self, root: Any, walk: Walk, replayable: bool) -> None:
        assert isinstance(walk, PassWalk)  # (the walk this capture made)
        self.walk_made = (walk.steps, walk.node_grads)

    def ran_light(self, *args: Any) -> None:
        raise AssertionError("a replay walks its pass")

    def kept(self, array: Any) -> Any:
        return array.copy()


def _walk_again(
    root: Any,
    nodes: list[Node],
    frozen: dict[int, Any],
    seed: Any,
    grads: list[tuple[Any, Any]],
    had: list[tuple[Any, Any]],
) -> tuple[list[WalkStep], dict[int, Any]] | None:
    """The walk (steps, node gradients) of the pass from ``root`` seeded with ``seed``, run
    again (its leaves' arrays put back by the caller) with its leaves holding the gradients
    they had before it (``grads``: (leaf, array or None)) and the arrays they had then (``had``:
    a leaf given a new array since, ``p.data = ...``, has its old one back for the while); the
    gradients they have after it go into ``frozen`` (the pass froze their values only). None
    when the version checks find an input changed since (the leaves are then drawn without
    gradients: the numbers the pass gave them are not known)."""
    # the pass's leaves (frozen: the arrays they had are put back, or were left alone when a
    # leaf was given a new one), and their views' version counters (W.t() shares W's)
    held = set(frozen)
    tensors = _tensors(nodes)
    groups = {id(g) for t in tensors if id(t) in held and (g := t._vgroup)}
    states = [(n, n.freed, n.versions) for n in nodes]
    kept = [(leaf, leaf.grad) for leaf, _ in grads]
    swapped = [(leaf, leaf._data) for leaf, array in had if leaf._data is not array]
    # hooks registered since the pass ran (it ran none: it would not be replayed) stay unrun
    hooked = [t for t in tensors if t._hooks is not None]
    hooks = [(t, t._hooks) for t in hooked]
    anomaly = core.ANOMALY.enabled  # (turned on since: the pass ran without its checks)
    capture = _Capture()
    try:
        core.ANOMALY.enabled = False
        for t in hooked:
            t._hooks = None
        for leaf, array in had:
            leaf._data = array
        for leaf, then in grads:
            leaf.grad = None if then is None else core._TensorType._wrap(then.copy())
        for n in nodes:
            n.freed = False
            if n.versions is not None:
                n.versions = [
                    None if v is not None and _undone(x, n.seq, held, groups) else v
                    for x, v in zip(n.inputs, n.versions, strict=True)
                ]
        # (what the pass warned of, it warned of as it ran: its replay says nothing)
        with observing(capture), warnings.catch_warnings(), np.errstate(all="ignore"):  # type: ignore[arg-type]
            warnings.simplefilter("ignore")
            run_backward((root,), (seed,), True)
        for leaf, _ in grads:  # (arrays this replay made: no one else holds them)
            value, _ = frozen[id(leaf)]
            frozen[id(leaf)] = (value, leaf.grad._data if leaf.grad is not None else None)
    except Exception:
        return None
    finally:
        for n, freed, versions in states:
            n.freed, n.versions = freed, versions
        for leaf, grad in kept:
            leaf.grad = grad
        for t, h in hooks:
            t._hooks = h
        for leaf, data in swapped:
            leaf._data = data
        core.ANOMALY.enabled = anomaly
    return capture.walk_made


def _tensors(nodes: list[Node]) -> list[Any]:
    """The tensors a backward through ``nodes`` could run hooks of: their outputs and inputs."""
    found = {}
    for n in nodes:
        out = n.out() if n.out is not None else None
        if out is not None:
            found[id(out)] = out
        for x in n.inputs:
            if getattr(x, "_data", None) is not None:
                found[id(x)] = x
    return list(found.values())


def _undone(x: Any, seq: int, held: set[int], groups: set[int]) -> bool:
    """Whether input ``x`` reads an array whose values are put back: a leaf's, or a view's of
    one (``W.t()``, which shares the leaf's version counter: any change through it changed the
    leaf's array, which is put back whole)."""
    if getattr(x, "_data", None) is None:
        return False
    if edge(x, seq) is None:
        return id(x) in held
    group = getattr(x, "_vgroup", None)
    return group is not None and id(group) in groups
