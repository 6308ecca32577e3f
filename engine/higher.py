"""Higher-order gradients: the backward pass with ``create_graph=True``.

The VJP rules in :mod:`engine.ops` are written for arrays (``xp`` is NumPy or CuPy). Here they
run unchanged on *tensors*: :class:`_Arr` shows a tensor through the small part of NumPy's
array interface the rules use, and :data:`XP` stands in for the array module. Every operation
a rule performs is then an engine operation, recorded in the graph, so the gradients this pass
returns have a ``grad_fn`` and can be differentiated again (``d²y/dx²``), as in PyTorch.

A rule that needs something the facade does not offer (indexed writes, say) raises
:class:`Unsupported`, reported as a RuntimeError naming the node. The plain backward loop in
:mod:`engine.autograd` stays as it is: this path runs only when ``create_graph=True``.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from heapq import heappop, heappush
from typing import TYPE_CHECKING, Any

import numpy as np

from engine import dtypes

if TYPE_CHECKING:
    from engine.autograd import Node
    from engine.tensor import Tensor


class Unsupported(Exception):
    """A VJP rule asked the tensor facade for something it does not provide."""


def _tensor_cls() -> Any:
    from engine.tensor import Tensor

    return Tensor


def _t(x: Any) -> Any:
    """The tensor behind x (a facade, a tensor, a host array) or x itself (a Python scalar)."""
    if isinstance(x, _Arr):
        return x.t
    if isinstance(x, np.ndarray | np.generic):
        return _tensor_cls()._wrap(np.asarray(x))
    return x


def _wrap(x: Any) -> Any:
    return _Arr(x) if isinstance(x, _tensor_cls()) else x


class _Arr:
    """A tensor seen as an array by ops.py's VJP rules (operations stay recorded)."""

    __slots__ = ("t",)
    __array_priority__ = 2000  # NumPy scalars defer to our reflected operators

    def __init__(self, t: Tensor) -> None:
        self.t = t

    # -- array attributes -------------------------------------------------------------------
    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.t._data.shape)

    @property
    def ndim(self) -> int:
        return int(self.t._data.ndim)

    @property
    def size(self) -> int:
        return int(self.t._data.size)

    @property
    def dtype(self) -> Any:
        return self.t._data.dtype

    @property
    def T(self) -> _Arr:
        return _Arr(self.t.permute(*range(self.ndim - 1, -1, -1)))

    def reshape(self, *shape: Any) -> _Arr:
        if len(shape) == 1 and isinstance(shape[0], tuple | list):
            shape = tuple(shape[0])
        return _Arr(self.t.reshape(*shape))

    def sum(self, axis: Any = None, keepdims: bool = False) -> _Arr:
        if axis is None:
            total = self.t.sum()
            return _Arr(total.reshape(*([1] * self.ndim)) if keepdims else total)
        return _Arr(self.t.sum(dim=axis, keepdim=keepdims))

    def mean(self, axis: Any = None, keepdims: bool = False) -> _Arr:
        if axis is None:
            total = self.t.mean()
            return _Arr(total.reshape(*([1] * self.ndim)) if keepdims else total)
        return _Arr(self.t.mean(dim=axis, keepdim=keepdims))

    def astype(self, dtype: Any, copy: bool = True) -> _Arr:
        return _Arr(self.t.to(dtypes.from_numpy(np.dtype(dtype))))

    def copy(self) -> _Arr:
        return _Arr(self.t.clone())

    def __getitem__(self, key: Any) -> _Arr:
        if isinstance(key, tuple):
            key = tuple(_t(k) for k in key)
        return _Arr(self.t[_t(key)])

    def __setitem__(self, key: Any, value: Any) -> None:
        if key is not Ellipsis:  # only the "fill a fresh array" idiom (ops._filled)
            raise Unsupported("indexed assignment")
        v = _t(value)
        if not isinstance(v, _tensor_cls()):
            v = _tensor_cls()._wrap(np.full(self.shape, v, dtype=self.dtype))
        self.t = v.expand(*self.shape) + 0 if tuple(v.shape) != self.shape else v

    # -- arithmetic (recorded) --------------------------------------------------------------
    def __add__(self, o: Any) -> _Arr:
        return _Arr(self.t + _t(o))

    def __radd__(self, o: Any) -> _Arr:
        return _Arr(_t(o) + self.t)

    def __sub__(self, o: Any) -> _Arr:
        return _Arr(self.t - _t(o))

    def __rsub__(self, o: Any) -> _Arr:
        return _Arr(_t(o) - self.t)

    def __mul__(self, o: Any) -> _Arr:
        return _Arr(self.t * _t(o))

    def __rmul__(self, o: Any) -> _Arr:
        return _Arr(_t(o) * self.t)

    def __truediv__(self, o: Any) -> _Arr:
        return _Arr(self.t / _t(o))

    def __rtruediv__(self, o: Any) -> _Arr:
        return _Arr(_t(o) / self.t)

    def __pow__(self, o: Any) -> _Arr:
        return _Arr(self.t ** _t(o))

    def __rpow__(self, o: Any) -> _Arr:
        return _Arr(_t(o) ** self.t)

    def __matmul__(self, o: Any) -> _Arr:
        return _Arr(self.t @ _t(o))

    def __rmatmul__(self, o: Any) -> _Arr:
        return _Arr(_t(o) @ self.t)

    def __neg__(self) -> _Arr:
        return _Arr(-self.t)

    # comparisons and logic give masks: constants, as in the array rules
    def __gt__(self, o: Any) -> _Arr:
        return _Arr(self.t > _t(o))

    def __ge__(self, o: Any) -> _Arr:
        return _Arr(self.t >= _t(o))

    def __lt__(self, o: Any) -> _Arr:
        return _Arr(self.t < _t(o))

    def __le__(self, o: Any) -> _Arr:
        return _Arr(self.t <= _t(o))

    def __eq__(self, o: Any) -> _Arr:  # type: ignore[override]
        return _Arr(self.t == _t(o))

    def __ne__(self, o: Any) -> _Arr:  # type: ignore[override]
        return _Arr(self.t != _t(o))

    def __and__(self, o: Any) -> _Arr:
        return _Arr(self.t & _t(o))

    def __or__(self, o: Any) -> _Arr:
        return _Arr(self.t | _t(o))

    def __invert__(self) -> _Arr:
        return _Arr(~self.t)

    __hash__ = None  # type: ignore[assignment]


