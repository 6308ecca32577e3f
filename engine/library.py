"""The rest of torch's function library that lessons reach for, built from the table's rows.

Each function here is a composite (no backward code of its own: STYLE.md), its result's node
renamed to PyTorch's where a learner prints ``grad_fn`` (``FlipBackward0``, ``TraceBackward0``),
or a function with no gradient at all (``unique``, ``bincount``, ``searchsorted``: integer
results). Argument names, defaults and errors follow PyTorch 2.13.
"""

from __future__ import annotations

import builtins
import math
import warnings
from typing import Any

import numpy as np

from engine import core, dtypes
from engine.backend import to_numpy
from engine.dtypes import DType
from engine.factories import linspace, tensor
from engine.functions import matmul, where
from engine.registry import method, public
from engine.shapes import cat, expand, getitem, stack
from engine.sizes import Size, _ReturnTypes
from engine.tensor import Tensor, _norm_dim
from engine.tensor import named as _named


def _dims(dims: Any, more: tuple[Any, ...] = ()) -> tuple[int, ...]:
    if more:
        return (int(dims), *(int(d) for d in more))
    return tuple(int(d) for d in dims) if isinstance(dims, list | tuple | Size) else (int(dims),)


# ---- shapes and copies ------------------------------------------------------------------------


@public("meshgrid")
def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: ``ij`` (matrix) or ``xy`` (Cartesian) indexing."""
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn(
            "torch.meshgrid: in an upcoming release, it will be required to pass the indexing "
            "argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(
            f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}'
        )
    n = len(tensors)
    sizes = [t.numel() for t in tensors]
    axes = list(range(n))
    if indexing == "xy" and n >= 2:
        axes[0], axes[1] = 1, 0
    shape = [0] * n
    for t_axis, size in zip(axes, sizes, strict=True):
        shape[t_axis] = size
    out = []
    for t, axis in zip(tensors, axes, strict=True):
        view = [1] * n
        view[axis] = -1
        out.append(expand(t.reshape(view), tuple(shape)))
    return tuple(out)


@public("diagonal", method=True)
def diagonal(a: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the (dim1, dim2) planes, as the last dim (DiagonalBackward0)."""
    nd = a._data.ndim
    d1, d2 = _norm_dim(dim1, nd), _norm_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    rest = [d for d in range(nd) if d not in (d1, d2)]
    moved = a.permute(*rest, d1, d2)
    rows, cols = a._data.shape[d1], a._data.shape[d2]
    n = max(0, min(rows - max(-offset, 0), cols - max(offset, 0)))
    i = np.arange(n)
    index = (Ellipsis, i + max(-offset, 0), i + max(offset, 0))
    return _named(getitem(moved, index), "DiagonalBackward0")


@public("trace", method=True)
def trace(a: Tensor) -> Tensor:
    if a._data.ndim != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {a._data.ndim}")
    return _named(diagonal(a).sum(), "TraceBackward0")


@public("masked_select", method=True)
def masked_select(a: Tensor, mask: Tensor) -> Tensor:
    if mask._data.dtype != np.bool_:
        raise RuntimeError(
            f"masked_select: expected BoolTensor for mask, got {dtypes.type_word(mask._data.dtype)}"
        )
    shape = np.broadcast_shapes(a._data.shape, mask._data.shape)
    a2 = a if a._data.shape == shape else expand(a, shape)
    m = np.broadcast_to(to_numpy(mask._data), shape)
    return _named(getitem(a2, Tensor._wrap(np.ascontiguousarray(m))), "MaskedSelectBackward0")


@public("repeat_interleave", method=True)
def repeat_interleave(
    a: Any, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None
) -> Tensor:
    """Each element (or slice along dim) repeated ``repeats`` times; ``repeat_interleave(r)``
    of an integer tensor r gives the indices repeated r times."""
    if repeats is None:  # torch.repeat_interleave(repeats)
        given = to_numpy(a._data)
        return Tensor._wrap(np.repeat(np.arange(given.size), given).astype(np.int64))
    source = a.reshape(-1) if dim is None else a
    d = 0 if dim is None else _norm_dim(dim, a._data.ndim)
    counts: Any = to_numpy(repeats._data) if isinstance(repeats, Tensor) else int(repeats)
    index = np.repeat(np.arange(source._data.shape[d]), counts)
    picked = getitem(source, (slice(None),) * d + (index,))
    return _named(picked, "ViewBackward0")  # PyTorch: index_select, then a view


