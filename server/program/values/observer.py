"""Your own autograd, observed: graphs of a program's micrograd-style objects and their walk.

A program that builds its own autograd (the lessons' ``Value``, micrograd's) records no tensor,
so this module watches its objects instead. The naming pass (:mod:`server.program.source`)
decorates every class the program defines with ``__agp_class__`` (:meth:`ValueObserver.
register_class`), which wraps the class's own ``backward`` method. When the program calls it:

1. **Detection.** The graph is walked from the object ``backward()`` was called on, through its
   parents. Every node must be an instance of the class that defines ``backward``, keep its
   attributes in an instance ``__dict__``, and hold there a numeric ``data`` (an int, a float,
   a NumPy number or a numeric array), a ``grad`` (the same kinds, or None) and its parents
   under ``_prev``, ``prev``, ``parents``, ``_parents``, ``_children`` or ``children`` (a
   tuple, list, set or frozenset of such nodes); ``_op`` or ``op`` is its op label (optional).
   No cycle, at most ``max_graph_nodes`` nodes, at most ``max_drawn_numbers`` numbers. Only
   the instance dicts are read: no property, ``__getattr__`` or other code of the program runs.
   Anything else is refused quietly: the program runs as if nothing watched it.
2. **Observation.** Each result's per-node backward function (``_backward``, ``backward_fn``,
   ``_backward_fn``, ``grad_fn`` or ``_grad_fn``, on the instance or its class) is swapped for an
   observer for the duration of the pass; each call becomes a walk step with the node's ``grad``
   as ``grad_output`` and each parent's ``grad`` before and after (a parent that appears twice,
   ``err * err``, has each write to its ``grad`` seen separately). Then everything is put back.
3. **Snapshot.** Values and gradients are copied at the pass's start and end, so a later
   ``w.data -= lr * w.grad`` does not change what the pass shows.

Each call of ``backward()`` is one pass; the first ``max_recorded_passes - 1`` (holding at most
twice ``max_graph_nodes`` nodes together) and the last are kept
(:mod:`server.program.values.graph` turns them into the API's ``Graph``). Names come from the
naming pass (:mod:`server.program.values.names`); the observers are in
:mod:`server.program.values.observers`.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from server.program.values.groups import CALL_METHODS, CallLog
from server.program.values.names import PARENT_ATTRS, ValueNames, instance_dict
from server.program.values.observers import (
    GeneralObservers,
    Installed,
    class_method,
    observe_one,
    observe_two,
    snap,
    step_attr,
    uninstall,
)
from server.program.values.record import Refused, ValuePass

OP_ATTRS = ("_op", "op")
CONTAINERS = (tuple, list, set, frozenset)
#: errors that must reach the program (the wall clock, memory): never read as "refused"
FATAL = (TimeoutError, MemoryError)
_raw_getattr = object.__getattribute__


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
        self.called = False  # a Value's backward() ran (observed or refused)
        #: False while nothing is to be recorded (a notebook's cells before the one it shows):
        #: backward() then runs as the program wrote it, unwatched
        self.watching = True
        self._busy = False
        self.names = ValueNames(self.classes)  # the naming pass's hook for these objects
        self._general = GeneralObservers()
        self.calls = CallLog()  # calls of the program's Neuron, Layer, MLP ... (groups.py)

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
                elif any(m in cls.__dict__ for m in CALL_METHODS) and all(
                    base is object or base in self.classes for base in cls.__mro__[1:]
                ):  # the program's own Neuron, Layer, MLP (an nn.Module has its own groups)
                    self.calls.wrap(cls)
        except FATAL:
            raise
        except Exception:  # watching is optional: never the program's error
            pass
        return cls

    def _wrap_backward(self, owner: type, fn: types.FunctionType) -> Callable[..., Any]:
        observer = self

        @functools.wraps(fn)
        def backward(self: Any, *args: Any, **kwargs: Any) -> Any:
            if observer._busy or not observer.watching or not isinstance(self, owner):
                return fn(self, *args, **kwargs)
            return observer.observe(owner, fn, self, args, kwargs)

        return backward

    # ---- one pass -------------------------------------------------------------------------

    def observe(self, owner: type, fn: Callable[..., Any], root: Any, args: Any, kw: Any) -> Any:
        """Run the program's ``backward`` on ``root``, watching it when the graph fits."""
        self.called = True
        installed: Installed = []
        calls = self.calls.take()
        try:
            with quiet_collector():
                record = self.detect(owner, root, installed)
                record.calls = calls
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
                uninstall(installed)
                self._finish(record)

    def detect(
        self,
        kind: type,
        root: Any,
        installed: Installed | None = None,
    ) -> ValuePass:
        """The graph under ``root`` as a pass; Refused when it does not fit the rules. With
        ``installed``, each result's per-node backward function is swapped for an observer as
        the result is found (and listed there, to be put back); on refusal nothing is left
        swapped. One depth-first walk, kept lean: it runs before every observed backward()."""
        try:
            return self._detect(kind, root, installed)
        except BaseException:
            if installed:
                uninstall(installed)
                installed.clear()
            raise

    def _detect(self, kind: type, root: Any, installed: Installed | None) -> ValuePass:
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
        # attr: the per-node function's name; general: nodes with a repeated or third parent
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
                    attr, searched = step_attr(d, obj), True
                if attr is None:
                    continue
                own = d.get(attr)
                orig = own if own is not None else class_method(obj, attr)
                if not callable(orig):
                    continue
                if len(pidx) == 2 and pidx[0] != pidx[1]:
                    d0, d1 = dicts[pidx[0]], dicts[pidx[1]]
                    wrapper = _partial(observe_two, steps, here, orig, d, d0, d1)
                elif len(pidx) == 1:
                    wrapper = _partial(observe_one, steps, here, orig, d, dicts[pidx[0]])
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
        self._numbers(record, kind, dicts, op_attr, unordered)
        if installed is not None and attr is not None and (record.arrays or general):
            self._install_general(record, attr, installed, general)
        return record

    def _numbers(
        self,
        record: ValuePass,
        kind: type,
        dicts: list[dict[str, Any]],
        op_attr: str | None,
        unordered: bool,
    ) -> None:
        """Each node's data, gradient (as the backward pass starts) and op, into ``record``
        (array-valued nodes snapped to copies: the program may change them in place)."""
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
        record.arrays = arrays
        record.unordered = unordered

    def _install_general(
        self,
        record: ValuePass,
        attr: str,
        installed: Installed,
        general: list[int],
    ) -> None:
        """The general observers: for the results listed in ``general`` and, when some data
        or grad is an array (grads must then be copied), for every result instead of the
        lean ones."""
        todo = general
        if record.arrays:
            uninstall(installed)
            installed.clear()
            todo = [i for i, p in enumerate(record.parents) if p]
        dicts = record.dicts
        for i in todo:
            d = dicts[i]
            own = d.get(attr)
            orig = own if own is not None else class_method(record.objs[i], attr)
            if not callable(orig):
                continue
            pdicts = [dicts[j] for j in record.parents[i]]
            wrapper = self._general.observer(record, i, orig, d, pdicts)
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
                "numbers (budget: max_drawn_numbers), so it is not drawn"
            )
        return arrays

    def _finish(self, record: ValuePass) -> None:
        """Snapshot the end of the pass and keep it (first ones and the last)."""
        record.grads_end = [snap(d.get("grad")) for d in record.dicts]
        self._release(record)
        self._keep(record)

    def _release(self, record: ValuePass) -> None:
        """Resolve the names now and let go of the program's objects."""
        record.names = self.names.names_of(record.objs)
        record.kind_name = str(type.__dict__["__name__"].__get__(record.kind))
        record.dicts = []
        if record.calls:  # the groups need the objects until the export (kept passes only)
            record.name_of = self.names.name_of
        else:
            record.objs = []

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