class _XP:
    """The array module for the facade: each function an engine operation."""

    def __getattr__(self, name: str) -> Any:
        raise Unsupported(f"xp.{name}")

    @staticmethod
    def _fn(name: str) -> Any:
        import engine

        return getattr(engine, name)

    def where(self, c: Any, a: Any, b: Any) -> _Arr:
        from engine.factories import tensor
        from engine.functions import where

        cls = _tensor_cls()
        cond = _t(c)
        if not isinstance(cond, cls):
            cond = tensor(bool(cond))
        a_t, b_t = _t(a), _t(b)
        like = a_t if isinstance(a_t, cls) else b_t
        if not isinstance(a_t, cls):  # a Python number: a constant of the other side's dtype
            a_t = tensor(a_t, dtype=like.dtype)
        if not isinstance(b_t, cls):
            b_t = tensor(b_t, dtype=like.dtype)
        return _Arr(where(cond, a_t, b_t))

    def _unary(self, name: str, a: Any) -> _Arr:
        return _Arr(self._fn(name)(_t(a)))

    def exp(self, a: Any) -> _Arr:
        return self._unary("exp", a)

    def log(self, a: Any) -> _Arr:
        return self._unary("log", a)

    def log1p(self, a: Any) -> _Arr:
        return self._unary("log1p", a)

    def expm1(self, a: Any) -> _Arr:
        return self._unary("expm1", a)

    def sqrt(self, a: Any) -> _Arr:
        return self._unary("sqrt", a)

    def sin(self, a: Any) -> _Arr:
        return self._unary("sin", a)

    def cos(self, a: Any) -> _Arr:
        return self._unary("cos", a)

    def tanh(self, a: Any) -> _Arr:
        return self._unary("tanh", a)

    def sinh(self, a: Any) -> _Arr:
        return self._unary("sinh", a)

    def cosh(self, a: Any) -> _Arr:
        return self._unary("cosh", a)

    def abs(self, a: Any) -> _Arr:
        return self._unary("abs", a)

    def sign(self, a: Any) -> _Arr:
        return self._unary("sign", a)

    def erf(self, a: Any) -> _Arr:  # engine.backend.erf(xp, a) asks the array module first
        return self._unary("erf", a)

    def index_add(self, target: Any, index: Any, values: Any) -> None:
        raise Unsupported("scatter-add (engine.backend.index_add)")

    def maximum(self, a: Any, b: Any) -> _Arr:
        return self.where(_t(a) >= _t(b), a, b)  # a mask whichever side is the tensor

    def minimum(self, a: Any, b: Any) -> _Arr:
        return self.where(_t(a) <= _t(b), a, b)

    def zeros_like(self, a: Any) -> _Arr:
        return _Arr(self._fn("zeros_like")(_t(a)))

    def zeros(self, shape: Any, dtype: Any = None) -> _Arr:
        return _Arr(_tensor_cls()._wrap(np.zeros(shape, dtype=dtype or np.float32)))

    def ones(self, shape: Any, dtype: Any = None) -> _Arr:
        return _Arr(_tensor_cls()._wrap(np.ones(shape, dtype=dtype or np.float32)))

    def empty(self, shape: Any, dtype: Any = None) -> _Arr:
        return self.zeros(shape, dtype)

    def expand_dims(self, a: Any, axis: int) -> _Arr:
        return _Arr(_t(a).unsqueeze(axis))

    def swapaxes(self, a: Any, i: int, j: int) -> _Arr:
        return _Arr(_t(a).transpose(i, j))

    def transpose(self, a: Any, axes: Any = None) -> _Arr:
        t = _t(a)
        return _Arr(t.permute(*(axes if axes is not None else range(t.dim() - 1, -1, -1))))

    def broadcast_to(self, a: Any, shape: Any) -> _Arr:
        return _Arr(_t(a).expand(*shape))

    def split(self, a: Any, bounds: Any, axis: int = 0) -> list[_Arr]:
        t = _t(a)
        d = axis % t.dim()
        edges = [0, *(int(b) for b in bounds), t.shape[d]]
        lead = (slice(None),) * d
        return [_Arr(t[(*lead, slice(lo, hi))]) for lo, hi in itertools.pairwise(edges)]

    def take(self, a: Any, i: int, axis: int = 0) -> _Arr:
        t = _t(a)
        return _Arr(t[(slice(None),) * (axis % t.dim()) + (i,)])

    def outer(self, a: Any, b: Any) -> _Arr:
        return _Arr(_t(a).reshape(-1, 1) * _t(b).reshape(1, -1))


