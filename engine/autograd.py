"""Reverse-mode autodiff: grad mode, graph nodes, the backward loop, and the walk recorder.

The backward loop is the one place that (1) orders the graph, (2) sums each rule's gradient
back to its input's shape, (3) accumulates gradients, and (4) records the walk the UI replays.
Recording costs one ``is not None`` test per node when it is off.
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

import numpy as np

from engine.backend import array_module
from engine.dtypes import type_word
from engine.ops import sum_rows

if TYPE_CHECKING:
    from engine.ops import Op
    from engine.tensor import Tensor

# --- grad mode ----------------------------------------------------------------------------------


class _GradMode(threading.local):
    enabled = True


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
        "needs",
        "op",
        "out",
        "out_value",
        "out_version",
        "seq",
        "versions",
    )
    out_value: Any  # set only when the output was later changed in place (see Tensor._shadow)

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
        self.seq = next(_seq)
        self.freed = False
        self._name = name
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
        out = []
        for x in self.inputs:
            if getattr(x, "requires_grad", False):
                fn = x.grad_fn if x.grad_fn is not None else AccumulateGrad(x)
                out.append((fn, 0))
            else:
                out.append((None, 0))
        return tuple(out)

    def type_name(self) -> str:
        """The name PyTorch's reprs show: its node's Python type (``CopyBackwards`` for
        ``torch::autograd::CopyBackwards``)."""
        return self.name().rsplit("::", 1)[-1]

    def __repr__(self) -> str:
        return f"<{self.type_name()} object at {id(self):#x}>"


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
    """What ``record_passes`` collects: one exported graph per backward call.

    The first ``max_passes - 1`` passes are exported as they happen (they are always kept).
    Later passes compete for the last place, so each is only *frozen* (its leaves' values and
    gradients copied, since an optimizer changes them in place) and exported when ``graphs``
    is read: a loop of 700 backward passes exports 20 graphs, not 700.
    """

    def __init__(self, max_passes: int) -> None:
        self.max_passes = max(1, max_passes)
        self._graphs: list[dict[str, Any]] = []
        self._pending: tuple[int, Any, list[WalkStep], dict[int, Any], dict[int, Any]] | None = None
        self.count = 0
        self.root_tensors: list[Any] = []

    def record(self, root: Any, steps: list[WalkStep], node_grads: dict[int, Any]) -> None:
        """One backward pass has run (called by the backward loop)."""
        from engine.graph import export, freeze_leaves

        index = self.count
        self.count += 1
        if len(self._graphs) < self.max_passes - 1:
            graph = export(root, steps, node_grads)
            graph["pass_index"] = index
            self._graphs.append(graph)
        else:
            self._pending = (index, root, steps, node_grads, freeze_leaves(root))

    def add(self, graph: dict[str, Any]) -> None:
        """Append an already exported graph as the next pass."""
        self._flush()
        self.count += 1
        graph["pass_index"] = self.count - 1
        if len(self._graphs) < self.max_passes:
            self._graphs.append(graph)
        else:  # keep the first max_passes-1 and the latest
            self._graphs[self.max_passes - 1 :] = [graph]

    def _flush(self) -> None:
        if self._pending is None:
            return
        from engine.graph import export

        index, root, steps, node_grads, frozen = self._pending
        self._pending = None
        graph = export(root, steps, node_grads, frozen)
        graph["pass_index"] = index
        self._graphs[self.max_passes - 1 :] = [graph]

    @property
    def graphs(self) -> list[dict[str, Any]]:
        self._flush()
        return self._graphs


class _Recorder(threading.local):
    log: PassLog | None = None


_recorder = _Recorder()


@contextmanager
def record_passes(max_passes: int = 8) -> Iterator[PassLog]:
    """Record every backward pass inside the block as an exported graph (see graph.py)."""
    prev = _recorder.log
    log = PassLog(max_passes)
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
    kind = type_word(t._data.dtype)
    prefix = "torch." if t._data.__class__ is np.ndarray else "torch.cuda."
    return f"[{prefix}{kind}Tensor [{', '.join(str(s) for s in t._data.shape)}]]"


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


def _sum_to(g: Any, shape: tuple[int, ...]) -> Any:
    """Sum a broadcast gradient back to ``shape`` (the one place un-broadcasting happens)."""
    if g.shape == shape:
        return g
    lead = g.ndim - len(shape)
    if lead == 1 and g.ndim == 2:
        g = sum_rows(np if g.__class__ is np.ndarray else array_module(g), g)  # x @ W + b
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


_ndarray = np.ndarray
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
) -> dict[int, Any]:
    """The backward loop. Accumulates into leaves' ``.grad`` (or, for ``grad()``, returns the
    gradients of ``inputs`` keyed by ``id``).

    Nodes run in decreasing sequence number, as in PyTorch's engine: every consumer of a node
    was recorded after it, so when a node is popped from the max-heap all of its gradient has
    arrived. Written flat, because it runs once per node.
    """
    log = _recorder.log
    steps: list[WalkStep] | None = [] if log is not None else None
    buffers: dict[Node, Any] = {}  # node -> summed upstream gradient
    leaf_grads: dict[Any, Any] = {}  # leaf tensor -> gradient summed in this pass
    owned: dict[Any, bool] = {}  # leaf -> its summed gradient is a fresh array we may keep
    wanted = {id(t) for t in inputs} if inputs is not None else None
    captured: dict[int, Any] = {}
    node_grads: dict[int, Any] = {}  # for the recorder: total gradient of each node's output
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
            if wanted is not None and id(out) in wanted:
                captured[id(out)] = g
            if out._retains_grad and accumulate:
                out.grad = _wrap_grad(g.copy() if out.grad is None else out.grad._data + g, out)
            if steps is not None:
                node_grads[id(node)] = g
        needs = node.needs
        cls = g.__class__
        xp = np if cls is _ndarray or cls in _HOST_SCALARS else array_module(g)
        grads_in = op.vjp(
            xp, g, out._data if out is not None else None, node.arrays, node.attrs, needs
        )
        step = WalkStep(node, g) if steps is not None else None
        i = -1
        for gi, need, x in zip(grads_in, needs, node.inputs):  # noqa: B905 - same length
            i += 1
            if gi is None or not need:
                continue
            xd = x._data
            if gi.shape != xd.shape:
                gi = _sum_to(gi, xd.shape)
            if gi.dtype != xd.dtype:
                gi = gi.astype(xd.dtype)
            fn = x.grad_fn
            if fn is None:
                if x in leaf_grads:
                    acc = leaf_grads[x] + gi
                    owned[x] = True
                else:
                    acc = gi
                    owned[x] = gi is not g and gi.base is None
                leaf_grads[x] = acc
            elif fn in buffers:
                acc = buffers[fn] = buffers[fn] + gi
            else:
                acc = buffers[fn] = gi
                heappush(heap, (-fn.seq, fn))
            if step is not None:
                total = acc
                if fn is None and accumulate and x.grad is not None:
                    total = x.grad._data + acc
                step.contributions.append((i, x, gi.copy(), total.copy()))
        if step is not None and steps is not None:
            steps.append(step)
        if not retain_graph:
            node.freed = True

    result: dict[int, Any] = {}
    for leaf, g in leaf_grads.items():
        if wanted is not None:
            if id(leaf) in wanted:
                result[id(leaf)] = g
            continue
        if accumulate and leaf.requires_grad:
            if leaf.grad is None:
                # Keep the array when this pass made it; copy one that is shared or a view.
                keep = owned[leaf] and getattr(g.flags, "writeable", True)
                leaf.grad = _wrap_grad(g if keep else g.copy(), leaf)
            else:
                try:
                    leaf.grad._data += g  # in place, as PyTorch's AccumulateGrad
                except (TypeError, ValueError):
                    leaf.grad._data = leaf.grad._data + g
    result.update(captured)
    if log is not None and steps is not None:
        log.record(roots[0], steps, node_grads)
    return result


def _wrap_grad(g: Any, like: Tensor) -> Tensor:
    return like.__class__._wrap(g)


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """torch.autograd.backward."""
    from engine.tensor import Tensor

    if grad_tensors is None and tensors.__class__ is Tensor and not create_graph:
        # The common case, ``loss.backward()``: a scalar float root seeded with 1.
        d = tensors._data  # type: ignore[union-attr]
        if tensors.requires_grad and d.size == 1 and d.dtype.kind == "f":  # type: ignore[union-attr]
            xp = np if d.__class__ is np.ndarray else array_module(d)
            run_backward((tensors,), (xp.ones(d.shape, d.dtype),), bool(retain_graph))  # type: ignore[arg-type]
            return
    roots = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    if grad_tensors is None or isinstance(grad_tensors, Tensor):
        grad_tensors = [grad_tensors] * len(roots)
    grads = _seed_grads(roots, list(grad_tensors))
    if create_graph:
        from engine.higher import run_backward_graph

        run_backward_graph(roots, _seed_tensors(list(grad_tensors), grads))
        return
    run_backward(roots, grads, bool(retain_graph))


def _seed_tensors(given: list[Any], arrays: list[Any]) -> list[Tensor]:
    """Seeds for a recorded backward: the caller's tensors (they may require grad), else the
    checked arrays as constants."""
    from engine.tensor import Tensor

    seeds = []
    for g, arr in zip(given, arrays, strict=True):
        if isinstance(g, Tensor):
            seeds.append(g if g._data.dtype == arr.dtype else g.to(Tensor._wrap(arr).dtype))
        else:
            seeds.append(Tensor._wrap(arr))
    return seeds


def _seed_grads(roots: list[Tensor], grad_tensors: list[Any]) -> list[Any]:
    from engine.tensor import Tensor

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
                if isinstance(g, Tensor)
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


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """torch.autograd.grad: gradients of outputs w.r.t. inputs, leaving ``.grad`` untouched."""
    from engine.tensor import Tensor

    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    ins = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    if grad_outputs is None or isinstance(grad_outputs, Tensor):
        grad_outputs = [grad_outputs] * len(outs)
    seeds = _seed_grads(outs, list(grad_outputs))
    if create_graph:
        from engine.higher import run_backward_graph

        graphed = _seed_tensors(list(grad_outputs), seeds)
        found: dict[int, Any] = run_backward_graph(outs, graphed, inputs=ins, accumulate=False)
    else:
        found = run_backward(outs, seeds, bool(retain_graph), inputs=ins, accumulate=False)
    result: list[Tensor | None] = []
    for i, t in enumerate(ins):
        g = found.get(id(t))
        if g is None:
            if materialize_grads:
                result.append(Tensor._wrap(array_module(t._data).zeros_like(t._data)))
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        elif isinstance(g, Tensor):  # create_graph: a recorded gradient
            result.append(g)
        else:
            result.append(
                Tensor._wrap(
                    np.asarray(g) if g.__class__ is not np.ndarray and array_module(g) is np else g
                )
            )
    return tuple(result)


def set_detect_anomaly(mode: bool, check_nan: bool = True) -> None:
    """Accepted for compatibility; the engine always names the failing node."""


class detect_anomaly:
    def __init__(self, check_nan: bool = True) -> None:
        pass

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        pass
