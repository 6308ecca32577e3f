"""Your own autograd, observed: graphs of a program's micrograd-style objects and their walk.

A program that builds its own autograd (the lessons' ``Value``, micrograd's) records no tensor,
so this module watches its objects instead. The naming pass (:mod:`server.sandbox.source`)
decorates every class the program defines with ``__agp_class__`` (:meth:`ValueObserver.
register_class`), which wraps the class's own ``backward`` method. When the program calls it:

1. **Detection.** The graph is walked from the object ``backward()`` was called on, through its
   parents. Every node must be an instance of the class that defines ``backward``, keep its
   attributes in an instance ``__dict__``, and hold there a numeric ``data`` (an int, a float,
   a NumPy number or a numeric array), a ``grad`` (the same kinds, or None) and its parents
   under ``_prev``, ``prev``, ``parents``, ``_parents``, ``_children`` or ``children`` (a
   tuple, list, set or frozenset of such nodes); ``_op`` or ``op`` is its op label (optional).
   No cycle, at most ``max_graph_nodes`` nodes, at most ``max_total_elements`` numbers. Only
   the instance dicts are read: no property, ``__getattr__`` or other code of the program runs.
   Anything else is refused quietly: the program runs as if nothing watched it.
2. **Observation.** Each result's per-node backward function (``_backward``, ``backward_fn``,
   ``_backward_fn``, ``grad_fn`` or ``_grad_fn``, on the instance or its class) is swapped for an
   observer for the duration of the pass; each call becomes a walk step with the node's ``grad``
   as ``grad_output`` and each parent's ``grad`` before and after (a parent that appears twice,
   ``err * err``, has each write to its ``grad`` seen separately). Then everything is put back.
3. **Snapshot.** Values and gradients are copied at the pass's start and end, so a later
   ``w.data -= lr * w.grad`` does not change what the pass shows.

Each call of ``backward()`` is one pass; the first ``max_recorded_passes - 1`` and the last are
kept (:mod:`server.sandbox.values_graph` turns them into the API's ``Graph``). Names come from
the naming pass, as tensors get theirs.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import types
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

PARENT_ATTRS = ("_prev", "prev", "parents", "_parents", "_children", "children")
OP_ATTRS = ("_op", "op")
STEP_ATTRS = ("_backward", "backward_fn", "_backward_fn", "grad_fn", "_grad_fn")
CONTAINERS = (tuple, list, set, frozenset)
#: errors that must reach the program (the wall clock, memory): never read as "refused"
FATAL = (TimeoutError, MemoryError)
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


def is_number(v: Any) -> bool:
    t = type(v)
    if t is float or t is int:
        return True
    if t is np.ndarray:
        return bool(v.dtype.kind in "iuf")
    return isinstance(v, np.floating | np.integer)


def snap(v: Any) -> Any:
    """A copy that later in-place changes cannot reach (numbers are immutable)."""
    return v.copy() if type(v) is np.ndarray else v


def _class_method(obj: Any, attr: str) -> Callable[..., Any] | None:
    """``obj.attr`` when the class defines it as a plain function (bound, no lookup hooks)."""
    for c in type(obj).__mro__:
        fn = c.__dict__.get(attr)
        if fn is not None:
            return types.MethodType(fn, obj) if isinstance(fn, types.FunctionType) else None
    return None


_END = object()  # the end of a node's parents, in detection
_partial = functools.partial


@contextlib.contextmanager
def quiet_collector() -> Iterator[None]:
    """No garbage collection during a burst of our own acyclic allocations (detection, the
    observers, the export): the collector would walk the whole heap to find nothing."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _observe_two(
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


