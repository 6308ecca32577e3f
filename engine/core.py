"""The autograd core: grad mode, graph nodes, tensor hooks, and the one backward loop.

The backward loop (:func:`run_backward`) is the one place that (1) orders the graph, (2) sums
each rule's gradient back to its input's shape (:func:`sum_to`), (3) accumulates gradients and
runs tensor hooks, and (4) tells an observer what happened (:class:`PassObserver`: the
playground's recorder; one ``is not None`` test per node when none is watching). It runs the op table's rules on arrays for a
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
    recorder.graph names, nests and labels the calls from the nodes that recorded them."""

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
#: custom Function called): the pass after such a change is walked as it runs (program_code)
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


# --- observers of the backward loop (the playground's recorder) ---------------------------------


class Walk(Protocol):
    """One pass as an observer walks it: the loop calls it as it runs the pass."""

    def node(self, node: Node, g: Any) -> None:
        """``node`` runs its rule on ``g``, its output's gradient (after the output's hooks)."""

    def sent(self, i: int, x: Any, gi: Any, acc: Any, fn: Node | None, g: Any) -> None:
        """``node``'s rule sent ``gi`` to its input ``i``, ``x`` (shaped and cast to it); ``acc``
        is what ``x``'s node (``fn``) or, for a leaf (``fn`` None), the pass holds for it now;
        ``g`` is what the node received (a rule may send it on as it is)."""

    def keeps(self, leaf: Any, g: Any) -> bool:
        """Whether ``leaf``'s new ``.grad`` may be the array ``g`` itself (False: the observer
        holds it uncopied, and the leaf is given a copy)."""
        return True

    def accumulated(self, leaf: Any, g: Any) -> None:
        """``g`` was added into ``leaf``'s ``.grad`` in place."""


class PassObserver(Protocol):
    """Who watches the backward passes run inside :func:`observing`: the loop tells it what ran,
    and knows nothing else of it (the playground's recorder is one, ``recorder.PassLog``)."""

    def light(self) -> bool:
        """Whether the next pass may run unwalked: the loop then collects only the gradient
        each node received and the leaves its nodes read (:meth:`ran_light`)."""
        return False

    def walk(self, accumulate: bool, grad_call: bool, graphed: bool) -> Walk:
        """A walk for the next pass (``grad_call``: ``autograd.grad``'s, whose caller receives
        the gradients; ``graphed``: ``create_graph=True``'s, whose gradients are tensors)."""
        ...

    def walked(self, root: Any, walk: Walk, replayable: bool) -> None:
        """The walked pass from ``root`` has run (``replayable``: it ran none of the program's
        code, no hook, no custom backward)."""

    def ran_light(
        self,
        root: Any,
        seed: Any,
        node_grads: dict[int, Any],
        leaves: dict[int, Any] | None,
        before: dict[int, Any] | None,
    ) -> None:
        """A pass ran unwalked: ``node_grads`` the gradient each node received, by ``id``;
        ``leaves`` every leaf its nodes read (None if the backward did not reach every node
        the graph draws); ``before`` the ``.grad`` arrays it summed into as they were, made by
        :meth:`kept` (None if it ran the program's code)."""

    def kept(self, array: Any) -> Any:
        """A copy of ``array`` that an in-place change to it leaves alone."""
        ...


class _Observers(threading.local):
    current: PassObserver | None = None


_observers = _Observers()


@contextmanager
def observing(observer: PassObserver) -> Iterator[PassObserver]:
    """Tell ``observer`` of every backward pass run inside the block (in this thread)."""
    prev = _observers.current
    _observers.current = observer
    try:
        yield observer
    finally:
        _observers.current = prev


def program_code() -> int:
    """How many times the program has put its own code into backward passes (a hook
    registered, a custom Function called): an observer that may run a pass again needs to
    know that a pass ran none."""
    return _program_code[0]


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


def _check_versions(node: Node, root: Any) -> None:
    """PyTorch's saved-tensor version check: an in-place change since forward is an error
    (focused on the tensor changed, in ``root``'s graph)."""
    try:
        _versions_hold(node)
    except _VersionError as exc:
        raise _focused(RuntimeError(str(exc)), root, exc.tensor) from None


