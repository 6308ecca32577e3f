"""The autograd core: grad mode, graph nodes, tensor hooks, and the one backward loop.

The backward loop (:func:`run_backward`) is the one place that (1) orders the graph, (2) sums
each rule's gradient back to its input's shape (:func:`sum_to`), (3) accumulates gradients and
runs tensor hooks, and (4) tells the walk recorder what happened (an observer: one ``is not
None`` test per node when no recorder is active). It runs the op table's rules on arrays for a
plain backward, or, given the tensor rules of :mod:`engine.higher`, on recorded tensors for
``create_graph=True``: the same loop, parameterised by the arithmetic.

This layer does not import Tensor (backend/dtypes -> ops -> core -> tensor -> ...): it reaches
tensors through their attributes (``_data``, ``grad_fn``, ``requires_grad``, ``grad``,
``_version``, ``_hooks``) and wraps arrays as tensors through ``_TensorType`` (set by
engine.tensor: a Parameter's gradient is a plain tensor).
"""

from __future__ import annotations

import itertools
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from heapq import heappop, heappush
from time import perf_counter
from typing import Any, Protocol

import numpy as np

from engine.backend import array_module
from engine.dtypes import type_word
from engine.ops import Op, sum_rows

Tensor = Any  # this layer sees tensors through their attributes only (see the docstring)

# --- grad mode ----------------------------------------------------------------------------------


class _GradMode(threading.local):
    enabled = True
    #: the innermost nn.Module call running (a ModuleCall), or None; nodes recorded while one
    #: runs remember it, so the graph can draw a module's nodes as one box
    module: ModuleCall | None = None


_mode = _GradMode()


def is_grad_enabled() -> bool:
    return _mode.enabled


def set_grad_enabled(mode: bool) -> None:
    _mode.enabled = bool(mode)


class _GradContext:
    """Base of no_grad / enable_grad: a context manager that is also a decorator."""

    _target = True

    def __enter__(self) -> None:
        self._prev = _mode.enabled
        _mode.enabled = self._target

    def __exit__(self, *exc: object) -> None:
        _mode.enabled = self._prev

    def __call__(self, fn: Any) -> Any:
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.__class__():
                return fn(*args, **kwargs)

        return wrapper


class no_grad(_GradContext):
    """Operations inside record no graph (``with torch.no_grad():``)."""

    _target = False


class enable_grad(_GradContext):
    _target = True


# --- graph nodes --------------------------------------------------------------------------------

_seq = itertools.count()
next_seq: Callable[[], int] = _seq.__next__  # a node's place in recording order


class Node:
    """A recorded operation: PyTorch's ``grad_fn``.

    ``inputs`` holds every input (tensors, and Python scalars as given) so the graph can be
    drawn with its constants; only tensors that require grad receive gradients.
    """

    __slots__ = (
        "__weakref__",
        "_name",
        "arrays",
        "attrs",
        "freed",
        "inputs",
        "module",
        "needs",
        "op",
        "out",
        "out_value",
        "out_version",
        "seq",
        "versions",
    )
    out_value: Any  # set only when the output was later changed in place (see Tensor._shadow)
    module: ModuleCall  # set only when recorded inside an nn.Module call (see ModuleCall)
    #: a node whose backward is the program's own (autograd.Function): it may write into the
    #: gradient it receives
    custom = False

    def __init__(
        self,
        op: Op,
        inputs: tuple[Any, ...],
        attrs: dict[str, Any] | None,
        name: str | None = None,
        needs: list[bool] | None = None,
        arrays: list[Any] | None = None,
    ) -> None:
        self.op = op
        self.inputs = inputs
        # the input arrays as the forward saw them (what backward reads; in-place changes to
        # them since are caught by the version counters)
        self.arrays: Sequence[Any] = (
            arrays if arrays is not None else [getattr(x, "_data", x) for x in inputs]
        )
        self.attrs = attrs
        self.seq = next_seq()
        self.freed = False
        self._name = name
        scope = _mode.module
        if scope is not None:
            self.module = scope
        self.needs = (
            needs if needs is not None else [getattr(x, "requires_grad", False) for x in inputs]
        )
        self.out: Any = None  # weakref to the output tensor, set by the tensor layer
        # the output's version when recorded (not 0 when an in-place op produced it)
        self.out_version = 0
        saves = op.saves
        if saves == "in" or saves == "both":
            self.versions: Sequence[int | None] | None = [
                getattr(x, "_version", None) for x in inputs
            ]
        else:
            self.versions = None

    def name(self) -> str:
        return self._name or self.op.grad_fn

    @property
    def next_functions(self) -> tuple[tuple[Any, int], ...]:
        if self.op.name == "linear":
            return _linear_next_functions(self)
        return tuple((_next(x, self.seq), 0) for x in self.inputs)

    def type_name(self) -> str:
        """The name PyTorch's reprs show: its node's Python type (``CopyBackwards`` for
        ``torch::autograd::CopyBackwards``)."""
        return self.name().rsplit("::", 1)[-1]

    def __repr__(self) -> str:
        return f"<{self.type_name()} object at {id(self):#x}>"