@public("tile", method=True)
def tile(a: Tensor, dims: Any) -> Tensor:
    reps = _dims(dims)
    if len(reps) < a._data.ndim:
        reps = (1,) * (a._data.ndim - len(reps)) + reps
    return a.repeat(*reps)  # type: ignore[no-any-return]


@public("roll", method=True)
def roll(a: Tensor, shifts: Any, dims: Any = None) -> Tensor:
    if dims is None:
        flat = a.reshape(-1)
        k = int(shifts if not isinstance(shifts, list | tuple) else shifts[0])
        n = flat._data.shape[0]
        out = getitem(flat, (np.arange(n) - k) % n if n else np.arange(0)).reshape(a.shape)
        return _named(out, "RollBackward0")
    shift_list, dim_list = _dims(shifts), _dims(dims)
    if len(shift_list) != len(dim_list):
        raise RuntimeError(
            f"shifts and dimensions must align. shifts: {len(shift_list)}, dims:{len(dim_list)}"
        )
    out = a
    for k, d in zip(shift_list, dim_list, strict=True):
        d = _norm_dim(d, a._data.ndim)
        n = a._data.shape[d]
        out = getitem(out, (slice(None),) * d + ((np.arange(n) - k) % n,))
    return _named(out, "RollBackward0")


@public("movedim", "moveaxis", method=True)
def movedim(a: Tensor, source: Any, destination: Any) -> Tensor:
    src, dst = _dims(source), _dims(destination)
    nd = a._data.ndim
    src = tuple(_norm_dim(s, nd) for s in src)
    dst = tuple(_norm_dim(s, nd) for s in dst)
    order = [d for d in range(nd) if d not in src]
    for s, t in sorted(zip(dst, src, strict=True)):
        order.insert(s, t)
    return a.permute(*order)  # type: ignore[no-any-return]


@public("ravel", method=True)
def ravel(a: Tensor) -> Tensor:
    return a.reshape(-1)  # type: ignore[no-any-return]


@public("select", method=True)
def select(a: Tensor, dim: int, index: int) -> Tensor:
    d = _norm_dim(dim, a._data.ndim)
    return getitem(a, (slice(None),) * d + (int(index),))


@public("column_stack")
def column_stack(tensors: Any) -> Tensor:
    cols = [t.reshape(-1, 1) if t.dim() < 2 else t for t in tensors]
    return cat(cols, 1)


