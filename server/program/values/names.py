"""The user's names for the objects of their own autograd (``w``, ``loss``, ``ypred[0]``,
``layers[0].neurons[1].w[0]``, ``layers[0][1].w[2]``, ``params['w1']``), given by the naming
pass (:mod:`server.program.source`) as tensors get theirs; the program's other objects (a
``Neuron``, an ``MLP``) get theirs too, for the boxes their calls collapse into.

A name given at the top level wins over one given inside a function; the first name of each
kind sticks; a name given inside a method of the Value class itself (``out`` in
``Value.tanh``) is ignored, the expression labels that result better. ``model = MLP(...)``
names the Values inside the model by their path. Names are kept by ``id`` with a weak reference
(no object is kept alive for its name; a new object at a reused address gets none).
"""

from __future__ import annotations

import collections
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
                self._name_members(value, name, "")
        elif (t is list or t is tuple or t is dict) and not attribute and value:
            if not _may_hold_values(value, self.classes):
                return
            if local:  # a list inside a function: its Values, by index, as weak names
                items = value.items() if t is dict else enumerate(value)
                for k, v in list(items)[:MAX_LIST_NAMES]:
                    if type(v) in self.classes and looks_like_value(v):
                        self._set_name(
                            v, f"{name}[{k!r}]" if t is dict else f"{name}[{k}]", weak=True
                        )
            else:
                self._name_members(value, name, name)

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

    def _name_members(self, obj: Any, name: str, prefix: str) -> None:
        """Name the Values inside ``obj`` by their path, whatever its shape: attributes of the
        program's objects, items of lists and tuples, values of dicts (``layers[0][1].w[2]``,
        ``params['w1']``). ``name`` names ``obj`` itself (a model's variable: its groups' box);
        member paths start at ``prefix`` (empty inside one of the program's objects, as a
        ``Net``'s parameters read ``fc1.weight``; the variable's name for a list or a dict).
        Every object of the program's classes met on the way is named too (its calls' boxes)."""
        visits = 0
        seen: set[int] = set()
        todo: collections.deque[tuple[Any, str, int]] = collections.deque([(obj, prefix, 0)])
        classes = self.classes
        while todo and visits < MAX_MEMBER_VISITS:
            current, path, depth = todo.popleft()
            if id(current) in seen:
                continue
            seen.add(id(current))
            t = type(current)
            children: Any
            if t is list or t is tuple:
                children = ((f"{path}[{k}]", v) for k, v in enumerate(current))
            elif t is dict:
                children = (
                    (f"{path}[{k!r}]", v)
                    for k, v in current.items()
                    if type(k) is str or type(k) is int
                )
            else:
                d = instance_dict(current)
                if d is None:
                    continue
                self._set_name(current, path or name, weak=False)  # a Neuron: "layers[0][1]"
                children = (
                    (f"{path}.{attr}" if path else attr, v)
                    for attr, v in list(d.items())
                    if type(attr) is str
                )
            for where, item in children:
                visits += 1
                if visits >= MAX_MEMBER_VISITS:
                    break
                ti = type(item)
                if ti in classes:
                    if looks_like_value(item):
                        self._set_name(item, where, weak=False)
                    elif depth < MAX_MEMBER_DEPTH:
                        todo.append((item, where, depth + 1))
                elif (
                    (ti is list or ti is tuple or ti is dict)
                    and depth < MAX_MEMBER_DEPTH
                    and _may_hold_values(item, classes)
                ):
                    todo.append((item, where, depth + 1))


def _may_hold_values(container: Any, classes: set[type]) -> bool:
    """Whether a list, tuple or dict may hold the program's objects: its first item is one, or
    a container (a list of numbers is not walked)."""
    if not container:
        return False
    first = next(iter(container.values())) if type(container) is dict else container[0]
    t = type(first)
    return t in classes or t is list or t is tuple or t is dict