class _Anomaly:
    """torch.autograd's anomaly mode: backward checks every gradient it computes for NaN."""

    enabled = False
    check_nan = True


ANOMALY = _Anomaly()


def _check_nan(node: Node, grads: Sequence[Any]) -> None:
    for k, g in enumerate(grads):
        data = getattr(g, "_data", g)
        kind = getattr(getattr(data, "dtype", None), "kind", "")
        if kind == "f" and bool(array_module(data).isnan(data).any()):
            warnings.warn(
                f"Error detected in {node.type_name()}. Traceback of forward call that "
                "caused the error: (the line that created it, shown by the playground's "
                "graph)",
                UserWarning,
                stacklevel=3,
            )
            raise RuntimeError(
                f"Function '{node.type_name()}' returned nan values in its {k}th output."
            )


_NODE_TYPES: dict[str, type[Node]] = {}


def node_type(name: str) -> type[Node]:
    """The Node subclass named as PyTorch's node class for ``name`` (``MulBackward0``), so that
    ``type(y.grad_fn).__name__`` reads as it does in PyTorch; made once per name."""
    found = _NODE_TYPES.get(name)
    if found is None:
        short = name.rsplit("::", 1)[-1]
        found = type(short, (Node,), {"__slots__": (), "__module__": "builtins"})
        _NODE_TYPES[name] = found
    return found


def rename(node: Node, name: str) -> None:
    """Give a recorded node PyTorch's name for it where a composite ends in another row (an
    LSTM's output is a stack here, ``MkldnnRnnLayerBackward0`` in PyTorch)."""
    node._name = name
    node.__class__ = node_type(name)


def edge(x: Any, seq: int) -> Any:
    """The grad_fn that input x had when the node numbered ``seq`` recorded it: x.grad_fn,
    unless an in-place op has since given x a new history (``y[i] -= 1`` after ``y[i]`` was
    read), whose earlier consumers still lead to the old node, as PyTorch's edges do."""
    history = getattr(x, "_fn_history", None)
    if history is None:
        return getattr(x, "grad_fn", None)
    for boundary, old in history:
        if seq < boundary:
            return old
    return x.grad_fn


def _next(x: Any, seq: int) -> Any:
    """The node a gradient goes on to from input x: its grad_fn, a leaf's AccumulateGrad, or
    None for what does not require grad."""
    if getattr(x, "requires_grad", False):
        fn = edge(x, seq)
        return fn if fn is not None else AccumulateGrad(x)
    return None