@public("diff", method=True)
def diff(
    a: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    d = _norm_dim(dim, a._data.ndim)
    parts = [p for p in (prepend, a, append) if p is not None]
    out = cat(parts, d) if len(parts) > 1 else a
    for _ in range(n):
        length = out._data.shape[d]
        lead = (slice(None),) * d
        out = getitem(out, (*lead, slice(1, length))) - getitem(out, (*lead, slice(0, length - 1)))
    return out


@method("unfold")
def _unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Sliding windows of ``size`` every ``step`` along a dim, as a new last dim."""
    d = _norm_dim(dimension, self._data.ndim)
    length = self._data.shape[d]
    if size > length:
        raise RuntimeError(
            f"maximum size for tensor at dimension {d} is {length} but size is {size}"
        )
    starts = np.arange(0, length - size + 1, step)
    windows = starts[:, None] + np.arange(size)[None, :]
    picked = getitem(self, (slice(None),) * d + (windows,))  # (..., n, size, ...)
    out = picked.movedim(d + 1, -1) if d + 1 != picked.dim() - 1 else picked
    return _named(out, "UnfoldBackward0")


# ---- arithmetic ---------------------------------------------------------------------------


@public("lerp", method=True)
def lerp(start: Tensor, end: Tensor, weight: Any) -> Tensor:
    """start + weight (end − start), in ATen's two-branch form (exact at weight 1)."""
    w = weight
    if isinstance(w, Tensor):
        low = w._data < 0.5
        out = where(Tensor._wrap(low), start + w * (end - start), end - (end - start) * (1 - w))
        return _named(out, "LerpBackward1")
    out = start + w * (end - start) if abs(w) < 0.5 else end - (end - start) * (1 - w)
    return _named(out, "LerpBackward0")


@public("addmm", method=True)
def addmm(input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    product = matmul(mat1, mat2)
    out = (input if beta == 1 else input * beta) + (product if alpha == 1 else product * alpha)
    return _named(out, "AddmmBackward0")


@public("baddbmm", method=True)
def baddbmm(input: Tensor, b1: Tensor, b2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    product = matmul(b1, b2)
    out = (input if beta == 1 else input * beta) + (product if alpha == 1 else product * alpha)
    return _named(out, "BaddbmmBackward0")


@public("tensordot")
def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    if isinstance(dims, int):
        da = list(range(a.dim() - dims, a.dim()))
        db = list(range(dims))
    else:
        da, db = (
            ([dims[0]] if isinstance(dims[0], int) else list(dims[0])),
            ([dims[1]] if isinstance(dims[1], int) else list(dims[1])),
        )
    da = [_norm_dim(d, a.dim()) for d in da]
    db = [_norm_dim(d, b.dim()) for d in db]
    keep_a = [d for d in range(a.dim()) if d not in da]
    keep_b = [d for d in range(b.dim()) if d not in db]
    m = math.prod(a.shape[d] for d in da)
    left = a.permute(*keep_a, *da).reshape(-1, m)
    right = b.permute(*db, *keep_b).reshape(m, -1)
    shape = [a.shape[d] for d in keep_a] + [b.shape[d] for d in keep_b]
    return matmul(left, right).reshape(shape)  # type: ignore[no-any-return]


@public("atan2", "arctan2", method=True)
def atan2(a: Tensor, b: Tensor) -> Tensor:
    """atan2(y, x): the angle, branch by branch from atan (a composite; its gradient is
    (x, −y)/(x² + y²) wherever x ≠ 0)."""
    base = (a / b).atan()
    pi = math.pi
    adjust = where(
        Tensor._wrap(to_numpy(b._data) < 0),
        Tensor._wrap(np.where(to_numpy(a._data) >= 0, pi, -pi).astype(a._data.dtype)),
        Tensor._wrap(np.zeros((), dtype=a._data.dtype)),
    )
    return _named(base + adjust, "Atan2Backward0")


@public("hypot", method=True)
def hypot(a: Tensor, b: Tensor) -> Tensor:
    return _named((a * a + b * b).sqrt(), "HypotBackward0")


@public("logaddexp", method=True)
def logaddexp(a: Tensor, b: Tensor) -> Tensor:
    m = where(a > b, a, b).detach()
    return _named(m + ((a - m).exp() + (b - m).exp()).log(), "LogaddexpBackward0")


@public("exp2", method=True)
def exp2(a: Tensor) -> Tensor:
    return _named(2.0**a, "Exp2Backward0")


@public("deg2rad", method=True)
def deg2rad(a: Tensor) -> Tensor:
    return a * (math.pi / 180)


@public("rad2deg", method=True)
def rad2deg(a: Tensor) -> Tensor:
    return a * (180 / math.pi)


@public("floor_divide", method=True)
def floor_divide(a: Any, b: Any) -> Tensor:
    if (
        isinstance(a, Tensor)
        and a._data.dtype.kind in "iu"
        and not (isinstance(b, float) or (isinstance(b, Tensor) and b._data.dtype.kind == "f"))
    ):
        bd = b._data if isinstance(b, Tensor) else b
        return Tensor._wrap(np.floor_divide(to_numpy(a._data), to_numpy(bd)))
    return (a / b).floor()  # type: ignore[no-any-return]


@public("sgn", method=True)
def sgn(a: Tensor) -> Tensor:
    return a.sign()  # type: ignore[no-any-return]


@public("nan_to_num", method=True)
def nan_to_num(
    a: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None
) -> Tensor:
    info = np.finfo(a._data.dtype) if a._data.dtype.kind == "f" else None
    if info is None:
        return a.clone()  # type: ignore[no-any-return]
    hi = info.max if posinf is None else posinf
    lo = info.min if neginf is None else neginf
    data = to_numpy(a._data)
    out = where(Tensor._wrap(np.isnan(data)), nan, a)
    out = where(Tensor._wrap(np.isposinf(data)), float(hi), out)
    out = where(Tensor._wrap(np.isneginf(data)), float(lo), out)
    return _named(out, "NanToNumBackward0")


@public("nansum", method=True)
def nansum(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    clean = where(Tensor._wrap(np.isnan(to_numpy(a._data))), 0.0, a)
    out = clean.sum() if dim is None else clean.sum(dim, keepdim=keepdim)
    return _named(out, "NansumBackward0")


@public("nanmean", method=True)
def nanmean(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    present = Tensor._wrap((~np.isnan(to_numpy(a._data))).astype(a._data.dtype))
    count = present.sum() if dim is None else present.sum(dim, keepdim=keepdim)
    return nansum(a, dim, keepdim) / count


@public("logspace")
def logspace(
    start: float,
    end: float,
    steps: int,
    base: float = 10.0,
    *,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    exponents = linspace(start, end, steps, dtype=dtypes.float64)
    values = np.power(float(base), to_numpy(exponents._data))
    return tensor(values, dtype=dtype or dtypes.float32, device=device, requires_grad=requires_grad)


@public("range")
def range_(
    start: float,
    end: float | None = None,
    step: float = 1,
    *,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """The deprecated torch.range: end included, float32 by default, with PyTorch's warning."""
    warnings.warn(
        "torch.range is deprecated and will be removed in a future release because its "
        "behavior is inconsistent with Python's range builtin. Instead, use torch.arange, "
        "which produces values in [start, end).",
        UserWarning,
        stacklevel=2,
    )
    if end is None:
        start, end = 0, start
    n = math.floor((end - start) / step) + 1
    values = start + step * np.arange(max(n, 0), dtype=np.float64)
    return tensor(values, dtype=dtype or dtypes.float32, device=device, requires_grad=requires_grad)


# ---- statistics and searches (no gradient where the result is an index) -----------------------


@public("median", method=True)
def median(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median (of all elements, or along dim with its index)."""
    if dim is None:
        flat = a.reshape(-1)
        n = flat._data.shape[0]
        order = np.argsort(to_numpy(flat._data), kind="stable")
        return _named(getitem(flat, int(order[(n - 1) // 2])), "MedianBackward0")
    d = _norm_dim(dim, a._data.ndim)
    n = a._data.shape[d]
    values, indices = a.sort(dim=d)
    pick = (slice(None),) * d + (slice((n - 1) // 2, (n - 1) // 2 + 1),)
    v, i = getitem(values, pick), getitem(indices, pick)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return _ReturnTypes("median", _named(v, "MedianBackward1"), i)


@public("count_nonzero", method=True)
def count_nonzero(a: Tensor, dim: Any = None) -> Tensor:
    data = to_numpy(a._data) != 0
    axis = None if dim is None else tuple(_norm_dim(d, data.ndim) for d in _dims(dim))
    return Tensor._wrap(np.asarray(data.sum(axis=axis), dtype=np.int64))


@public("argwhere", method=True)
def argwhere(a: Tensor) -> Tensor:
    return Tensor._wrap(np.argwhere(to_numpy(a._data)).astype(np.int64))


@public("unique", method=True)
def unique(
    a: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    data = to_numpy(a._data)
    if dim is None:
        values, inverse, counts = np.unique(data, return_inverse=True, return_counts=True)
        inverse = inverse.reshape(data.shape)
    else:
        values, inverse, counts = np.unique(
            data, return_inverse=True, return_counts=True, axis=_norm_dim(dim, data.ndim)
        )
    out: list[Tensor] = [Tensor._wrap(values)]
    if return_inverse:
        out.append(Tensor._wrap(inverse.astype(np.int64)))
    if return_counts:
        out.append(Tensor._wrap(counts.astype(np.int64)))
    return out[0] if len(out) == 1 else tuple(out)


@public("bincount", method=True)
def bincount(a: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    data = to_numpy(a._data)
    if data.ndim != 1 or data.dtype.kind not in "iu":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if data.size and data.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    w = None if weights is None else to_numpy(weights._data)
    counts = np.bincount(data, weights=w, minlength=minlength)
    dtype = np.int64 if w is None else (np.float64 if w.dtype == np.float64 else np.float32)
    return Tensor._wrap(counts.astype(dtype))


@public("searchsorted")
def searchsorted(
    sorted_sequence: Tensor, values: Any, *, out_int32: bool = False, right: bool = False,
    side: str | None = None, sorter: Tensor | None = None,
) -> Tensor:  # fmt: skip
    seq = to_numpy(sorted_sequence._data)
    vals = to_numpy(values._data) if isinstance(values, Tensor) else np.asarray(values)
    where_: Any = side or ("right" if right else "left")
    if seq.ndim == 1:
        found = np.searchsorted(seq, vals, side=where_)
    else:
        found = np.stack(
            [np.searchsorted(s, v, side=where_) for s, v in zip(seq, vals, strict=True)]
        )
    return Tensor._wrap(found.astype(np.int32 if out_int32 else np.int64))


@public("cdist")
def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str | None = None) -> Tensor:
    diff_ = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if p == 2:
        out = (diff_ * diff_).sum(-1).sqrt()
    elif p == 1:
        out = diff_.abs().sum(-1)
    elif p == math.inf:
        out = diff_.abs().amax(-1)
    else:
        out = (diff_.abs() ** p).sum(-1) ** (1.0 / p)
    return _named(out, "CdistBackward0")


def _with_mean(a: Tensor, stat: str, dim: Any, correction: int, keepdim: bool, node: str) -> Any:
    """std_mean / var_mean: ``a.std`` or ``a.var`` (``stat``) and the mean, both named as
    PyTorch's one node for the pair."""
    spread = getattr(a, stat)
    if dim is None:
        pair = (spread(correction=correction), a.mean())
    else:
        pair = (
            spread(dim, correction=correction, keepdim=keepdim),
            a.mean(dim, keepdim=keepdim),
        )
    return tuple(_named(t, node) for t in pair)


@public("std_mean")
def std_mean(a: Tensor, dim: Any = None, *, correction: int = 1, keepdim: bool = False) -> Any:
    return _with_mean(a, "std", dim, correction, keepdim, "StdMeanBackward0")


@public("var_mean")
def var_mean(a: Tensor, dim: Any = None, *, correction: int = 1, keepdim: bool = False) -> Any:
    return _with_mean(a, "var", dim, correction, keepdim, "VarMeanBackward0")


@public("tril_indices")
def tril_indices(row: int, col: int, offset: int = 0, *, dtype: DType | None = None) -> Tensor:
    r, c = np.tril_indices(row, offset, col)
    return Tensor._wrap(np.stack([r, c]).astype((dtype or dtypes.int64).np))


@public("triu_indices")
def triu_indices(row: int, col: int, offset: int = 0, *, dtype: DType | None = None) -> Tensor:
    r, c = np.triu_indices(row, offset, col)
    return Tensor._wrap(np.stack([r, c]).astype((dtype or dtypes.int64).np))


@public("kron")
def kron(a: Tensor, b: Tensor) -> Tensor:
    if a.dim() != b.dim():
        raise RuntimeError("kron: the playground takes tensors of equal rank")
    left = a.reshape(*[s for d in a.shape for s in (d, 1)])
    right = b.reshape(*[s for d in b.shape for s in (1, d)])
    out = (left * right).reshape(*[x * y for x, y in zip(a.shape, b.shape, strict=True)])
    return _named(out, "UnsafeViewBackward0")


@public("cross")
def cross(a: Tensor, b: Tensor, dim: int | None = None) -> Tensor:
    d = _norm_dim(dim if dim is not None else -1, a.dim())
    lead = (slice(None),) * d

    def c(t: Tensor, i: int) -> Tensor:
        return getitem(t, (*lead, i))

    parts = [
        c(a, 1) * c(b, 2) - c(a, 2) * c(b, 1),
        c(a, 2) * c(b, 0) - c(a, 0) * c(b, 2),
        c(a, 0) * c(b, 1) - c(a, 1) * c(b, 0),
    ]
    return _named(stack(parts, d), "LinalgCrossBackward0")


# ---- settings and dtype facts -------------------------------------------------------------------


@public("set_num_threads")
def set_num_threads(n: int) -> None:
    """Accepted: the playground computes on one thread."""
    if int(n) <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")


@public("get_num_threads")
def get_num_threads() -> int:
    return 1


@public("is_complex")
def is_complex(a: Tensor) -> bool:
    return False


@public("is_nonzero")
def is_nonzero(a: Tensor) -> bool:
    if a.numel() != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(a.item() != 0)


class finfo:
    """torch.finfo: the limits of a floating dtype."""

    def __init__(self, type: DType | None = None) -> None:
        dt = type or dtypes.float32
        if dt.np.kind != "f":
            raise TypeError(
                f"torch.finfo() requires a floating point input type. Use torch.iinfo to handle '{dt.name}'"
            )
        info = np.finfo(dt.np)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.tiny)
        self.resolution = float(info.resolution)
        self.dtype = dt.name

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
            f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, "
            f"dtype={self.dtype})"
        )


class iinfo:
    """torch.iinfo: the limits of an integer dtype."""

    def __init__(self, type: DType) -> None:
        if type.np.kind not in "iub":
            raise TypeError(
                f"torch.iinfo() requires an integer input type. Use torch.finfo to handle '{type.name}'"
            )
        info = np.iinfo(type.np) if type.np.kind != "b" else np.iinfo(np.uint8)
        self.bits = int(info.bits)
        self.max = int(info.max)
        self.min = int(info.min)
        self.dtype = type.name

    def __repr__(self) -> str:
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


@public("promote_types")
def promote_types(a: DType, b: DType) -> DType:
    return dtypes.from_numpy(dtypes.promote_types(a.np, b.np))


@public("result_type")
def result_type(a: Any, b: Any) -> DType:
    ops_ = [(x._data.dtype, x._data.ndim) for x in (a, b) if isinstance(x, Tensor)]
    scalars = [x for x in (a, b) if not isinstance(x, Tensor)]
    return dtypes.from_numpy(dtypes.promote(ops_, scalars))


@public("can_cast")
def can_cast(from_: DType, to: DType) -> bool:
    return dtypes.category(from_.np) <= dtypes.category(to.np)


# ---- Tensor methods -------------------------------------------------------------------------------


@method("byte")
def _byte(self: Tensor) -> Tensor:
    return self.to(dtypes.uint8)  # type: ignore[no-any-return]


@method("char")
def _char(self: Tensor) -> Tensor:
    return self.to(dtypes.int8)  # type: ignore[no-any-return]


@method("data_ptr")
def _data_ptr(self: Tensor) -> int:
    return (
        int(self._data.__array_interface__["data"][0])
        if hasattr(self._data, "__array_interface__")
        else int(self._data.data.ptr)
    )


@method("stride")
def _stride(self: Tensor, dim: int | None = None) -> Any:
    item = self._data.itemsize
    strides = tuple(s // item for s in self._data.strides)
    return strides if dim is None else strides[_norm_dim(dim, self._data.ndim)]


@method("storage_offset")
def _storage_offset(self: Tensor) -> int:
    base = self._data.base
    if base is None or not hasattr(self._data, "__array_interface__"):
        return 0
    start = self._data.__array_interface__["data"][0]
    origin = base.__array_interface__["data"][0]
    return int((start - origin) // self._data.itemsize)


@method("nbytes")  # type: ignore[misc]
@property
def _nbytes(self: Tensor) -> int:
    return int(self._data.nbytes)


@method("itemsize")  # type: ignore[misc]
@property
def _itemsize(self: Tensor) -> int:
    return int(self._data.itemsize)


@method("H")  # type: ignore[misc]
@property
def _conj_t(self: Tensor) -> Tensor:
    if self._data.ndim not in (0, 2):
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors).")
    return self.t() if self._data.ndim == 2 else self  # type: ignore[no-any-return]


@method("sum_to_size")
def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    shape = tuple(size[0]) if len(size) == 1 and isinstance(size[0], list | tuple | Size) else size
    return core.sum_to(self, tuple(int(s) for s in shape))  # type: ignore[no-any-return]


@method("squeeze_")
def _squeeze_(self: Tensor, dim: Any = None) -> Tensor:
    new = self.squeeze() if dim is None else self.squeeze(dim)
    self._data = self._data.reshape(new._data.shape)
    return self


@method("unsqueeze_")
def _unsqueeze_(self: Tensor, dim: int) -> Tensor:
    new = self.unsqueeze(dim)
    self._data = self._data.reshape(new._data.shape)
    return self


@method("t_")
def _t_(self: Tensor) -> Tensor:
    self._data = self._data.T.copy() if self._data.ndim == 2 else self._data
    return self


@method("transpose_")
def _transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    self._data = np.ascontiguousarray(np.swapaxes(self._data, dim0, dim1))
    return self


@method("fill_diagonal_")
def _fill_diagonal_(self: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    with core.no_grad():
        np.fill_diagonal(self._data, fill_value, wrap=wrap)
    self._bump()
    return self


@method("index_fill_")
def _index_fill_(self: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
    d = _norm_dim(dim, self._data.ndim)
    self[(slice(None),) * d + (index,)] = value
    return self


@method("index_copy_")
def _index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    d = _norm_dim(dim, self._data.ndim)
    self[(slice(None),) * d + (index,)] = source
    return self


@method("index_add_")
def _index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    d = _norm_dim(dim, self._data.ndim)
    src = source if alpha == 1 else source * alpha
    idx = to_numpy(index._data)
    moved_src = src.movedim(d, 0)
    moved = self.movedim(d, 0) * 0  # (a recorded zero of the right shape, for the scatter)
    index_full = np.broadcast_to(
        idx.reshape((-1,) + (1,) * (moved_src.dim() - 1)), tuple(moved_src.shape)
    )
    added = moved.scatter_add(0, Tensor._wrap(np.ascontiguousarray(index_full)), moved_src)
    return self.add_(added.movedim(0, d))  # type: ignore[no-any-return]


@method("index_add")
def _index_add(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha: Any = 1) -> Tensor:
    return _index_add_(self.clone(), dim, index, source, alpha=alpha)


@method("resize_")
def _resize_(self: Tensor, *sizes: Any) -> Tensor:
    shape = (
        tuple(sizes[0]) if len(sizes) == 1 and isinstance(sizes[0], list | tuple | Size) else sizes
    )
    if self.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    n = math.prod(shape)
    flat = self._data.reshape(-1)
    data = np.zeros(n, dtype=flat.dtype)
    data[: min(n, flat.size)] = flat[: min(n, flat.size)]
    self._data = data.reshape(shape)
    self._bump()
    return self


@method("apply_")
def _apply_(self: Tensor, callable: Any) -> Tensor:
    if self.requires_grad and core.is_grad_enabled():
        raise RuntimeError(
            "a leaf Variable that requires grad is being used in an in-place operation."
        )
    flat = self._data.reshape(-1)
    for i in builtins.range(flat.size):
        flat[i] = callable(flat[i].item())
    self._bump()
    return self
