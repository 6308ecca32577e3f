"""The function API's shape and indexing functions (``torch.reshape``, ``cat``, ``split``,
``Tensor.view``, ``x[i]`` and ``x[i] = v`` ...): argument parsing and PyTorch's messages over
the op table's view, permute, expand, getitem, index_put, gather, cat and stack rows."""

from __future__ import annotations

import builtins
import operator
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from engine import core, dtypes
from engine import shape_ops as S
from engine.backend import to_numpy
from engine.dtypes import DType
from engine.factories import _shape_arg, _to_nested, tensor
from engine.registry import implements, method, public
from engine.tensor import Tensor, _cast_keep_graph, _norm_dim, apply, failed
from engine.tensor import _share_version as share_version


@implements(S.VIEW, "reshape", method=False)
def reshape(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    try:
        size = a._data.size
        if builtins.sum(1 for s in shape if s == -1) > 1:
            raise RuntimeError("only one dimension can be inferred")
        known = int(np.prod([s for s in shape if s != -1])) if shape else 1
        if -1 in shape:
            if known == 0 or size % known:
                raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
            shape = tuple(size // known if s == -1 else s for s in shape)
        elif known != size:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        return apply(S.VIEW, (a,), {"shape": shape})
    except (RuntimeError, TypeError, IndexError) as exc:
        failed(exc, "reshape", (a,))
        raise


@implements(S.VIEW, "flatten")
def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    nd = a._data.ndim
    if nd == 0:
        return reshape(a, (1,))
    s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
    shape = a._data.shape
    new = (*shape[:s], int(np.prod(shape[s : e + 1])), *shape[e + 1 :])
    return reshape(a, new)


@implements(S.VIEW, "unsqueeze", axis=True)
def unsqueeze(a: Tensor, dim: int) -> Tensor:
    d = _norm_dim(dim, a._data.ndim + 1)
    shape = (*a._data.shape[:d], 1, *a._data.shape[d:])
    return apply(S.VIEW, (a,), {"shape": shape}, name="UnsqueezeBackward0")


@implements(S.VIEW, "squeeze", axis=True)
def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    shape = a._data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
        name = "SqueezeBackward0"
    else:
        dims = {
            _norm_dim(d, a._data.ndim) for d in (dim if isinstance(dim, list | tuple) else (dim,))
        }
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
        name = "SqueezeBackward1" if not isinstance(dim, list | tuple) else "SqueezeBackward2"
    return apply(S.VIEW, (a,), {"shape": new}, name=name)


@implements(S.PERMUTE, "permute", method=False)
def permute(a: Tensor, dims: tuple[int, ...], name: str | None = None) -> Tensor:
    nd = a._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    norm = tuple(_norm_dim(d, nd) for d in dims)
    return apply(S.PERMUTE, (a,), {"dims": norm}, name=name)


@implements(S.PERMUTE, "transpose", "swapaxes")
def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    nd = a._data.ndim
    dims = list(range(nd))
    if nd:
        d0, d1 = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
        dims[d0], dims[d1] = dims[d1], dims[d0]
    return apply(S.PERMUTE, (a,), {"dims": tuple(dims)}, name="TransposeBackward0")


@implements(S.PERMUTE, "t")
def t(a: Tensor) -> Tensor:
    if a._data.ndim > 2:
        raise RuntimeError(
            f"t() expects a tensor with <= 2 dimensions, but self is {a._data.ndim}D"
        )
    return permute(a, tuple(range(a._data.ndim - 1, -1, -1)), name="TBackward0")


@method("T")  # type: ignore[misc]
@property
def _transposed(self: Tensor) -> Tensor:
    return permute(self, tuple(range(self._data.ndim - 1, -1, -1)))


@method("mT")  # type: ignore[misc]
@property
def _matrix_transposed(self: Tensor) -> Tensor:
    return transpose(self, -2, -1)


def expand(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    try:
        cur = a._data.shape
        if len(shape) < len(cur):
            raise RuntimeError(
                f"expand(torch.FloatTensor{{{list(cur)}}}, size=[{', '.join(map(str, shape))}]): the "
                "number of sizes provided ({}) must be greater or equal to the number of dimensions "
                "in the tensor ({})".format(len(shape), len(cur))
            )
        pad = (1,) * (len(shape) - len(cur)) + cur
        new = tuple(p if s == -1 else s for s, p in zip(shape, pad, strict=True))
        for i, (s, p) in enumerate(zip(new, pad, strict=True)):
            if p != 1 and p != s:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size ({p}) at "
                    f"non-singleton dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: "
                    f"{list(cur)}"
                )
        return apply(S.EXPAND, (a,), {"shape": new})
    except (RuntimeError, TypeError, IndexError) as exc:
        failed(exc, "expand", (a,))
        raise


@implements(S.EXPAND)
def broadcast_to(a: Tensor, shape: Any) -> Tensor:
    return expand(a, _shape_arg((shape,)))


#: slice bounds NumPy takes as they are
_PLAIN = (int, type(None))


def _bound(value: Any) -> int:
    """A slice bound as an int (a 0-d integer tensor, a NumPy integer), or Python's TypeError."""
    if hasattr(type(value), "__index__"):  # its own error (a float tensor's, say)
        return operator.index(value)
    raise TypeError("slice indices must be integers or None or have an __index__ method")


def _index(key: Any, ndim: int) -> tuple[Any, bool]:
    """Turn a PyTorch index into a NumPy one; report whether it is advanced indexing."""
    if ndim and (  # x[i], x[a:b] with ints: a loop's (iterating a tensor is x[0], x[1] ...)
        key.__class__ is int
        or (
            key.__class__ is slice
            and key.start.__class__ in _PLAIN
            and key.stop.__class__ in _PLAIN
            and key.step is None
        )
    ):
        return key, False
    if ndim and key.__class__ is slice and key.step is None:  # x[i : i + 8], i a 0-d tensor
        start, stop = key.start, key.stop
        if start.__class__ is Tensor:
            start = operator.index(start)
        if stop.__class__ is Tensor:
            stop = operator.index(stop)
        if start.__class__ in _PLAIN and stop.__class__ in _PLAIN:
            return slice(start, stop), False
    parts = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    advanced = False
    for k in parts:
        if isinstance(k, Tensor):
            arr = to_numpy(k._data) if k.device.type == "cpu" else k._data
            if arr.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if arr.ndim == 0 and arr.dtype.kind in "iu":
                out.append(int(arr))
                continue
            out.append(arr)
            advanced = True
        elif isinstance(k, list | range | np.ndarray):
            arr = np.asarray(_to_nested(list(k)) if isinstance(k, list) else k)
            if arr.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(arr)
            advanced = True
        elif isinstance(k, bool):
            out.append(k)
            advanced = True
        elif isinstance(k, slice):
            # bounds as plain ints (a loop's `x[i : i + 8]` with i a 0-d tensor): NumPy would
            # convert each one again, and comparing the slice would compare tensors
            if k.start.__class__ is not int and k.start is not None:
                k = slice(_bound(k.start), k.stop, k.step)
            if k.stop.__class__ is not int and k.stop is not None:
                k = slice(k.start, _bound(k.stop), k.step)
            if k.step is not None:
                if k.step.__class__ is not int:
                    k = slice(k.start, k.stop, _bound(k.step))
                if k.step <= 0:
                    raise ValueError(
                        "slice step cannot be zero"
                        if k.step == 0
                        else "step must be greater than zero"
                    )
            out.append(k)
        elif isinstance(k, int | np.integer) or k is None or k is Ellipsis:
            out.append(k)
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {type(k).__name__})"
            )
    _check_index_count(out, ndim)
    return (tuple(out) if isinstance(key, tuple) else out[0]), advanced