class _Shown:
    """A node PyTorch's graph has where the engine records one node for several (linear is
    addmm on the input, the bias and the weight's transpose): for ``next_functions``. Made
    through :func:`shown`, whose class is named as PyTorch's node."""

    __slots__ = ("_name", "next_functions")

    def __init__(self, name: str, next_functions: tuple[tuple[Any, int], ...]) -> None:
        self._name = name
        self.next_functions = next_functions

    def __new__(cls, name: str, next_functions: tuple[tuple[Any, int], ...]) -> _Shown:
        if cls is _Shown:
            cls = _SHOWN_TYPES.get(name) or _SHOWN_TYPES.setdefault(
                name, type(name, (_Shown,), {"__slots__": (), "__module__": "builtins"})
            )
        return object.__new__(cls)

    def name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<{self._name} object at {id(self):#x}>"


_SHOWN_TYPES: dict[str, type[_Shown]] = {}


def _linear_next_functions(node: Node) -> tuple[tuple[Any, int], ...]:
    """PyTorch's graph of F.linear: addmm(bias, input, weight.t()) (mm without a bias), behind
    a view for input of another rank."""
    x, w = node.inputs[0], node.inputs[1]
    transposed = _Shown("TBackward0", ((_next(w, node.seq), 0),)) if w.requires_grad else None
    core: tuple[tuple[Any, int], ...]
    if len(node.inputs) > 2:
        core = ((_next(node.inputs[2], node.seq), 0), (_next(x, node.seq), 0), (transposed, 0))
        inner = "AddmmBackward0"
    else:
        core = ((_next(x, node.seq), 0), (transposed, 0))
        inner = "MmBackward0"
    if node.name() in ("AddmmBackward0", "MmBackward0"):
        return core
    return ((_Shown(inner, core), 0),)


class ModuleCall:
    """One call of an nn.Module (``model[0](X)``): the module, the call it ran inside (the
    stack of calls, innermost last) and its arguments. Module.__call__ makes one per call
    (the cheap part of module scopes: one object and three thread-local accesses per call);
    engine.graph names, nests and labels the calls from the nodes that recorded them."""

    __slots__ = ("inputs", "module", "parent")

    def __init__(self, module: Any, parent: ModuleCall | None, inputs: tuple[Any, ...]) -> None:
        self.module = module
        self.parent = parent
        self.inputs = inputs

    def path(self) -> list[ModuleCall]:
        """The calls from the outermost to this one."""
        calls = []
        call: ModuleCall | None = self
        while call is not None:
            calls.append(call)
            call = call.parent
        return calls[::-1]


class AccumulateGrad:
    """The node PyTorch shows for a leaf in ``next_functions``."""

    __slots__ = ("variable",)

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"

    next_functions: tuple[Any, ...] = ()

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {id(self):#x}>"


# --- tensor hooks -------------------------------------------------------------------------------

_hook_ids = itertools.count()


#: how many times the program has put its own code into backward passes (a hook registered, a
#: custom Function called): the pass after such a change is walked as it runs (PassLog.light)
_program_code = [0]


def program_code_added() -> None:
    """A hook was registered, or a custom Function called (engine.tensor, engine.function)."""
    _program_code[0] += 1


class GradHooks:
    """What runs when a tensor's gradient is ready: ``register_hook`` functions in order, then
    ``retain_grad`` (always last, as in PyTorch, so ``.grad`` shows the hooked gradient)."""

    __slots__ = ("fns", "retain")

    def __init__(self) -> None:
        self.fns: dict[int, Any] = {}
        self.retain = False


class RemovableHandle:
    """What ``register_hook`` returns: ``handle.remove()`` unregisters the hook."""

    __slots__ = ("_fns", "id")

    def __init__(self, fns: dict[int, Any]) -> None:
        self._fns = fns
        self.id = next(_hook_ids)

    def remove(self) -> None:
        self._fns.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def __repr__(self) -> str:
        return f"<torch.utils.hooks.RemovableHandle object at {id(self):#x}>"


def _run_hooks(t: Any, g: Any, hooks: GradHooks, retain: bool) -> Any:
    """g after t's hooks (each may return a replacement), kept in ``t.grad`` when t retains
    its gradient. g is an array (plain backward) or a tensor (``create_graph``)."""
    if hooks.fns:
        graphed = hasattr(g, "_data")  # a tensor (create_graph), not an array
        value = g if graphed else _TensorType._wrap(g)
        for fn in list(hooks.fns.values()):
            new = fn(value)
            if new is None:
                continue
            name = getattr(fn, "__name__", type(fn).__name__)
            if not isinstance(new, _TensorType):
                raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
            if new._data.shape != value._data.shape:
                raise RuntimeError(f"hook '{name}' has changed the size of value")
            if new._data.dtype != value._data.dtype:
                raise RuntimeError(
                    f"hook '{name}' has changed the type of value (was "
                    f"{_tensor_type(value._data)} got {_tensor_type(new._data)})"
                )
            value = new
        g = value if graphed else value._data
    if hooks.retain and retain:
        if hasattr(g, "_data"):  # create_graph: out of place, recorded
            t.grad = g if t.grad is None else t.grad + g
        else:
            t.grad = _wrap_grad(g.copy() if t.grad is None else t.grad._data + g, t)
    return g


def _tensor_type(data: Any) -> str:
    prefix = "torch." if data.__class__ is np.ndarray else "torch.cuda."
    return f"{prefix}{type_word(data.dtype)}Tensor"


# --- the walk recorder --------------------------------------------------------------------------


def _focused(exc: RuntimeError, root: Any, target: Any) -> RuntimeError:
    """Attach where an autograd error happened: the root whose graph holds the culprit, and
    the culprit (a Node or a tensor). The playground highlights it; the message is PyTorch's."""
    exc.autograd_focus = (root, target)  # type: ignore[attr-defined]
    return exc


def zero_grads(params: Any, set_to_none: bool = True) -> None:
    """What Module.zero_grad and Optimizer.zero_grad do: drop (or zero) each ``.grad``."""
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
        else:
            p.grad._data[...] = 0


class WalkStep:
    """One node's backward as the engine ran it (arrays are snapshots)."""

    __slots__ = ("contributions", "grad_output", "node")

    def __init__(self, node: Node, grad_output: Any) -> None:
        self.node = node
        self.grad_output = grad_output
        # (input position, input tensor, gradient sent, receiver's accumulated gradient)
        self.contributions: list[tuple[int, Any, Any, Any]] = []


class PassLog:
    """What ``record_passes`` collects: one exported graph per backward call (``export`` and
    ``freeze`` are engine.graph's, given by the layer above).

    The first ``max_passes - 1`` passes are exported as they happen (they are always kept).
    Later passes compete for the last place: each is kept only as its walk and copies of what
    export reads that the program may change afterwards (``freeze``: its leaves' values and
    gradients, which an optimizer changes in place), and only the latest of them is exported,
    once, when ``graphs`` is read: a loop of 700 backward passes exports 20 graphs, not 700.
    ``export_s`` and ``freeze_s`` add up the seconds spent in each (bench/layers.py).

    With ``replay`` (engine.replay's), such a pass is not even walked as it runs: the backward
    loop runs as if nothing recorded it and hands over its leaves (:meth:`record_light`). Its
    leaves are frozen, and the walk of the one that turns out to be the latest is made when it
    is exported, by running its backward again on the numbers it had (``replay`` exports the
    latest pass, walked or not, with its leaves' arrays holding their values from then). A
    pass whose backward ran the program's own code (a hook, a custom Function) cannot be run
    again: it, and every pass after it, is walked as it runs.
    """

    def __init__(
        self,
        max_passes: int,
        export: Callable[..., dict[str, Any]],
        freeze: Callable[..., dict[int, Any]] | None = None,
        max_kept_nodes: int | None = None,
        replay: Callable[..., dict[str, Any]] | None = None,
    ) -> None:
        self.export = export
        self.freeze = freeze
        self.replay = replay
        # False once a pass could not be run again (its backward ran the program's code)
        self.replayable = replay is not None and freeze is not None
        self._code = _program_code[0]  # (program_code_added's count at the last pass)
        self.max_passes = max(1, max_passes)
        self.max_kept_nodes = max_kept_nodes
        self.kept_nodes = 0  # nodes of the passes kept as they happened
        self._early: list[dict[str, Any]] = []  # the passes kept as they happened
        self._latest: dict[str, Any] | None = None  # the latest pass after them
        # the latest pass after the early ones, not exported yet: (index, root, its walk or
        # None, node gradients, frozen leaves, what a replay needs or None)
        self._pending: tuple[int, Any, Any, dict[int, Any], dict[int, Any], Any] | None = None
        self.count = 0
        self.unwalked = 0  # passes that ran unwalked (record_light)
        self.root_tensors: list[Any] = []
        self.failures: list[str] = []
        self.export_s = 0.0
        self.freeze_s = 0.0

    def _keeps_another(self) -> bool:
        """Whether the next pass is kept as it happens (else it competes for the last place):
        at most ``max_passes - 1`` of them, holding fewer than ``max_kept_nodes`` nodes before
        it (an unrolled RNN's 700-node passes: a few are drawn, not twenty)."""
        if len(self._early) >= self.max_passes - 1:
            return False
        return self.max_kept_nodes is None or self.kept_nodes < self.max_kept_nodes

    def light(self) -> bool:
        """Whether the next pass may run unwalked (it will not be kept as it happens, and a
        replay can make its walk later): not when the program has registered a hook or called
        a custom Function since the last pass (this one would run them: it is walked)."""
        return self.replayable and _program_code[0] == self._code and not self._keeps_another()

    def record(
        self,
        root: Any,
        steps: list[WalkStep],
        node_grads: dict[int, Any],
        grads: dict[int, Any] | None = None,
    ) -> None:
        """One backward pass has run (called by the backward loop). Drawing it is a bonus: a
        failure to export is kept in ``failures``, never raised into the program. ``grads``:
        arrays the walk holds that equal leaves' ``.grad`` now (a freeze need not copy them)."""
        started = perf_counter()
        self._code = _program_code[0]
        try:
            if self.freeze is None or self._keeps_another():
                graph = self.export(root, steps, node_grads)
                self.export_s += perf_counter() - started
                self.add(graph)
                return
            self._pending = None  # the pass before is not the latest any more: let it go
            self._pending = (
                self.count,
                root,
                steps,
                node_grads,
                self.freeze(root, steps, grads=grads),
                None,
            )
            self.freeze_s += perf_counter() - started
        except TimeoutError:  # the run's clock: the program's end, not a drawing failure
            raise
        except Exception as exc:
            self.failures.append(f"pass {self.count + 1}: {type(exc).__name__}: {exc}")
        self.count += 1

    def record_light(
        self,
        root: Any,
        seed: Any,
        node_grads: dict[int, Any],
        leaves: dict[int, Any] | None,
        before: dict[int, Any] | None,
    ) -> None:
        """One pass ran unwalked (``light()`` was true): ``node_grads`` the gradient each node
        received, ``leaves`` every leaf its nodes read (None if the backward did not reach
        every node the graph draws: the freeze then walks the graph), ``before`` copies of the
        ``.grad`` it summed into, by leaf ``id`` (None if its backward ran the program's code:
        it cannot be run again)."""
        started = perf_counter()
        self._code = _program_code[0]
        try:
            self._pending = None  # the pass before is not the latest any more: let it go
            again = None
            if before is not None and leaves is not None:
                # copies of its leaves' values only (a replay gives their gradients), the
                # gradients they had before it (a replay sums into these), and the arrays they
                # had (a replay puts their values back): one loop, as it runs every pass
                frozen: dict[int, Any] = {}
                sums = []
                arrays = []
                for k, x in leaves.items():
                    data = x._data
                    frozen[k] = (data.copy(), None)
                    arrays.append((x, data))
                    if x.requires_grad:
                        sums.append((x, before.get(k)))
                again = (seed.copy(), sums, arrays)
            else:
                frozen = self.freeze(root, None, leaves=leaves)  # type: ignore[misc]
                self.replayable = False  # walk the passes after this one as they run
            self._pending = (self.count, root, None, node_grads, frozen, again)
            self.unwalked += 1
            self.freeze_s += perf_counter() - started
        except TimeoutError:  # the run's clock: the program's end, not a drawing failure
            raise
        except Exception as exc:
            self.failures.append(f"pass {self.count + 1}: {type(exc).__name__}: {exc}")
        self.count += 1

    def add(self, graph: dict[str, Any]) -> None:
        """Append an exported graph as the next pass: kept if there is room among the first
        ones, else as the latest."""
        self._flush()
        self.count += 1
        graph["pass_index"] = self.count - 1
        if self._keeps_another():
            self._early.append(graph)
            self.kept_nodes += len(graph.get("nodes", ()))
        else:
            self._latest = graph

    def _flush(self) -> None:
        if self._pending is None:
            return
        index, root, steps, node_grads, frozen, again = self._pending
        self._pending = None
        started = perf_counter()
        try:
            if self.replay is not None:
                graph = self.replay(self.export, root, steps, node_grads, frozen, again)
            else:
                graph = self.export(root, steps, node_grads, frozen)
        except Exception as exc:
            self.failures.append(f"pass {index + 1}: {type(exc).__name__}: {exc}")
            return
        finally:
            self.export_s += perf_counter() - started
        replayed = getattr(root, "grad_fn", None) is not None  # (a leaf's pass has no walk)
        if steps is None and again is not None and replayed and not graph.get("walk"):
            self.failures.append(  # (the replay's version check failed: engine.replay)
                f"the backward walk of pass {index + 1}, nor its leaves' gradients: a tensor "
                "it read was changed in place after it ran"
            )
        graph["pass_index"] = index
        self._latest = graph

    @property
    def graphs(self) -> list[dict[str, Any]]:
        """The kept passes in order: the first ones, then the latest."""
        self._flush()
        return self._early + ([self._latest] if self._latest is not None else [])


class _Recorder(threading.local):
    log: PassLog | None = None


_recorder = _Recorder()


@contextmanager
def recording(log: PassLog) -> Iterator[PassLog]:
    """Give every backward pass inside the block to ``log`` (engine.autograd.record_passes)."""
    prev = _recorder.log
    _recorder.log = log
    try:
        yield log
    finally:
        _recorder.log = prev


# --- backward -----------------------------------------------------------------------------------

_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)
_HINT = (
    "Hint: enable anomaly detection to find the operation that failed to compute its "
    "gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False)."
)


def _type_name(t: Tensor) -> str:
    return f"[{_tensor_type(t._data)} [{', '.join(str(s) for s in t._data.shape)}]]"


class _VersionError(RuntimeError):
    def __init__(self, message: str, tensor: Any) -> None:
        super().__init__(message)
        self.tensor = tensor


def _check_versions(node: Node) -> None:
    """PyTorch's saved-tensor version check: an in-place change since forward is an error."""
    saves = node.op.saves
    if node.versions is not None:
        for x, v in zip(node.inputs, node.versions, strict=True):
            cur = getattr(x, "_version", None)
            if cur != v:
                where = ""
                if x.grad_fn is not None:
                    where = f", which is output 0 of {_forward_name(x.grad_fn)},"
                raise _VersionError(
                    "one of the variables needed for gradient computation has been modified "
                    f"by an inplace operation: {_type_name(x)}{where} is at version {cur}; "
                    f"expected version {v} instead. {_HINT}",
                    x,
                )
    if saves == "out" or saves == "both":
        out = node.out() if node.out is not None else None
        if out is not None and out._version != node.out_version:
            raise _VersionError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: {_type_name(out)}, which is output 0 of "
                f"{_forward_name(node)}, is at "
                f"version {out._version}; expected version {node.out_version} instead. {_HINT}",
                node,
            )


