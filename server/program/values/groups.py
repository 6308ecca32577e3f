"""Groups for a program's own classes: the Values one call of a ``Neuron``, a ``Layer`` or an
``MLP`` made collapse into one box, as an ``nn.Module`` call's nodes do (recorder/graph.py's
``modules``).

Every class the program defines that calls itself (``__call__`` or ``forward``) and is not the
Value class gets a thin wrapper (:meth:`CallLog.wrap`): each call is logged with its instance,
its arguments and what it returned, and the call it ran inside. Nothing else runs during the
program. When a pass is exported, a call's group is every node the call made: the ancestors of
what it returned that are not ancestors of what it was given (its inputs come from outside; the
Values it created, a neuron's sums and its tanh, and the numbers it wrapped, are its own). A node
belongs to the innermost call whose group holds it. A parameter (``w``, ``b``) used by one call
only is left to the page, which puts it in that call's box (static/src/graph/modules.ts), as it does a
``Linear``'s weight; one shared by several calls stays outside them, with an edge into each.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Callable, Iterator
from typing import Any

from server.program.values.names import looks_like_value

#: attributes whose call is a "module call" of a program's class
CALL_METHODS = ("__call__", "forward")
#: calls logged between two backward() calls, at most (a long loop without backward drops the
#: rest: groups are a bonus, never a cost the program pays without bound)
MAX_CALLS = 20_000
#: how deep a call's arguments and result are searched for Values (lists of lists ...)
MAX_NESTING = 4

Entry = list[Any]  # [instance, args, result or None while it runs, the entry it ran inside]


class CallLog:
    """Calls of the program's own classes, logged since the last backward()."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []
        self._open: list[Entry] = []

    def wrap(self, cls: type) -> None:
        """Wrap ``cls``'s own ``__call__`` / ``forward`` (not inherited ones: a subclass's
        call of its base's method is logged once, by the base's wrapper)."""
        for attr in CALL_METHODS:
            fn = cls.__dict__.get(attr)
            if isinstance(fn, types.FunctionType):
                type.__setattr__(cls, attr, self._wrapped(fn))

    def _wrapped(self, fn: types.FunctionType) -> Callable[..., Any]:
        log = self

        @functools.wraps(fn)
        def call(self: Any, *args: Any, **kwargs: Any) -> Any:
            entries = log.entries
            if len(entries) >= MAX_CALLS:
                return fn(self, *args, **kwargs)
            opened = log._open
            entry: Entry = [self, args, None, opened[-1] if opened else None]
            opened.append(entry)
            try:
                out = fn(self, *args, **kwargs)
            finally:
                opened.pop()
            if _holds_values(out):
                entry[2] = out
                entries.append(entry)
            return out

        return call

    def take(self) -> list[Entry]:
        """The calls logged so far (for the pass whose backward() is starting); a new log."""
        taken, self.entries = self.entries, []
        return taken


def _holds_values(out: Any) -> bool:
    """Whether a call returned a Value-like object, or a list or tuple starting with one (the
    log keeps nothing else: no tensor, no other result, is held for the groups)."""
    t = type(out)
    if (t is list or t is tuple) and out:
        out = out[0]
    return looks_like_value(out)


def _values_in(obj: Any, positions: dict[int, int], depth: int = 0) -> Iterator[int]:
    """Positions in the pass of the Values in ``obj`` (a Value, or lists/tuples/dicts of them)."""
    found = positions.get(id(obj))
    if found is not None:
        yield found
        return
    if depth >= MAX_NESTING:
        return
    t = type(obj)
    if t is list or t is tuple:
        for item in obj:
            yield from _values_in(item, positions, depth + 1)
    elif t is dict:
        for item in obj.values():
            yield from _values_in(item, positions, depth + 1)


def _ancestors(starts: list[int], parents: list[tuple[int, ...]], stop: set[int]) -> set[int]:
    """The nodes reachable from ``starts`` through parents, not entering ``stop``."""
    seen: set[int] = set()
    todo = [s for s in starts if s not in stop]
    while todo:
        i = todo.pop()
        if i in seen:
            continue
        seen.add(i)
        todo.extend(p for p in parents[i] if p not in stop and p not in seen)
    return seen


def groups(
    objs: list[Any],
    parents: list[tuple[int, ...]],
    entries: list[Entry],
    name_of: Callable[[Any], str | None],
) -> tuple[list[dict[str, Any]], list[int | None]]:
    """The pass's module calls (``{id, name, type, parent}``, outermost first) and, for each
    node, the index of the innermost call it belongs to (None: outside every call, and every
    leaf: see the module docstring)."""
    positions = {id(o): i for i, o in enumerate(objs)}
    made: list[tuple[Entry, set[int]]] = []
    for entry in entries:
        _, args, out, _ = entry
        outputs = list(_values_in(out, positions))
        if not outputs:
            continue  # a call whose result is not in this graph
        inputs = list(_values_in(args, positions))
        given = _ancestors(inputs, parents, set())
        # the results it computed (leaves, its parameters among them, are placed by the page)
        own = {i for i in _ancestors(outputs, parents, given) if parents[i]}
        if own:
            made.append((entry, own))
    # outermost first: a call's group holds its inner calls' groups
    made.sort(key=lambda m: -len(m[1]))
    index = {id(entry): k for k, (entry, _) in enumerate(made)}
    owner: list[int | None] = [None] * len(objs)
    for k, (_, own) in enumerate(made):
        for i in own:
            owner[i] = k  # later (smaller, inner) calls overwrite: the innermost wins
    calls: list[dict[str, Any]] = []
    used: dict[str, int] = {}
    for entry, _ in made:
        instance, _, _, parent = entry
        name = name_of(instance) or type(instance).__name__
        used[name] = used.get(name, 0) + 1
        gid = name if used[name] == 1 else f"{name}#{used[name]}"
        outer = parent
        while outer is not None and id(outer) not in index:
            outer = outer[3]  # a call that made no node of this graph: its caller's
        calls.append(
            {
                "id": gid,
                "name": name,
                "type": type(instance).__name__,
                "parent_index": index[id(outer)] if outer is not None else None,
            }
        )
    for call in calls:
        parent = call.pop("parent_index")
        call["parent"] = calls[parent]["id"] if parent is not None else None
    return calls, owner