def _dims_used(part: Any) -> int:
    """How many dimensions of the indexed tensor one (converted) index part consumes."""
    if part is None or part is Ellipsis or isinstance(part, bool):
        return 0
    if isinstance(part, np.ndarray) and part.dtype == np.bool_:
        return int(part.ndim)
    return 1


def _check_index_count(parts: list[Any], ndim: int) -> None:
    """PyTorch's errors for more indices than dimensions (NumPy words them differently)."""
    if builtins.sum(_dims_used(p) for p in parts) <= ndim:
        return
    if ndim == 0:
        first = next(p for p in parts if _dims_used(p))
        if isinstance(first, slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(
            "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
            "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number"
        )
    raise IndexError(f"too many indices for tensor of dimension {ndim}")


def _check_masks(parts: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    """PyTorch's error for a boolean mask whose shape does not fit the dimensions it indexes."""
    pos = 0
    for i, p in enumerate(parts):
        if p is Ellipsis:
            pos = len(shape) - builtins.sum(_dims_used(q) for q in parts[i + 1 :])
            continue
        if isinstance(p, np.ndarray) and p.dtype == np.bool_:
            for j, n in enumerate(p.shape):
                if pos + j < len(shape) and n != shape[pos + j]:
                    raise IndexError(
                        f"The shape of the mask {list(p.shape)} at index {j} does not match the "
                        f"shape of the indexed tensor {list(shape)} at index {pos + j}"
                    )
        pos += _dims_used(p)


@method("__getitem__")
def getitem(a: Tensor, key: Any) -> Tensor:
    data = a._data
    if not a.requires_grad and data.__class__ is np.ndarray and data.ndim:
        # data[i : i + 8] in a batch loop: nothing to record, so not apply()'s work (an error
        # goes the long way below, which words it as PyTorch does)
        try:
            index, advanced = _index(key, data.ndim)
            out = None
            if not advanced:
                out = Tensor._wrap(S.GETITEM.forward(np, data, index=index, advanced=False))
        except (RuntimeError, IndexError, ValueError, TypeError):
            out = None
        if out is not None:
            base = out._data.base
            if base is not None and (base is data or base is data.base):
                share_version(a, out)  # a view: in-place changes count for both
            return out
    try:
        index, advanced = _index(key, a._data.ndim)
        parts = index if isinstance(index, tuple) else (index,)
        if advanced:
            _check_masks(parts, a._data.shape)
        if advanced:
            name = "IndexBackward0"
        else:
            name = "AliasBackward0"
            for p in parts:
                if isinstance(p, int | np.integer):
                    name = "SelectBackward0"
                elif isinstance(p, slice) and (p.start, p.stop, p.step) != (None, None, None):
                    name = "SliceBackward0"
                elif p is None:
                    name = "UnsqueezeBackward0"
        try:
            return apply(S.GETITEM, (a,), {"index": index, "advanced": advanced}, name=name)
        except IndexError as exc:
            raise IndexError(str(exc).replace("axis", "dimension")) from None
    except (RuntimeError, TypeError, IndexError) as exc:
        failed(exc, "getitem", (a,))
        raise


@implements(S.GATHER, "gather")
def gather(a: Tensor, dim: int, index: Tensor) -> Tensor:
    try:
        d = _norm_dim(dim, a._data.ndim)
        idx = index._data
        if idx.ndim != a._data.ndim:
            raise RuntimeError(
                "Index tensor must have the same number of dimensions as input tensor"
            )
        if idx.dtype != np.int64:
            raise RuntimeError("gather(): Expected dtype int64 for index")
        if idx.size and (idx.max() >= a._data.shape[d] or idx.min() < -a._data.shape[d]):
            raise RuntimeError(
                f"index {int(idx.max())} is out of bounds for dimension {d} with "
                f"size {a._data.shape[d]}"
            )
        return apply(S.GATHER, (a,), {"dim": d, "index": idx})
    except (RuntimeError, TypeError, IndexError) as exc:
        failed(exc, "gather", (a,))
        raise


def _seq_tensors(tensors: Iterable[Tensor], fname: str) -> list[Tensor]:
    ts = list(tensors)
    if not ts:
        raise RuntimeError(f"{fname}(): expected a non-empty list of Tensors")
    for x in ts:
        if not isinstance(x, Tensor):
            raise TypeError(
                f"expected Tensor as element {ts.index(x)} in argument 0, but got "
                f"{type(x).__name__}"
            )
    return ts


@implements(S.CAT, "cat", "concat", "concatenate", axis=True)
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    try:
        ts = _seq_tensors(tensors, "torch.cat")
        kept = [x for x in ts if x._data.shape != (0,)]
        if kept and len(kept) < len(ts):
            # PyTorch skips 1-D empty tensors (legacy behaviour), but they still count for the dtype
            target = dtypes.promote([(x._data.dtype, 1) for x in ts], [])
            ts = [x if x._data.dtype == target else _cast_keep_graph(x, target) for x in kept]
        nd = ts[0]._data.ndim
        if nd == 0:
            raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
        d = _norm_dim(dim, nd)
        for i, x in enumerate(ts[1:], 1):
            xs = x._data.shape
            if len(xs) != nd and xs != (0,) and ts[0]._data.shape != (0,):
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {nd} and {len(xs)}"
                )
            if len(xs) != nd or builtins.any(
                xs[j] != ts[0]._data.shape[j] for j in range(nd) if j != d
            ):
                for j in range(builtins.min(nd, len(xs))):
                    if j != d and xs[j] != ts[0]._data.shape[j]:
                        raise RuntimeError(
                            f"Sizes of tensors must match except in dimension {d}. Expected size "
                            f"{ts[0]._data.shape[j]} but got size {xs[j]} for tensor number {i} in "
                            "the list."
                        )
                raise RuntimeError(
                    f"Tensors must have same number of dimensions: got {nd} and {len(xs)}"
                )
        ts = _promote_all(ts)
        return apply(S.CAT, tuple(ts), {"dim": d})
    except (RuntimeError, TypeError, IndexError) as exc:
        failed(exc, "cat", tuple(tensors))
        raise


@implements(S.STACK, axis=True)
def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    try:
        if not list(tensors):
            raise RuntimeError("stack expects a non-empty TensorList")
        ts = _seq_tensors(tensors, "stack")
        shape, dtype = ts[0]._data.shape, ts[0]._data.dtype
        same = True
        for i, x in enumerate(ts[1:], 1):
            if x._data.shape != shape:
                raise RuntimeError(
                    f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                    f"and {list(x._data.shape)} at entry {i}"
                )
            same = same and x._data.dtype == dtype
        d = _norm_dim(dim, len(shape) + 1)
        return apply(S.STACK, tuple(ts if same else _promote_all(ts)), {"dim": d})
    except (RuntimeError, TypeError, IndexError) as exc:
        failed(exc, "stack", tuple(tensors))
        raise


def _promote_all(ts: list[Tensor]) -> list[Tensor]:
    target = dtypes.promote([(x._data.dtype, 1) for x in ts], [])
    return [x if x._data.dtype == target else _cast_keep_graph(x, target) for x in ts]


@implements(S.CAT, "hstack")
def hstack(tensors: Sequence[Tensor]) -> Tensor:
    ts = [x if x._data.ndim else reshape(x, (1,)) for x in _seq_tensors(tensors, "hstack")]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1)