def _forward_name(node: Any) -> str:
    """How PyTorch's version-counter message names a node: ``AddBackward0`` -> ``Add``,
    ``FillBackward2`` -> ``Fill2``; other names (``torch::autograd::CopyBackwards``) as they are."""
    name: str = node.name()
    i = name.find("Backward")
    suffix = name[i + len("Backward") :] if i >= 0 else "-"
    if not (suffix == "" or suffix.isdigit()):
        return name
    return name[:i] + ("" if suffix in ("", "0") else suffix)


def sum_to(g: Any, shape: tuple[int, ...], xp: Any = None) -> Any:
    """Sum a broadcast gradient back to ``shape``: the one place un-broadcasting happens, for
    arrays and for recorded tensors alike (``xp`` given for arrays: a bias gradient is then
    one BLAS matrix-vector product, see ops.sum_rows)."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead == 1 and g.ndim == 2 and xp is not None:
        g = sum_rows(xp, g)  # x @ W + b
    elif lead > 0:
        g = g.sum(axis=tuple(range(lead)))
    axes = tuple(
        i for i, (gs, s) in enumerate(zip(g.shape, shape, strict=True)) if s == 1 and gs != 1
    )
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    if g.shape != shape:
        g = g.reshape(shape)
    return g


class Unsupported(Exception):
    """A rule asked the recorded-tensor arithmetic for something it does not provide."""


class TensorRules(Protocol):
    """The arithmetic of a recorded backward (``create_graph=True``, engine.higher): a node's
    rule run on tensors, giving one recorded gradient (or None) per input, already summed to
    the input's shape and cast to its dtype; and how a leaf's ``.grad`` takes a gradient."""

    def vjp(self, node: Node, g: Any, out: Any) -> Sequence[Any]: ...

    def accumulate_leaf(self, leaf: Any, g: Any) -> None: ...


class _Walk:
    """The walk recorder's view of one pass: what each node received and sent (snapshots)."""

    __slots__ = ("final", "node_grads", "shared", "step", "steps", "sums")

    def __init__(self) -> None:
        self.steps: list[WalkStep] = []
        self.node_grads: dict[int, Any] = {}  # id(node) -> the gradient of its output
        # ids of arrays kept uncopied that a leaf's .grad could still become (run_backward
        # gives such a leaf a copy instead: the walk keeps the numbers it was sent)
        self.shared: set[int] = set()
        # id(leaf) -> (its summed gradient, the walk's sum of that and its .grad before)
        self.sums: dict[int, tuple[Any, Any]] = {}
        # id(leaf) -> an array the walk holds that equals the leaf's .grad after the pass
        # (what a freeze would otherwise copy)
        self.final: dict[int, Any] = {}

    def node(self, node: Node, g: Any) -> None:
        g = getattr(g, "_data", g)
        self.node_grads[id(node)] = g
        self.step = WalkStep(node, g)
        self.steps.append(self.step)

    def accumulated(self, leaf: Any, g: Any) -> None:
        """``g`` was added into ``leaf``'s ``.grad`` in place: when the walk's sum for the leaf
        was made of this same ``g`` (the same addition, so the same numbers to the bit), that
        sum is what ``.grad`` holds now."""
        pair = self.sums.get(id(leaf))
        if pair is None or pair[0] is not g or leaf._hooks is not None:
            return
        total, grad = pair[1], leaf.grad._data
        if total.dtype == grad.dtype and total.shape == grad.shape:
            self.final[id(leaf)] = total

    def sent(
        self, i: int, x: Any, gi: Any, total: Any, copy_total: bool, copy: bool, leaf: bool
    ) -> None:
        """A contribution: ``gi`` sent, ``total`` what the receiver holds now. Copied where the
        program may change the array later (``copy``: a gradient that a custom Function's
        backward, a hook or ``autograd.grad``'s caller receives, or that the program gave);
        arrays only the backward loop reads are kept as they are (it never writes into them).
        A ``leaf``'s arrays kept as they are go into ``shared``: the leaf's ``.grad`` becomes
        a copy of such an array, never the array itself. ``copy_total``: ``total`` is such an
        array too (not a sum made for the walk)."""
        gi, total = getattr(gi, "_data", gi), getattr(total, "_data", total)
        if copy:
            kept = gi.copy()
            if copy_total:
                total = kept if total is gi else total.copy()
            gi = kept
        elif leaf:
            self.shared.add(id(gi))
            if copy_total:
                self.shared.add(id(total))
        self.step.contributions.append((i, x, gi, total))