XP = _XP()


def _to_vjp(node: Node, g: _Arr, xs: Any) -> tuple[Any, ...]:
    """TO_COPY (dtype and device casts): the gradient goes back to the input's dtype and
    device (the array rule moves host/device arrays, which a tensor does with .to)."""
    x = xs[0].t
    return (_Arr(g.t.to(device=x.device, dtype=x.dtype)),)


def _getitem_vjp(node: Node, g: _Arr, xs: Any) -> tuple[Any, ...]:
    """Indexing: g scattered into zeros by the SCATTER op, whose own backward indexes again."""
    from engine import ops
    from engine.tensor import apply

    x = xs[0].t
    at = node.attrs or {}
    attrs = {"shape": tuple(x.shape), "index": at["index"], "advanced": at["advanced"]}
    name = {
        "SliceBackward0": "SliceBackwardBackward0",
        "SelectBackward0": "SelectBackwardBackward0",
    }
    return (_Arr(apply(ops.SCATTER, (g.t,), attrs, name=name.get(node.name()))),)


def _nll_vjp(node: Node, g: _Arr, xs: Any) -> tuple[Any, ...]:
    """NLL loss: -g (scaled for the mean) scattered to each row's target class."""
    from engine import ops
    from engine.tensor import apply

    logp, target = node.inputs[0], node.inputs[1]._data
    at = node.attrs or {}
    shape = tuple(logp.shape)
    if len(shape) == 1:  # one sample: target is a class index
        attrs = {"shape": shape, "index": int(target), "advanced": False}
        return (_Arr(apply(ops.SCATTER, (-g.t,), attrs, name="NllLossBackwardBackward0")), None)
    keep = np.asarray(target != at["ignore_index"])
    safe = np.where(keep, target, 0)
    weight = keep.astype(logp._data.dtype)
    if at["reduction"] == "mean":
        weight = weight / max(int(keep.sum()), 1)
    scale = -g.t * _tensor_cls()._wrap(weight)
    attrs = {"shape": shape, "index": (np.arange(shape[0]), safe), "advanced": True}
    return (_Arr(apply(ops.SCATTER, (scale,), attrs, name="NllLossBackwardBackward0")), None)


