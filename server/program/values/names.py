"""The user's names for the objects of their own autograd (``w``, ``loss``, ``ypred[0]``,
``layers[0].neurons[1].w[0]``), given by the naming pass (:mod:`server.program.source`) as
tensors get theirs.

A name given at the top level wins over one given inside a function; the first name of each
kind sticks; a name given inside a method of the Value class itself (``out`` in
``Value.tanh``) is ignored, the expression labels that result better. ``model = MLP(...)``
names the Values inside the model by their path. Names are kept by ``id`` with a weak reference
(no object is kept alive for its name; a new object at a reused address gets none).
"""

from __future__ import annotations

import weakref
from typing import Any

PARENT_ATTRS = ("_prev", "prev", "parents", "_parents", "_children", "children")
MAX_LIST_NAMES = 64
MAX_MEMBER_VISITS = 2_000
MAX_MEMBER_DEPTH = 6

_raw_getattr = object.__getattribute__


def instance_dict(obj: Any) -> dict[str, Any] | None:
    """The object's own ``__dict__`` (no program code runs), or None."""
    try:
        d = _raw_getattr(obj, "__dict__")
    except Exception:
        return None
    return d if type(d) is dict else None


def looks_like_value(obj: Any) -> bool:
    """Cheap test for naming and the fallback root (detection checks the rest)."""
    d = instance_dict(obj)
    return d is not None and "data" in d and "grad" in d and not d.keys().isdisjoint(PARENT_ATTRS)


class ValueNames:
    """Names of the program's autograd objects; ``classes`` is the set of the program's classes
    (shared with the observer, filled as they are defined)."""

    def __init__(self, classes: set[type]) -> None:
        self.classes = classes
        self.last_candidate: Any = None  # the last Value-like object assigned
        self._names: dict[int, tuple[weakref.ref[Any], str, bool]] = {}
        self._class_names: dict[type, frozenset[str]] = {}

    def names_of(self, objs: list[Any]) -> list[str | None]:
        """Each object's name, or None."""
        table = self._names
        return [e[1] if (e := table.get(id(o))) is not None and e[0]() is o else None for o in objs]

    def name(self, name: str, value: Any, local: bool | str) -> None:
        """The naming pass's hook for objects of the program's classes (and lists of them);
        ``local`` is the class's name inside a method (see :mod:`server.program.source`)."""
        attribute = name.startswith(".")
        name = name.lstrip(".")
        t = type(value)
        if t in self.classes:
            if type(local) is str and self._own_method(local, value):
                return  # `out` inside Value.tanh: the expression labels it better
            d = instance_dict(value)
            if (
                d is not None
                and "grad" in d
                and "data" in d
                and not d.keys().isdisjoint(PARENT_ATTRS)
            ):
                entry = self._names.get(id(value))
                weak = bool(local) or attribute
                if entry is None or entry[0]() is not value or (entry[2] and not weak):
                    self._set_name(value, name, weak)
                self.last_candidate = value
            elif not local and not attribute:
                self._name_members(value)
        elif (
            (t is list or t is tuple)
            and not attribute
            and 0 < len(value) <= MAX_LIST_NAMES
            and type(value[0]) in self.classes
        ):
            for k, v in enumerate(value):
                if type(v) in self.classes and looks_like_value(v):
                    self._set_name(v, f"{name}[{k}]", weak=bool(local))

    def name_of(self, obj: Any) -> str | None:
        entry = self._names.get(id(obj))
        if entry is None or entry[0]() is not obj:
            return None
        return entry[1]

    def _set_name(self, obj: Any, name: str, weak: bool) -> None:
        entry = self._names.get(id(obj))
        if entry is not None and entry[0]() is obj and not (entry[2] and not weak):
            return  # the first name sticks, unless a top-level one replaces a weak one
        try:
            ref = weakref.ref(obj)
        except TypeError:
            return
        self._names[id(obj)] = (ref, name, weak)

    def _own_method(self, owner: str, value: Any) -> bool:
        """Whether ``owner`` (the class of the method assigning) is ``value``'s class or one
        of its bases."""
        names = self._class_names.get(type(value))
        if names is None:
            names = frozenset(c.__name__ for c in type(value).__mro__ if c in self.classes)
            self._class_names[type(value)] = names
        return owner in names

    def _name_members(self, obj: Any) -> None:
        """``n = MLP(...)``: name the Values inside by their path (``layers[0].w[1]``)."""
        visits = 0
        seen: set[int] = set()
        todo: list[tuple[Any, str, int]] = [(obj, "", 0)]
        while todo and visits < MAX_MEMBER_VISITS:
            current, path, depth = todo.pop(0)
            visits += 1
            if id(current) in seen:
                continue
            seen.add(id(current))
            d = instance_dict(current)
            if d is None:
                continue
            for attr, v in list(d.items()):
                if type(attr) is not str:
                    continue
                here = f"{path}.{attr}" if path else attr
                items = enumerate(v) if type(v) in (list, tuple) else [(None, v)]
                for k, item in items:
                    if type(item) not in self.classes:
                        continue
                    where = here if k is None else f"{here}[{k}]"
                    if looks_like_value(item):
                        self._set_name(item, where, weak=False)
                    elif depth < MAX_MEMBER_DEPTH:
                        todo.append((item, where, depth + 1))