def _hooked(node: Node) -> bool:
    out = node.out() if node.out is not None else None
    return out is not None and out._hooks is not None


_ndarray = np.ndarray
_UNUSED: dict[int, Any] = {}  # (never written: stands for a light pass's dicts in others)
#: NumPy's scalar types: the results of NumPy arithmetic on 0-d arrays (host values).
_HOST_SCALARS = frozenset(
    t for t in np.sctypeDict.values() if isinstance(t, type) and issubclass(t, np.generic)
)


def run_backward(
    roots: Sequence[Tensor],
    grads: Sequence[Any],
    retain_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
    graphed: TensorRules | None = None,
) -> dict[int, Any]:
    """The backward loop. Accumulates into leaves' ``.grad`` (or, for ``grad()``, returns the
    gradients of ``inputs`` keyed by ``id``). ``grads`` are arrays, or, with ``graphed`` (the
    rules on tensors), tensors: the gradients are then recorded and can be differentiated.

    Nodes run in decreasing sequence number, as in PyTorch's engine: every consumer of a node
    was recorded after it, so when a node is popped from the max-heap all of its gradient has
    arrived. Written flat, because it runs once per node.
    """
    log = _recorder.log
    # a pass no one may see runs unwalked (its walk is made again if it turns out the latest):
    # it collects only the gradient each node received and the leaves its nodes read
    light = (
        log is not None
        and accumulate
        and graphed is None
        and inputs is None
        and len(roots) == 1
        and log.light()
    )
    walk = _Walk() if log is not None and not light else None
    light_grads: dict[int, Any] = {} if light else _UNUSED  # (light) id(node) -> its gradient
    leaves: dict[int, Any] | None = {} if light else None  # (light) id(leaf) -> leaf
    replayable = True  # (light) no hook, no custom backward
    before: dict[int, Any] = {} if light else _UNUSED  # (light) id(leaf) -> the .grad it had
    buffers: dict[Node, Any] = {}  # node -> summed upstream gradient
    leaf_grads: dict[Any, Any] = {}  # leaf tensor -> gradient summed in this pass
    owned: dict[Any, bool] = {}  # leaf -> its summed gradient is a fresh array we may keep
    wanted = {id(t) for t in inputs} if inputs is not None else None
    captured: dict[int, Any] = {}
    heap: list[tuple[int, Node]] = []
    for t, g in zip(roots, grads, strict=True):
        fn = t.grad_fn
        if fn is None:  # a leaf root
            leaf_grads[t] = leaf_grads[t] + g if t in leaf_grads else g
            owned[t] = False
            continue
        if fn in buffers:
            buffers[fn] = buffers[fn] + g
        else:
            buffers[fn] = g
            heappush(heap, (-fn.seq, fn))

    pop = buffers.pop
    while heap:
        node = heappop(heap)[1]
        g = pop(node)
        op = node.op
        if node.freed and op.saves:
            raise _focused(RuntimeError(_FREED_MSG), roots[0], node)
        versions = node.versions
        out = node.out()
        try:
            if versions is not None:
                for x, v in zip(node.inputs, versions):  # noqa: B905 - same length
                    if v is not None and x._version != v:
                        _check_versions(node)
                if out is not None and out._version != node.out_version and op.saves == "both":
                    _check_versions(node)
            elif op.saves and (out is None or out._version != node.out_version):
                _check_versions(node)  # saves the output: fine while it is at version 0
        except _VersionError as exc:
            raise _focused(RuntimeError(str(exc)), roots[0], exc.tensor) from None
        if out is not None:
            hooks = out._hooks
            if hooks is not None:
                g = _run_hooks(out, g, hooks, accumulate)
                replayable = False
            if wanted is not None and id(out) in wanted:
                captured[id(out)] = g
        if walk is not None:
            walk.node(node, g)
            if node.custom:
                replayable = False
        elif light:
            light_grads[id(node)] = g
            if node.custom:
                replayable = False
        needs = node.needs
        grads_in: Sequence[Any]
        if graphed is None:
            cls = g.__class__
            xp = np if cls is _ndarray or cls in _HOST_SCALARS else array_module(g)
            grads_in = op.vjp(
                xp, g, out._data if out is not None else None, node.arrays, node.attrs, needs
            )
        else:
            try:
                grads_in = graphed.vjp(node, g, out)
            except Unsupported as exc:
                raise _focused(
                    RuntimeError(
                        "create_graph=True (higher-order gradients) is not supported through "
                        f"{node.name()} in the playground ({exc})"
                    ),
                    roots[0],
                    node,
                ) from None
        if ANOMALY.enabled and ANOMALY.check_nan:
            _check_nan(node, grads_in)
        i = -1
        for gi, need, x in zip(grads_in, needs, node.inputs):  # noqa: B905 - same length
            i += 1
            if gi is None or not need:
                if leaves is not None and getattr(x, "_data", None) is not None:
                    if edge(x, node.seq) is None:
                        leaves[id(x)] = x  # a constant the graph draws (frozen with the rest)
                    else:
                        leaves = None  # a part the backward does not reach: the freeze walks
                continue
            if graphed is None:  # (the tensor rules give gradients already shaped and cast)
                xd = x._data
                if gi.shape != xd.shape:
                    gi = sum_to(gi, xd.shape, xp)
                if gi.dtype != xd.dtype:
                    gi = gi.astype(xd.dtype)
            fn = x.grad_fn if x._fn_history is None else edge(x, node.seq)
            if fn is None:
                if leaves is not None:
                    leaves[id(x)] = x
                if x in leaf_grads:
                    acc = leaf_grads[x] + gi
                    owned[x] = True
                else:
                    acc = gi
                    owned[x] = graphed is None and gi is not g and gi.base is None
                leaf_grads[x] = acc
            elif fn in buffers:
                acc = buffers[fn] = buffers[fn] + gi
            else:
                acc = buffers[fn] = gi
                heappush(heap, (-fn.seq, fn))
            if walk is not None:
                total = getattr(acc, "_data", acc)
                summed = fn is None and accumulate and x.grad is not None
                if summed:
                    total = x.grad._data + total  # a new array: nothing else holds it
                    walk.sums[id(x)] = (acc, total)
                # a node's gradient is read by its rule only, unless a custom Function's
                # backward or a hook receives it (they may write into it); a leaf's, by the
                # accumulation below (which keeps it off the walk), unless a hook or grad()'s
                # caller receives it, or it is the array the backward was seeded with
                if fn is None:
                    copy = x._hooks is not None or wanted is not None or gi is g
                else:
                    copy = fn.custom or _hooked(fn)
                walk.sent(i, x, gi, total, not summed, graphed is not None or copy, fn is None)
        if not retain_graph:
            node.freed = True

    result: dict[int, Any] = {}
    for leaf, g in leaf_grads.items():
        hooks = leaf._hooks
        if hooks is not None and hooks.fns:
            replayable = False
            hooked = _run_hooks(leaf, g, hooks, False)
            if hooked is not g:
                g, owned[leaf] = hooked, False
        if wanted is not None:
            if id(leaf) in wanted:
                result[id(leaf)] = g
            continue
        if not (accumulate and leaf.requires_grad):
            continue
        if graphed is not None:
            graphed.accumulate_leaf(leaf, g)
        elif leaf.grad is None:
            # Keep the array when this pass made it; copy one that is shared or a view, or
            # that the walk holds.
            keep = owned[leaf] and getattr(g.flags, "writeable", True)
            if keep and walk is not None and id(g) in walk.shared:
                keep = False
                if leaf._hooks is None:
                    walk.final[id(leaf)] = g
            leaf.grad = _TensorType._wrap(g if keep else g.copy())
        else:
            if light:  # a replay sums into this again (the walk shows the sums)
                before[id(leaf)] = _kept(leaf.grad._data)
            try:
                leaf.grad._data += g  # in place, as PyTorch's AccumulateGrad
            except (TypeError, ValueError):
                leaf.grad._data = leaf.grad._data + g
            else:
                if walk is not None:
                    walk.accumulated(leaf, g)
    result.update(captured)
    if walk is not None:
        if not replayable:  # it ran the program's code, and so may the passes after it
            log.replayable = False  # type: ignore[union-attr]
        log.record(roots[0], walk.steps, walk.node_grads, walk.final)  # type: ignore[union-attr]
    elif light:
        log.record_light(  # type: ignore[union-attr]
            roots[0], grads[0], light_grads, leaves, before if replayable else None
        )
    return result


