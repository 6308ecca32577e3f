"""The observers swapped in for a pass: each call of a result's per-node backward function
becomes a walk step (:mod:`server.program.values.observer`). A step is
``[node, grad_output, parents' grads before, after, writes or None]``.

Most results have one or two distinct parents and numbers for grads: their observers are bound
with ``functools.partial`` (cheap to make, one per result) and read grads without copying
(numbers are immutable). The general observer copies array grads, and for a repeated parent
(``err * err``: both contributions land in one ``grad``) sees each write to a parent's ``grad``
as it happens, through a ``__setattr__`` set on the class for the duration of the call.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from typing import Any

import numpy as np

from server.program.values.record import ValuePass

STEP_ATTRS = ("_backward", "backward_fn", "_backward_fn", "grad_fn", "_grad_fn")
#: what to put back after a pass: (instance dict, attribute, the program's own or None, ours)
Installed = list[tuple[dict[str, Any], str, Any, Any]]


def snap(v: Any) -> Any:
    """A copy that later in-place changes cannot reach (numbers are immutable)."""
    return v.copy() if type(v) is np.ndarray else v


def class_method(obj: Any, attr: str) -> Callable[..., Any] | None:
    """``obj.attr`` when the class defines it as a plain function (bound, no lookup hooks)."""
    for c in type(obj).__mro__:
        fn = c.__dict__.get(attr)
        if fn is not None:
            return types.MethodType(fn, obj) if isinstance(fn, types.FunctionType) else None
    return None


def observe_two(
    steps: list[Any],
    i: int,
    orig: Callable[..., Any],
    nd: dict[str, Any],
    d0: dict[str, Any],
    d1: dict[str, Any],
    *args: Any,
    **kwargs: Any,
) -> Any:
    """The observer of a result with two distinct parents and numbers for grads (the common
    case, kept lean: numbers are immutable, so reading them is a snapshot). Bound to one node
    with functools.partial (cheaper to make than a closure: detection makes one per result)."""
    entry = [i, nd.get("grad"), (d0.get("grad"), d1.get("grad")), None, None]
    steps.append(entry)
    try:
        return orig(*args, **kwargs)
    finally:
        entry[3] = (d0.get("grad"), d1.get("grad"))


def observe_one(
    steps: list[Any],
    i: int,
    orig: Callable[..., Any],
    nd: dict[str, Any],
    d0: dict[str, Any],
    *args: Any,
    **kwargs: Any,
) -> Any:
    """The observer of a result with one parent and numbers for grads."""
    entry = [i, nd.get("grad"), (d0.get("grad"),), None, None]
    steps.append(entry)
    try:
        return orig(*args, **kwargs)
    finally:
        entry[3] = (d0.get("grad"),)


def step_attr(d: dict[str, Any], obj: Any) -> str | None:
    """The per-node backward function's name, on a result's instance or its class."""
    for attr in STEP_ATTRS:
        if callable(d.get(attr)):
            return attr
    for attr in STEP_ATTRS:
        if class_method(obj, attr) is not None:
            return attr
    return None


def uninstall(installed: Installed) -> None:
    """Put the program's functions back (where the program did not replace ours itself)."""
    for d, attr, own, wrapper in installed:
        if d.get(attr) is not wrapper:
            continue  # the program replaced it itself: keep the program's choice
        if own is None:
            del d[attr]
        else:
            d[attr] = own


class _DupStep:
    """A step of a node with a repeated parent: its writes to the parents' ``grad``."""

    __slots__ = ("last", "slots", "writes")

    def __init__(self, slots: dict[int, int], last: list[Any]) -> None:
        self.slots = slots  # id(parent) -> index among the node's distinct parents
        self.last = last  # the latest known grad of each distinct parent
        self.writes: list[tuple[int, Any, Any]] = []  # (slot, old, new)


class GeneralObservers:
    """Observers for the results the lean ones do not fit (array grads, repeated parents)."""

    def __init__(self) -> None:
        self._dup_stack: list[_DupStep] = []
        self._dup_hooked: tuple[type, Any] | None = None

    def observer(
        self,
        record: ValuePass,
        i: int,
        orig: Callable[..., Any],
        node_dict: dict[str, Any],
        pdicts: list[dict[str, Any]],
    ) -> Callable[..., Any]:
        """The observer of result ``i`` (its dict, its parents' dicts), calling ``orig``."""
        steps = record.steps
        distinct = {id(d): k for k, d in enumerate(pdicts)}
        if len(distinct) == len(pdicts):

            def observed(*args: Any, **kwargs: Any) -> Any:
                entry = [
                    i,
                    snap(node_dict.get("grad")),
                    [snap(d.get("grad")) for d in pdicts],
                    None,
                    None,
                ]
                steps.append(entry)
                try:
                    return orig(*args, **kwargs)
                finally:
                    entry[3] = [snap(d.get("grad")) for d in pdicts]

            return observed
        # A repeated parent (err * err): its two contributions land in one grad, so each write
        # to a parent's grad is seen as it happens (a __setattr__ on the class, during the call).
        unique = list({id(d): d for d in pdicts}.values())
        objs = record.objs
        slots = {id(objs[j]): k for k, j in enumerate(dict.fromkeys(record.parents[i]))}
        kind = record.kind

        def observed_dup(*args: Any, **kwargs: Any) -> Any:
            before = [snap(d.get("grad")) for d in unique]
            entry = [i, snap(node_dict.get("grad")), before, None, None]
            steps.append(entry)
            step = _DupStep(slots, list(before))
            self._push_dup(kind, step)
            try:
                return orig(*args, **kwargs)
            finally:
                self._pop_dup()
                entry[3] = [snap(d.get("grad")) for d in unique]
                entry[4] = step.writes

        return observed_dup

    def _push_dup(self, kind: type, step: _DupStep) -> None:
        if not self._dup_stack:
            own = kind.__dict__.get("__setattr__")
            current: Any = kind.__setattr__  # object.__setattr__ or the program's own
            type.__setattr__(kind, "__setattr__", self._setattr_hook(current))
            self._dup_hooked = (kind, own)
        self._dup_stack.append(step)

    def _pop_dup(self) -> None:
        self._dup_stack.pop()
        if not self._dup_stack and self._dup_hooked is not None:
            kind, own = self._dup_hooked
            self._dup_hooked = None
            if own is None:
                type.__delattr__(kind, "__setattr__")
            else:
                type.__setattr__(kind, "__setattr__", own)

    def _setattr_hook(self, orig: Callable[[Any, str, Any], None]) -> Callable[..., None]:
        stack = self._dup_stack

        def __setattr__(obj: Any, name: str, value: Any) -> None:
            orig(obj, name, value)
            if name == "grad" and stack:
                step = stack[-1]
                slot = step.slots.get(id(obj))
                if slot is not None:
                    new = snap(value)
                    step.writes.append((slot, step.last[slot], new))
                    step.last[slot] = new

        return __setattr__