def _scatter(g: _Arr, shape: tuple[int, ...], index: Any, name: str) -> _Arr:
    from engine import ops
    from engine.tensor import apply

    attrs = {"shape": shape, "index": index, "advanced": True}
    return _Arr(apply(ops.SCATTER, (g.t,), attrs, name=name))


def _gather_vjp(node: Node, g: _Arr, xs: Any) -> tuple[Any, ...]:
    """gather, sort, topk: g added back at the gathered places (ScatterAdd in PyTorch; for
    sort and topk, whose places are distinct, PyTorch records Scatter)."""
    from engine import ops

    at = node.attrs or {}
    index = ops._gather_index(np, np.asarray(at["index"]), at["dim"])  # sparse grids
    name = "ScatterAddBackward0" if node.name() == "GatherBackward0" else "ScatterBackward0"
    return (_scatter(g, tuple(xs[0].shape), index, name),)


def _max_dim_vjp(node: Node, g: _Arr, xs: Any) -> tuple[Any, ...]:
    """max/min over a dim: g placed at each row's arg-max (Scatter in PyTorch)."""
    at = node.attrs or {}
    axis, idx = at["axis"], np.asarray(at["indices"])
    gk = g if at["keepdim"] else _Arr(g.t.unsqueeze(axis))
    grid = list(np.indices(gk.shape, sparse=True))
    grid[axis % len(grid)] = np.expand_dims(idx, axis) if not at["keepdim"] else idx
    return (_scatter(gk, tuple(xs[0].shape), tuple(grid), "ScatterBackward0"),)


def _cumsum_vjp(node: Node, g: _Arr, xs: Any) -> tuple[Any, ...]:
    """cumsum: the reversed cumulative sum of g (flips are index selections here)."""
    from engine.factories import tensor

    d = (node.attrs or {})["dim"] % g.ndim
    n = g.shape[d]
    lead = (slice(None),) * d
    reverse = tensor(np.arange(n - 1, -1, -1))
    flipped = g.t[(*lead, reverse)]
    result = flipped.cumsum(d)[(*lead, reverse)]
    if result.grad_fn is not None:
        result.grad_fn._name = "FlipBackward0"  # PyTorch flips; we index in reverse
    return (_Arr(result),)


def _function_vjp(node: Node, g: _Arr, xs: Any) -> tuple[Any, ...]:
    """A custom autograd.Function: the user's backward, run on recorded tensors."""
    at = node.attrs or {}
    call = at["call"]
    grads = [g.t]
    if "spans" in at:  # several outputs: the flat gradient cut back into one per output
        grads = [
            g.t[lo:hi].reshape(*call.outputs[k].shape)
            for k, (lo, hi) in zip(call.differentiable, at["spans"], strict=True)
        ]
    return tuple(_wrap(t) for t in call.run_backward(grads, graphed=True))


def _function_output_vjp(node: Node, g: _Arr, xs: Any) -> tuple[Any, ...]:
    """Output k of a custom Function with several outputs: g at its span of the bundle."""
    from engine import ops
    from engine.tensor import apply

    at = node.attrs or {}
    index = slice(at["start"], at["stop"])
    attrs = {"shape": tuple(xs[0].shape), "index": index, "advanced": False}
    return (_Arr(apply(ops.SCATTER, (g.t.reshape(-1),), attrs)),)


#: Rules that differ on tensors from ops.py's array rules.
_OVERRIDES: dict[str, Any] = {
    "function": _function_vjp,
    "function_output": _function_output_vjp,
    "to": _to_vjp,
    "getitem": _getitem_vjp,
    "nll_loss": _nll_vjp,
    "gather": _gather_vjp,
    "max_dim": _max_dim_vjp,
    "cumsum": _cumsum_vjp,
}