def _kept(array: Any) -> Any:
    """A copy of ``array`` that an in-place change to it leaves alone. Gradients zeroed in place
    (``w.grad.zero_()``) each step are all zero bits: those are kept as a broadcast zero, not a
    copy of a weight matrix's worth of zeros each pass. The test reads the array as 64-bit
    words (a fifth of the time of a byte-wise ``any``, half a copy's); below 64 KB a copy
    costs less than the test."""
    if array.__class__ is _ndarray and array.nbytes >= ZERO_TEST_BYTES and array.flags.c_contiguous:
        nbytes = array.nbytes
        words = array.reshape(-1).view(np.uint64 if nbytes % 8 == 0 else np.uint8)
        if not _bits_or(words):  # every bit zero: +0.0 everywhere (not -0.0)
            key = (array.dtype, array.shape)
            zero = _ZEROS.get(key)
            if zero is None:
                if len(_ZEROS) > 64:
                    _ZEROS.clear()
                zero = _ZEROS[key] = np.broadcast_to(np.zeros((), array.dtype), array.shape)
            return zero
    return array.copy()


#: the size from which :func:`_kept` tests an array for all-zero bits before copying it
ZERO_TEST_BYTES = 1 << 16
_bits_or = np.bitwise_or.reduce
#: read-only broadcast zeros by (dtype, shape), shared by every pass that kept one
_ZEROS: dict[tuple[Any, Any], Any] = {}