@implements(S.CAT, "vstack", "row_stack")
def vstack(tensors: Sequence[Tensor]) -> Tensor:
    ts = _seq_tensors(tensors, "vstack")
    return cat([x if x._data.ndim >= 2 else reshape(x, (1, -1)) for x in ts], 0)


def _slices(a: Tensor, d: int, sizes: list[int], name: str) -> tuple[Tensor, ...]:
    parts = []
    start = 0
    for size in sizes:
        key = tuple([slice(None)] * d + [slice(start, start + size)])
        parts.append(apply(S.GETITEM, (a,), {"index": key, "advanced": False}, name=name))
        start += size
    return tuple(parts)


@implements(S.GETITEM, "split")
def split(a: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    d = _norm_dim(dim, a._data.ndim)
    n = a._data.shape[d]
    if isinstance(split_size_or_sections, int):
        step = split_size_or_sections
        if step <= 0 and n:
            raise RuntimeError(
                f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
            )
        sizes = [builtins.min(step, n - s) for s in range(0, n, step)] if n else [0]
        return _slices(a, d, sizes, "SplitBackward0")
    sizes = [int(s) for s in split_size_or_sections]
    if builtins.sum(sizes) != n:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
            f"dimension {d}), but got split_sizes={sizes}"
        )
    return _slices(a, d, sizes, "SplitWithSizesBackward0")