def _sum_to(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """Sum a broadcast gradient back to ``shape``, with recorded operations."""
    if tuple(g.shape) == shape:
        return g
    lead = g.dim() - len(shape)
    if lead > 0:
        g = g.sum(dim=tuple(range(lead)))
    axes = tuple(i for i, (gs, s) in enumerate(zip(g.shape, shape, strict=True)) if s == 1 != gs)
    if axes:
        g = g.sum(dim=axes, keepdim=True)
    return g.reshape(*shape) if tuple(g.shape) != shape else g


def run_backward_graph(
    roots: Sequence[Tensor],
    seeds: Sequence[Tensor],
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
) -> dict[int, Tensor]:
    """The backward loop of :func:`engine.autograd.run_backward`, on tensors and recorded.

    Gradients reaching leaves are accumulated out of place (``w.grad`` gets a ``grad_fn``),
    or, for ``autograd.grad``, returned keyed by ``id`` of the input. The graph is kept
    (``create_graph`` implies ``retain_graph``, as in PyTorch).
    """
    from engine.autograd import (
        _FREED_MSG,
        _check_versions,
        _focused,
        _run_hooks,
        _VersionError,
        enable_grad,
    )

    tensor_cls = _tensor_cls()  # imported late (import cycle)
    wanted = {id(t) for t in inputs} if inputs is not None else None
    buffers: dict[Node, Tensor] = {}
    leaf_grads: dict[Tensor, Tensor] = {}
    captured: dict[int, Tensor] = {}
    heap: list[tuple[int, Node]] = []
    for t, g in zip(roots, seeds, strict=True):
        fn = t.grad_fn
        if fn is None:
            leaf_grads[t] = leaf_grads[t] + g if t in leaf_grads else g
        elif fn in buffers:
            buffers[fn] = buffers[fn] + g
        else:
            buffers[fn] = g
            heappush(heap, (-fn.seq, fn))

    with enable_grad():
        while heap:
            node = heappop(heap)[1]
            g = buffers.pop(node)
            if node.freed and node.op.saves:
                raise _focused(RuntimeError(_FREED_MSG), roots[0], node)
            try:
                _check_versions(node)
            except _VersionError as exc:
                raise _focused(RuntimeError(str(exc)), roots[0], exc.tensor) from None
            out = node.out()
            if out is not None:
                hooks = out._hooks
                if hooks is not None:
                    g = _run_hooks(out, g, hooks, accumulate)
                if wanted is not None and id(out) in wanted:
                    captured[id(out)] = g
            elif node.op.saves in ("out", "both"):
                raise RuntimeError(
                    f"create_graph=True: the output of {node.name()} is no longer available"
                )
            xs = [_wrap(x) for x in node.inputs]
            override = _OVERRIDES.get(node.op.name)
            try:
                if override is not None:
                    grads_in = override(node, _Arr(g), xs)
                else:
                    grads_in = node.op.vjp(XP, _Arr(g), _wrap(out), xs, node.attrs, node.needs)
            except Unsupported as exc:
                raise _focused(
                    RuntimeError(
                        f"create_graph=True (higher-order gradients) is not supported through "
                        f"{node.name()} in the playground ({exc})"
                    ),
                    roots[0],
                    node,
                ) from None
            for gi, need, x in zip(grads_in, node.needs, node.inputs):  # noqa: B905
                if gi is None or not need:
                    continue
                gt = _t(gi)
                if not isinstance(gt, tensor_cls):  # a Python number from a rule
                    gt = tensor_cls._wrap(np.full(x._data.shape, gt, dtype=x._data.dtype))
                gt = _sum_to(gt, tuple(x.shape))
                if gt._data.dtype != x._data.dtype:
                    gt = gt.to(x.dtype)
                fn = x.grad_fn
                if fn is None:
                    leaf_grads[x] = leaf_grads[x] + gt if x in leaf_grads else gt
                elif fn in buffers:
                    buffers[fn] = buffers[fn] + gt
                else:
                    buffers[fn] = gt
                    heappush(heap, (-fn.seq, fn))

        result: dict[int, Tensor] = {}
        for leaf, lg in leaf_grads.items():
            hooks = leaf._hooks
            if hooks is not None and hooks.fns:
                lg = _run_hooks(leaf, lg, hooks, False)
            if wanted is not None:
                if id(leaf) in wanted:
                    result[id(leaf)] = lg
                continue
            if accumulate and leaf.requires_grad:
                if leaf.grad is not None:
                    leaf.grad = leaf.grad + lg
                elif lg.requires_grad:  # PyTorch stores a copy, recorded as CopyBackwards
                    copied = lg.clone()
                    if copied.grad_fn is not None:
                        copied.grad_fn._name = "torch::autograd::CopyBackwards"
                    leaf.grad = copied
                else:
                    leaf.grad = lg
    result.update(captured)
    return result