#: the Tensor class (engine.tensor sets it: this layer knows no Tensor); gradients are plain
#: tensors even for a Parameter
_TensorType: Any = None


def _wrap_grad(g: Any, like: Tensor) -> Tensor:
    return _TensorType._wrap(g)


def seed_grads(roots: Sequence[Tensor], grad_tensors: Sequence[Any]) -> list[Any]:
    """The arrays a backward starts from: ones for a scalar root, else the given gradients,
    checked as PyTorch checks them."""
    grads = []
    for i, (t, g) in enumerate(zip(roots, grad_tensors, strict=True)):
        if not t.requires_grad:
            raise _focused(
                RuntimeError(
                    f"element {i} of tensors does not require grad and does not have a grad_fn"
                ),
                t,
                t,
            )
        if g is None:
            if t._data.size != 1:
                raise _focused(
                    RuntimeError("grad can be implicitly created only for scalar outputs"), t, t
                )
            if not t._data.dtype.kind == "f":
                raise RuntimeError(
                    f"grad can be implicitly created only for real scalar outputs but got {t.dtype}"
                )
            xp = array_module(t._data)
            grads.append(xp.ones(t._data.shape, dtype=t._data.dtype))
        else:
            g_arr = (
                g._data
                if isinstance(g, _TensorType)
                else array_module(t._data).asarray(g, dtype=t._data.dtype)
            )
            if g_arr.shape != t._data.shape:
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"torch.Size({list(g_arr.shape)}) and output[{i}] has a shape of "
                    f"torch.Size({list(t._data.shape)})."
                )
            grads.append(g_arr.astype(t._data.dtype, copy=False))
    return grads
