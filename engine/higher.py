"""The arithmetic of a recorded backward (``create_graph=True``): the op table's rules on tensors.

The VJP rules in :mod:`engine.ops` are written for arrays (``xp`` is NumPy or CuPy). Here they
run unchanged on *tensors*: :class:`_Arr` shows a tensor through the small part of NumPy's
array interface the rules use, and :data:`XP` stands in for the array module. Every operation
a rule performs is then an engine operation, recorded in the graph, so the gradients the
backward loop (:func:`engine.core.run_backward`, given :data:`GRAPHED`) returns have a
``grad_fn`` and can be differentiated again (``d²y/dx²``), as in PyTorch.

A rule that cannot run on the facade as it is (indexed writes, say) has a graphed rule beside
it in its row (``Op.graphed``), given :data:`KIT`; one that cannot be recorded at all raises
:class:`engine.core.Unsupported`, which the loop reports as a RuntimeError naming the node.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np

from engine import dtypes
from engine import shape_ops as S
from engine.core import Node, Unsupported, sum_to
from engine.factories import ones_like, tensor, zeros_like
from engine.functions import cumprod, einsum, where
from engine.ops import ELEMENTWISE
from engine.shapes import cat, stack
from engine.tensor import Tensor, apply


def _t(x: Any) -> Any:
    """The tensor behind x (a facade, a tensor, a host array) or x itself (a Python scalar)."""
    if isinstance(x, _Arr):
        return x.t
    if isinstance(x, np.ndarray | np.generic):
        return Tensor._wrap(np.asarray(x))
    return x


def _wrap(x: Any) -> Any:
    return _Arr(x) if isinstance(x, Tensor) else x


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
        if not isinstance(v, Tensor):
            v = Tensor._wrap(np.full(self.shape, v, dtype=self.dtype))
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
        """``xp.exp``, ``xp.abs`` ...: an elementwise row of the table by its name (NumPy's
        name for the same function), as the tensor method that records it."""
        if name not in ELEMENTWISE:
            raise Unsupported(f"xp.{name}")
        return lambda a: _Arr(getattr(_t(a), name)())

    def where(self, c: Any, a: Any, b: Any) -> _Arr:
        cond = _t(c)
        if not isinstance(cond, Tensor):
            cond = tensor(bool(cond))
        a_t, b_t = _t(a), _t(b)
        like = a_t if isinstance(a_t, Tensor) else b_t
        if not isinstance(a_t, Tensor):  # a Python number: a constant of the other side's dtype
            a_t = tensor(a_t, dtype=like.dtype)
        if not isinstance(b_t, Tensor):
            b_t = tensor(b_t, dtype=like.dtype)
        return _Arr(where(cond, a_t, b_t))

    def sign(self, a: Any) -> _Arr:  # not a row: torch.sign records nothing (its gradient is 0)
        return _Arr(_t(a).sign())

    def index_add(self, target: Any, index: Any, values: Any) -> None:
        raise Unsupported("scatter-add (engine.backend.index_add)")

    def maximum(self, a: Any, b: Any) -> _Arr:
        return self.where(_t(a) >= _t(b), a, b)  # a mask whichever side is the tensor

    def minimum(self, a: Any, b: Any) -> _Arr:
        return self.where(_t(a) <= _t(b), a, b)

    def zeros_like(self, a: Any) -> _Arr:
        return _Arr(zeros_like(_t(a)))

    def zeros(self, shape: Any, dtype: Any = None) -> _Arr:
        return _Arr(Tensor._wrap(np.zeros(shape, dtype=dtype or np.float32)))

    def ones(self, shape: Any, dtype: Any = None) -> _Arr:
        return _Arr(Tensor._wrap(np.ones(shape, dtype=dtype or np.float32)))

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

    def ones_like(self, a: Any) -> _Arr:
        return _Arr(ones_like(_t(a)))

    def cumprod(self, a: Any, axis: int) -> _Arr:
        return _Arr(cumprod(_t(a), axis))

    def flip(self, a: Any, axis: int) -> _Arr:
        """The elements along ``axis`` in reverse order (an index selection, recorded)."""
        t = _t(a)
        d = axis % t.dim()
        reverse = tensor(np.arange(t.shape[d] - 1, -1, -1))
        return _Arr(t[(*(slice(None),) * d, reverse)])

    def concatenate(self, parts: Sequence[Any], axis: int = 0) -> _Arr:
        return _Arr(cat([_t(p) for p in parts], axis))

    def stack(self, parts: Sequence[Any], axis: int = 0) -> _Arr:
        return _Arr(stack([_t(p) for p in parts], axis))

    def einsum(self, equation: str, *operands: Any) -> _Arr:
        return _Arr(einsum(equation, *[_t(o) for o in operands]))


XP = _XP()


def _scatter(g: _Arr, shape: tuple[int, ...], index: Any, name: str) -> _Arr:
    attrs = {"shape": shape, "index": index, "advanced": True}
    return _Arr(apply(S.SCATTER, (g.t,), attrs, name=name))


#: What a row's graphed rule (``Op.graphed``, next to the row's array rule) works with: the
#: facade, the tensor operations that record, and the backward of indexing as an op.
KIT = SimpleNamespace(
    Arr=_Arr,
    Tensor=Tensor,
    Unsupported=Unsupported,
    SCATTER=S.SCATTER,
    apply=apply,
    scatter=_scatter,
    tensor=tensor,
    wrap=_wrap,
)


class _TensorRules:
    """The tensor arithmetic for :func:`engine.core.run_backward` (``create_graph=True``)."""

    def vjp(self, node: Node, g: Tensor, out: Tensor | None) -> list[Tensor | None]:
        """The node's rule on tensors: one recorded gradient per input, summed back to the
        input's shape (by the loop's own ``sum_to``) and cast to its dtype."""
        if out is None and node.op.saves in ("out", "both"):
            raise RuntimeError(
                f"create_graph=True: the output of {node.name()} is no longer available"
            )
        xs = [_wrap(x) for x in node.inputs]
        graphed = node.op.graphed
        if graphed is not None:
            grads_in = graphed(KIT, node, _Arr(g), xs)
        else:
            grads_in = node.op.vjp(XP, _Arr(g), _wrap(out), xs, node.attrs, node.needs)
        result: list[Tensor | None] = []
        for gi, need, x in zip(grads_in, node.needs, node.inputs):  # noqa: B905
            if gi is None or not need:
                result.append(None)
                continue
            gt = _t(gi)
            if not isinstance(gt, Tensor):  # a Python number from a rule
                gt = Tensor._wrap(np.full(x._data.shape, gt, dtype=x._data.dtype))
            gt = sum_to(gt, tuple(x._data.shape))
            if gt._data.dtype != x._data.dtype:
                gt = gt.to(x.dtype)
            result.append(gt)
        return result

    def accumulate_leaf(self, leaf: Tensor, g: Tensor) -> None:
        """Out of place, so ``leaf.grad`` keeps its graph; a first gradient that requires
        grad is stored as a copy (recorded as CopyBackwards, as PyTorch records it)."""
        if leaf.grad is not None:
            leaf.grad = leaf.grad + g
        elif g.requires_grad:
            copied = g.clone()
            if copied.grad_fn is not None:
                copied.grad_fn._name = "torch::autograd::CopyBackwards"
            leaf.grad = copied
        else:
            leaf.grad = g


#: The rules on recorded tensors, for the backward loop under ``create_graph=True``.
GRAPHED = _TensorRules()