def _observe_one(
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


def _step_attr(d: dict[str, Any], obj: Any) -> str | None:
    """The per-node backward function's name, on a result's instance or its class."""
    for attr in STEP_ATTRS:
        if callable(d.get(attr)):
            return attr
    for attr in STEP_ATTRS:
        if _class_method(obj, attr) is not None:
            return attr
    return None


class Refused(Exception):
    """The objects do not fit the rules (the reason is for tests and notices)."""


@dataclass
class ValuePass:
    """One observed ``backward()``: nodes in topological order (parents first, root last)."""

    kind: type
    objs: list[Any]
    datas: list[Any]
    ops: list[str | None]
    parents: list[tuple[int, ...]]
    grads_start: list[Any]
    grads_end: list[Any] = field(default_factory=list)
    #: [node, grad_output, grads before, grads after, writes or None] per observed call
    steps: list[list[Any]] = field(default_factory=list)
    #: how many tensor passes ran before this one (to interleave both kinds of passes)
    tensor_count: int = 0
    index: int = 0
    complete: bool = True
    #: some data or grad is an array (grads must then be copied, not just read)
    arrays: bool = False
    #: some node keeps its parents in a set (their order, hence argument positions, is lost)
    unordered: bool = False
    kind_name: str = ""
    #: the user's names, resolved when the pass ends (the objects are not kept)
    names: list[str | None] = field(default_factory=list)
    #: the nodes' instance dicts while the pass runs (the observers read grads there)
    dicts: list[dict[str, Any]] = field(default_factory=list, repr=False)

    @property
    def root(self) -> int:
        return len(self.objs) - 1


class _DupStep:
    """A step of a node with a repeated parent: its writes to the parents' ``grad``."""

    __slots__ = ("last", "slots", "writes")

    def __init__(self, slots: dict[int, int], last: list[Any]) -> None:
        self.slots = slots  # id(parent) -> index among the node's distinct parents
        self.last = last  # the latest known grad of each distinct parent
        self.writes: list[tuple[int, Any, Any]] = []  # (slot, old, new)


class ValueObserver:
    """Everything one run knows about the program's own autograd objects."""

    def __init__(self, max_nodes: int, max_elements: int, max_passes: int) -> None:
        self.max_nodes = max_nodes
        self.max_elements = max_elements
        self.max_passes = max(1, max_passes)
        self.classes: set[type] = set()
        #: the passes kept as they come (the first ones; see _keep), and the latest since
        self._firsts: list[ValuePass] = []
        self._first_nodes = 0
        self._latest: ValuePass | None = None
        #: what all kept passes may hold together: scalar graphs are big, and each kept pass
        #: is a Graph in the response (a loop of 2,000-node passes would be tens of MB)
        self.max_kept_nodes = 2 * max_nodes
        self.tensor_counts: list[int] = []  # for every pass, kept or not
        self.notices: list[str] = []
        self.tensor_log: Any = None  # the engine's PassLog (its count interleaves passes)
        self.last_candidate: Any = None
        self.called = False  # a Value's backward() ran (observed or refused)
        self._busy = False
        self._names: dict[int, tuple[weakref.ref[Any], str, bool]] = {}
        self._class_names: dict[type, frozenset[str]] = {}
        self._dup_stack: list[_DupStep] = []
        self._dup_hooked: tuple[type, Any] | None = None

    @property
    def count(self) -> int:
        return len(self.tensor_counts)

    # ---- classes --------------------------------------------------------------------------

    def register_class(self, cls: Any) -> Any:
        """The hidden class decorator: remember the class, wrap its own ``backward``."""
        try:
            if isinstance(cls, type):
                self.classes.add(cls)
                fn = cls.__dict__.get("backward")
                if isinstance(fn, types.FunctionType):
                    type.__setattr__(cls, "backward", self._wrap_backward(cls, fn))
        except FATAL:
            raise
        except Exception:  # watching is optional: never the program's error
            pass
        return cls

    def _wrap_backward(self, owner: type, fn: types.FunctionType) -> Callable[..., Any]:
        observer = self

        @functools.wraps(fn)
        def backward(self: Any, *args: Any, **kwargs: Any) -> Any:
            if observer._busy or not isinstance(self, owner):
                return fn(self, *args, **kwargs)
            return observer.observe(owner, fn, self, args, kwargs)

        return backward

    # ---- one pass -------------------------------------------------------------------------

    def observe(self, owner: type, fn: Callable[..., Any], root: Any, args: Any, kw: Any) -> Any:
        """Run the program's ``backward`` on ``root``, watching it when the graph fits."""
        self.called = True
        installed: list[tuple[dict[str, Any], str, Any, Any]] = []
        try:
            with quiet_collector():
                record = self.detect(owner, root, installed)
        except FATAL:
            raise
        except Exception as exc:
            if isinstance(exc, Refused) and str(exc).startswith("budget: "):
                self._notice(str(exc)[len("budget: ") :])
            return fn(root, *args, **kw)
        self._busy = True
        try:
            # The observers and their records are thousands of young objects: with the
            # collector on, they would set off full collections inside the program's backward
            # that its unobserved run never pays. It is back on when the pass ends.
            with quiet_collector():
                return fn(root, *args, **kw)
        except BaseException:
            record.complete = False
            raise
        finally:
            self._busy = False
            with quiet_collector():
                self._uninstall(installed)
                self._finish(record)

    def detect(
        self,
        kind: type,
        root: Any,
        installed: list[tuple[dict[str, Any], str, Any, Any]] | None = None,
    ) -> ValuePass:
        """The graph under ``root`` as a pass; Refused when it does not fit the rules. With
        ``installed``, each result's per-node backward function is swapped for an observer as
        the result is found (and listed there, to be put back); on refusal nothing is left
        swapped. One depth-first walk, kept lean: it runs before every observed backward()."""
        try:
            return self._detect(kind, root, installed)
        except BaseException:
            if installed:
                self._uninstall(installed)
                installed.clear()
            raise

    def _detect(
        self, kind: type, root: Any, installed: list[tuple[dict[str, Any], str, Any, Any]] | None
    ) -> ValuePass:
        root_dict = instance_dict(root)
        if root_dict is None or not isinstance(root, kind):
            raise Refused("no instance __dict__")
        pattr = next((a for a in PARENT_ATTRS if a in root_dict), None)
        if pattr is None:
            raise Refused("no parents attribute")
        op_attr = next((a for a in OP_ATTRS if a in root_dict), None)
        limit = self.max_nodes
        raw = _raw_getattr
        end = _END
        objs: list[Any] = []
        dicts: list[dict[str, Any]] = []
        position: dict[int, int] = {id(root): -1}  # -1: on the current path
        seen_at = position.get
        ps0: Any = root_dict.get(pattr)
        if type(ps0) not in CONTAINERS:
            raise Refused(f"{pattr} is not a tuple, list or set")
        unordered = type(ps0) is set or type(ps0) is frozenset
        record = ValuePass(kind=kind, objs=objs, datas=[], ops=[], parents=[], grads_start=[])
        steps = record.steps
        parents = record.parents
        # observers: the per-node function's name (found on the first result), and results
        # that need the general observer (a repeated parent, three or more parents)
        attr: str | None = None
        searched = installed is None
        general: list[int] = []
        swap = installed.append if installed is not None else None
        # the path from the root: each node, its dict, its parents' iterator, and the positions
        # of the parents done so far (a node's position is known once all its parents have one)
        nodes, ds, its = [root], [root_dict], [iter(ps0)]
        found: list[list[int]] = [[]]
        while its:
            p = next(its[-1], end)
            if p is end:  # every parent done: the node takes the next position
                its.pop()
                here = len(objs)
                obj = nodes.pop()
                d = ds.pop()
                position[id(obj)] = here
                objs.append(obj)
                dicts.append(d)
                pidx = tuple(found.pop())
                parents.append(pidx)
                if found:
                    found[-1].append(here)
                if not pidx or swap is None:
                    continue
                if not searched:
                    attr, searched = _step_attr(d, obj), True
                if attr is None:
                    continue
                own = d.get(attr)
                orig = own if own is not None else _class_method(obj, attr)
                if not callable(orig):
                    continue
                if len(pidx) == 2 and pidx[0] != pidx[1]:
                    d0, d1 = dicts[pidx[0]], dicts[pidx[1]]
                    wrapper = _partial(_observe_two, steps, here, orig, d, d0, d1)
                elif len(pidx) == 1:
                    wrapper = _partial(_observe_one, steps, here, orig, d, dicts[pidx[0]])
                else:
                    general.append(here)
                    continue
                d[attr] = wrapper
                swap((d, attr, own, wrapper))
                continue
            pid = id(p)
            seen = seen_at(pid)
            if seen is not None:
                if seen < 0:
                    raise Refused("the graph has a cycle")
                found[-1].append(seen)
                continue
            if not isinstance(p, kind):
                raise Refused(f"a parent is not a {kind.__name__}")
            try:
                pd = raw(p, "__dict__")
            except Exception:
                raise Refused("no instance __dict__") from None
            pps: Any = pd.get(pattr) if type(pd) is dict else None
            tp = type(pps)
            if tp is not tuple:
                if tp is not list and tp is not set and tp is not frozenset:
                    raise Refused(f"{pattr} is not a tuple, list or set")
                unordered = unordered or tp is not list
            if len(position) >= limit:
                raise Refused(
                    f"budget: your {kind.__name__} graph has more than {limit:,} nodes "
                    "(budget: max_graph_nodes), so it is not drawn"
                )
            position[pid] = -1
            nodes.append(p)
            ds.append(pd)
            its.append(iter(pps))
            found.append([])
        arrays = self._check_numbers(kind, dicts)
        datas = [d["data"] for d in dicts]
        grads = [d["grad"] for d in dicts]
        if arrays:
            datas, grads = [snap(v) for v in datas], [snap(v) for v in grads]
        ops = [d.get(op_attr) for d in dicts] if op_attr else [None] * len(dicts)
        record.datas = datas
        record.ops = [op if type(op) is str else None for op in ops]
        record.grads_start = grads
        record.dicts = dicts
        record.unordered = unordered
        record.arrays = arrays
        if installed is not None and attr is not None and (arrays or general):
            self._install_general(record, attr, installed, general)
        return record

    def _install_general(
        self,
        record: ValuePass,
        attr: str,
        installed: list[tuple[dict[str, Any], str, Any, Any]],
        general: list[int],
    ) -> None:
        """The general observers: for the results listed in ``general`` and, when some data
        or grad is an array (grads must then be copied), for every result instead of the
        lean ones."""
        todo = general
        if record.arrays:
            self._uninstall(installed)
            installed.clear()
            todo = [i for i, p in enumerate(record.parents) if p]
        dicts = record.dicts
        for i in todo:
            d = dicts[i]
            own = d.get(attr)
            orig = own if own is not None else _class_method(record.objs[i], attr)
            if not callable(orig):
                continue
            pdicts = [dicts[j] for j in record.parents[i]]
            wrapper = self._observer(record, i, orig, d, pdicts)
            d[attr] = wrapper
            installed.append((d, attr, own, wrapper))

    def _check_numbers(self, kind: type, dicts: list[dict[str, Any]]) -> bool:
        """Every ``data`` numeric and every ``grad`` numeric or None; True when some is an
        array. Refused beyond the elements budget."""
        elements = 0
        arrays = False
        for d in dicts:
            data: Any = d.get("data")
            t = type(data)
            if t is not float and t is not int:
                if t is np.ndarray and data.dtype.kind in "iuf":
                    elements += data.size
                    arrays = True
                elif not isinstance(data, np.floating | np.integer):
                    raise Refused("data is not a number or a numeric array")
            if "grad" not in d:
                raise Refused("no grad")
            g = d["grad"]
            t = type(g)
            if t is not float and t is not int and g is not None:
                if t is np.ndarray and g.dtype.kind in "iuf":
                    arrays = True
                elif not isinstance(g, np.floating | np.integer):
                    raise Refused("grad is not a number or a numeric array")
        if elements + len(dicts) > self.max_elements:
            raise Refused(
                f"budget: your {kind.__name__} graph holds more than {self.max_elements:,} "
                "numbers (budget: max_total_elements), so it is not drawn"
            )
        return arrays

    # ---- the observers --------------------------------------------------------------------

    @staticmethod
    def _uninstall(installed: list[tuple[dict[str, Any], str, Any, Any]]) -> None:
        for d, attr, own, wrapper in installed:
            if d.get(attr) is not wrapper:
                continue  # the program replaced it itself: keep the program's choice
            if own is None:
                del d[attr]
            else:
                d[attr] = own

    def _observer(
        self,
        record: ValuePass,
        i: int,
        orig: Callable[..., Any],
        node_dict: dict[str, Any],
        pdicts: list[dict[str, Any]],
    ) -> Callable[..., Any]:
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

    def _finish(self, record: ValuePass) -> None:
        """Snapshot the end of the pass and keep it (first ones and the last)."""
        record.grads_end = [snap(d.get("grad")) for d in record.dicts]
        self._release(record)
        self._keep(record)

    def _release(self, record: ValuePass) -> None:
        """Resolve the names now and let go of the program's objects."""
        table = self._names
        record.names = [
            e[1] if (e := table.get(id(o))) is not None and e[0]() is o else None
            for o in record.objs
        ]
        record.kind_name = str(type.__dict__["__name__"].__get__(record.kind))
        record.objs = []
        record.dicts = []

    def _keep(self, record: ValuePass) -> None:
        record.index = self.count
        record.tensor_count = self.tensor_log.count if self.tensor_log is not None else 0
        self.tensor_counts.append(record.tensor_count)
        n = len(record.datas)
        fits = self._first_nodes + 2 * n <= self.max_kept_nodes  # room left for a last like it
        if self._latest is None and len(self._firsts) < self.max_passes - 1 and fits:
            self._firsts.append(record)
            self._first_nodes += n
        else:  # from now on only the latest is kept besides the first ones
            self._latest = record

    @property
    def passes(self) -> list[ValuePass]:
        """The kept passes: the first ones (at most max_passes - 1, within max_kept_nodes)
        and the latest."""
        return self._firsts + ([self._latest] if self._latest is not None else [])

    def snapshot(self, root: Any) -> ValuePass | None:
        """The graph under ``root`` as it is now, without a walk (no backward() was called)."""
        kind = self._base_class(type(root))
        if kind is None:
            return None
        try:
            record = self.detect(kind, root)
        except FATAL:
            raise
        except Exception:
            return None
        record.grads_end = list(record.grads_start)
        self._release(record)
        return record

    def _base_class(self, cls: type) -> type | None:
        """The most basic class of the program's own in ``cls``'s MRO."""
        found = None
        for c in cls.__mro__:
            if c in self.classes:
                found = c
        return found

    def _notice(self, text: str) -> None:
        if text not in self.notices:
            self.notices.append(text)

    # ---- names ----------------------------------------------------------------------------

    def looks_like_value(self, obj: Any) -> bool:
        """Cheap test for naming and the fallback root (detection checks the rest)."""
        d = instance_dict(obj)
        return (
            d is not None and "data" in d and "grad" in d and not d.keys().isdisjoint(PARENT_ATTRS)
        )

    def name(self, name: str, value: Any, local: bool | str) -> None:
        """The naming pass's hook for objects of the program's classes (and lists of them);
        ``local`` is the class's name inside a method (see :mod:`server.sandbox.source`)."""
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
                if type(v) in self.classes and self.looks_like_value(v):
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
                    if self.looks_like_value(item):
                        self._set_name(item, where, weak=False)
                    elif depth < MAX_MEMBER_DEPTH:
                        todo.append((item, where, depth + 1))