@implements(S.GETITEM, "chunk")
def chunk(a: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = _norm_dim(dim, a._data.ndim)
    n = a._data.shape[d]
    step = -(-n // chunks) if n else 1
    return split(a, step, d) if n else _slices(a, d, [0] * chunks, "SplitBackward0")


@implements(S.GETITEM, "index_select")
def index_select(a: Tensor, dim: int, index: Tensor) -> Tensor:
    if not isinstance(index, Tensor) or index._data.dtype.kind not in "iu":
        raise RuntimeError("index_select(): Expected dtype int32/int64 for index")
    if index._data.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = _norm_dim(dim, a._data.ndim)
    key = tuple([slice(None)] * d + [index])
    return getitem(a, key)


def _expand_error(target: tuple[int, ...], sizes: tuple[int, ...]) -> RuntimeError:
    """PyTorch's message when a value cannot be broadcast to where it is assigned."""
    if len(sizes) <= len(target):
        off = len(target) - len(sizes)
        for j in range(len(sizes) - 1, -1, -1):
            if sizes[j] != 1 and sizes[j] != target[off + j]:
                return RuntimeError(
                    f"The expanded size of the tensor ({target[off + j]}) must match the "
                    f"existing size ({sizes[j]}) at non-singleton dimension {off + j}.  "
                    f"Target sizes: {list(target)}.  Tensor sizes: {list(sizes)}"
                )
    return RuntimeError(
        f"expand(torch.FloatTensor{{{list(sizes)}}}, size={list(target)}): the number of sizes "
        f"provided ({len(target)}) must be greater or equal to the number of dimensions in the "
        f"tensor ({len(sizes)})"
    )


@method("reshape")
def _reshape_method(self: Tensor, *shape: Any) -> Tensor:
    return reshape(self, _shape_arg(shape))


@method("view")
def _view(self: Tensor, *shape: Any) -> Tensor:
    if len(shape) == 1 and isinstance(shape[0], DType):
        raise RuntimeError("view(dtype) is not supported in the playground")
    size = _shape_arg(shape)
    d = self._data
    if d.__class__ is np.ndarray and not d.flags.c_contiguous:
        # A view must reuse the storage: PyTorch refuses shapes that would need a copy
        # (NumPy's no-copy reshape applies the same rule to the same strides).
        try:
            np.reshape(d, size, copy=False)
        except ValueError:
            try:
                np.reshape(d, size)
            except ValueError:
                pass  # a size mismatch: reshape() below raises PyTorch's message for it
            else:
                raise RuntimeError(
                    "view size is not compatible with input tensor's size and stride (at "
                    "least one dimension spans across two contiguous subspaces). Use "
                    ".reshape(...) instead."
                ) from None
    return reshape(self, size)


@method("view_as", "reshape_as")
def _view_as(self: Tensor, other: Tensor) -> Tensor:
    return reshape(self, other._data.shape)


@method("expand")
def _expand_method(self: Tensor, *sizes: Any) -> Tensor:
    return expand(self, _shape_arg(sizes))


@method("expand_as")
def _expand_as(self: Tensor, other: Tensor) -> Tensor:
    return expand(self, other._data.shape)


@method("permute")
def _permute_method(self: Tensor, *dims: Any) -> Tensor:
    return permute(self, _shape_arg(dims))


@method("contiguous")
def _contiguous(self: Tensor) -> Tensor:
    """Self when its elements are laid out in row-major order, else a row-major copy
    (recorded as CloneBackward0, as PyTorch records it)."""
    if self.is_contiguous():
        return self
    return apply(S.CLONE, (self,))


@implements(S.GETITEM, "unbind")
def unbind(a: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    d = _norm_dim(dim, a._data.ndim)
    lead = (slice(None),) * d
    return tuple(getitem(a, (*lead, i)) for i in range(a._data.shape[d]))


@implements(S.GETITEM, "narrow")
def narrow(a: Tensor, dim: int, start: int, length: int) -> Tensor:
    d = _norm_dim(dim, a._data.ndim)
    return getitem(a, (*(slice(None),) * d, slice(start, start + length)))


@method("__setitem__")
def _setitem(self: Tensor, key: Any, value: Any) -> None:
    index, advanced = _index(key, self._data.ndim)
    if advanced:
        _check_masks(index if isinstance(index, tuple) else (index,), self._data.shape)
        # (basic indexing copies, casting; ATen's index_put does not cast a tensor)
        if isinstance(value, Tensor) and value._data.dtype != self._data.dtype:
            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{dtypes.type_word(self._data.dtype)} for the destination and "
                f"{dtypes.type_word(value._data.dtype)} for the source."
            )
    tracked = isinstance(value, Tensor) and core.is_grad_enabled() and value.requires_grad
    if self._check_inplace() or tracked:  # recorded: y[index] = value in the graph
        val = value if isinstance(value, Tensor) else tensor(value, dtype=self.dtype)
        _check_put(self._data, index, val._data)
        name = "IndexPutBackward0" if advanced else "torch::autograd::CopySlices"
        attrs = {"index": index, "advanced": advanced}
        self._inplace(apply(S.INDEX_PUT, (self._shadow(), val), attrs, name=name))
        return
    val = value._data if isinstance(value, Tensor) else value
    _check_put(self._data, index, val)
    self._data[index] = val
    self._bump()


def _check_put(target: Any, index: Any, value: Any) -> None:
    """PyTorch's errors for a bad index or a value that does not fit the indexed places."""
    try:
        region = target[index]
    except IndexError as exc:
        raise IndexError(str(exc).replace("axis", "dimension")) from None
    try:
        np.broadcast_shapes(np.shape(value), region.shape)
    except ValueError:
        raise _expand_error(region.shape, np.shape(value)) from None


@public("broadcast_tensors")
def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors expanded to their common broadcast shape (views, as expand)."""
    if len(tensors) == 1 and isinstance(tensors[0], list | tuple):
        tensors = tuple(tensors[0])
    shape = np.broadcast_shapes(*(t._data.shape for t in tensors))
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


@method("repeat")
def _repeat(self: Tensor, *sizes: Any) -> Tensor:
    """Tile along each dim (new leading dims as needed): an expand and a reshape, named as
    PyTorch's node (RepeatBackward0)."""
    reps = _shape_arg(sizes)
    if len(reps) < self._data.ndim:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions "
            "of tensor"
        )
    shape = (1,) * (len(reps) - self._data.ndim) + tuple(self._data.shape)
    inter = [n for s in shape for n in (1, s)]
    tiled = [n for r, s in zip(reps, shape, strict=True) for n in (r, s)]
    out = (
        self.reshape(inter).expand(tiled).reshape([r * s for r, s in zip(reps, shape, strict=True)])
    )
    if out.grad_fn is not None:
        core.rename(out.grad_fn, "RepeatBackward0")
    return out


@public("flip", method=True)
def flip(a: Tensor, dims: Any, *more: Any) -> Tensor:
    """Reverse the order along ``dims``: an indexing node, named as PyTorch's (FlipBackward0)."""
    dims = (dims, *more) if more else (dims if isinstance(dims, list | tuple) else (dims,))
    shape = a._data.shape
    flipped = {_norm_dim(int(d), len(shape)) for d in dims}
    ranges = [np.arange(n)[::-1] if k in flipped else np.arange(n) for k, n in enumerate(shape)]
    out = getitem(a, np.ix_(*ranges)) if shape else a.clone()
    if out.grad_fn is not None:
        core.rename(out.grad_fn, "FlipBackward0")
    return out


@public("fliplr", method=True)
def fliplr(a: Tensor) -> Tensor:
    return flip(a, 1)


@public("flipud", method=True)
def flipud(a: Tensor) -> Tensor:
    return flip(a, 0)