def _versions_hold(node: Node) -> None:
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
    arrived. An observer (:func:`observing`) is told what ran: through a walk, or, for a pass
    it lets run light, as the gradient each node received.
    """
    observer = _observers.current
    # a plain ``backward()`` may run light, when the observer lets it
    light = (
        observer is not None
        and accumulate
        and graphed is None
        and inputs is None
        and len(roots) == 1
        and observer.light()
    )
    walk = None
    if observer is not None and not light:
        walk = observer.walk(accumulate, inputs is not None, graphed is not None)
    buffers: dict[Node, Any] = {}  # node -> summed upstream gradient
    leaf_grads: dict[Any, Any] = {}  # leaf tensor -> gradient summed in this pass
    owned: dict[Any, bool] = {}  # leaf -> its summed gradient is a fresh array we may keep
    heap = _seeded(roots, grads, buffers, leaf_grads, owned)
    wanted = {id(t) for t in inputs} if inputs is not None else None
    captured: dict[int, Any] = {}  # (grad()) id(non-leaf input) -> its gradient
    light_grads: dict[int, Any] = {} if light else _UNUSED  # (light) id(node) -> its gradient
    leaves: dict[int, Any] | None = {} if light else None  # (light) id(leaf) -> leaf
    replayable, leaves = _run_nodes(
        heap, buffers, leaf_grads, owned, roots[0], retain_graph, accumulate, graphed,
        wanted, captured, walk, light, light_grads, leaves,
    )  # fmt: skip
    before: dict[int, Any] | None = {} if light else None  # (light) id(leaf) -> its old .grad
    result, replayable = _leaves_done(
        leaf_grads, owned, wanted, accumulate, graphed, walk, observer, before, replayable
    )
    result.update(captured)
    if walk is not None:
        observer.walked(roots[0], walk, replayable)  # type: ignore[union-attr]
    elif light:
        observer.ran_light(  # type: ignore[union-attr]
            roots[0], grads[0], light_grads, leaves, before if replayable else None
        )
    return result


def _run_nodes(
    heap: list[tuple[int, Node]],
    buffers: dict[Node, Any],
    leaf_grads: dict[Any, Any],
    owned: dict[Any, bool],
    root: Any,
    retain_graph: bool,
    accumulate: bool,
    graphed: TensorRules | None,
    wanted: set[int] | None,
    captured: dict[int, Any],
    walk: Walk | None,
    light: bool,
    light_grads: dict[int, Any],
    leaves: dict[int, Any] | None,
) -> tuple[bool, dict[int, Any] | None]:
    """The loop over the nodes, latest first: each node's version checks, its output's hooks,
    its rule, and each gradient it sends summed to its input's shape and into the input's
    node (or the pass's sum for a leaf). Written flat, because it runs once per node. Returns
    whether no hook or custom backward ran, and the leaves of a light pass (None if it could
    not list them)."""
    replayable = True
    pop = buffers.pop
    while heap:
        node = heappop(heap)[1]
        g = pop(node)
        op = node.op
        if node.freed and op.saves:
            raise _focused(RuntimeError(_FREED_MSG), root, node)
        versions = node.versions
        out = node.out()
        if versions is not None:
            for x, v in zip(node.inputs, versions):  # noqa: B905 - same length
                if v is not None and x._version != v:
                    _check_versions(node, root)
            if out is not None and out._version != node.out_version and op.saves == "both":
                _check_versions(node, root)
        elif op.saves and (out is None or out._version != node.out_version):
            _check_versions(node, root)  # saves the output: fine while it is at version 0
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
            grads_in = _graphed_vjp(graphed, node, g, out, root)
        if ANOMALY.enabled and ANOMALY.check_nan:
            _check_nan(node, grads_in)
        i = -1
        for gi, need, x in zip(grads_in, needs, node.inputs):  # noqa: B905 - same length
            i += 1
            if gi is None or not need:
                if leaves is not None and getattr(x, "_data", None) is not None:
                    leaves = _unsent(leaves, x, node.seq)
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
                walk.sent(i, x, gi, acc, fn, g)
        if not retain_graph:
            node.freed = True
    return replayable, leaves


def _seeded(
    roots: Sequence[Tensor],
    grads: Sequence[Any],
    buffers: dict[Node, Any],
    leaf_grads: dict[Any, Any],
    owned: dict[Any, bool],
) -> list[tuple[int, Node]]:
    """The loop's max-heap of nodes, holding the roots' nodes with their seed gradients in
    ``buffers`` (a root that is a leaf has its seed in ``leaf_grads``)."""
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
    return heap


def _graphed_vjp(graphed: TensorRules, node: Node, g: Any, out: Any, root: Any) -> Sequence[Any]:
    """A node's rule on tensors (``create_graph=True``), or PyTorch's kind of error."""
    try:
        return graphed.vjp(node, g, out)
    except Unsupported as exc:
        raise _focused(
            RuntimeError(
                "create_graph=True (higher-order gradients) is not supported through "
                f"{node.name()} in the playground ({exc})"
            ),
            root,
            node,
        ) from None


def _unsent(leaves: dict[int, Any], x: Any, seq: int) -> dict[int, Any] | None:
    """(light) An input that was sent no gradient: a constant the graph draws is one of the
    pass's leaves (frozen with the rest); a part the backward does not reach means the pass
    cannot list its leaves (None: the freeze walks the graph)."""
    if edge(x, seq) is None:
        leaves[id(x)] = x
        return leaves
    return None


def _leaves_done(
    leaf_grads: dict[Any, Any],
    owned: dict[Any, bool],
    wanted: set[int] | None,
    accumulate: bool,
    graphed: TensorRules | None,
    walk: Walk | None,
    observer: PassObserver | None,
    before: dict[int, Any] | None,
    replayable: bool,
) -> tuple[dict[int, Any], bool]:
    """The pass's end: each leaf's summed gradient through its hooks, then into its ``.grad``
    (or, for ``grad()``, into the result by ``id``). ``before`` (a light pass) collects the
    ``.grad`` arrays summed into as they were. Returns the result and whether the pass still
    ran none of the program's code."""
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
            if keep and walk is not None:
                keep = walk.keeps(leaf, g)
            leaf.grad = _TensorType._wrap(g if keep else g.copy())
        else:
            if before is not None:  # a replay sums into this again (the walk shows the sums)
                before[id(leaf)] = observer.kept(leaf.grad._data)  # type: ignore[union-attr]
            try:
                leaf.grad._data += g  # in place, as PyTorch's AccumulateGrad
            except (TypeError, ValueError):
                leaf.grad._data = leaf.grad._data + g
            else:
                if walk is not None:
                    walk.accumulated(leaf, g)
    return result, replayable


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
