"""The function API (``torch.add``, ``torch.exp``, ``torch.max`` ...) over the op table.

The simple functions are made from the table: a row with a dtype rule (``engine.ops``) gets
its function here, under each name it declares (``torch.exp``, ``torch.arcsin`` ...), at the
end of this module. What needs more than a call is hand-written below, registered with
``@implements(row)`` under the names its row declares (or ``@public`` / ``@method`` where no row
declares the name): argument parsing and PyTorch's messages, overloads (``torch.max(x)`` /
``torch.max(x, dim)``), composites (var, std, norm, masked_fill ...) built from the rows. By
topic beside it: shapes.py (shape and indexing), comparisons.py (outside the graph),
conversions.py (dtype and device), out.py (``out=``); engine.methods makes every in-place
method from the table.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, ParamSpec, TypeVar

import numpy as np

from engine import comparisons as _comparisons  # noqa: F401 - registers torch.eq ...
from engine import conversions as _conversions  # noqa: F401 - registers Tensor.to, .float ...
from engine import core, dtypes
from engine import ops as O
from engine import shape_ops as S
from engine.backend import array_module, move
from engine.dtypes import DType
from engine.factories import full, full_like, tensor
from engine.registry import FUNCTIONS, implements, method, public
from engine.shapes import reshape, unsqueeze
from engine.sizes import _ReturnTypes
from engine.tensor import (
    Tensor,
    _apply1,
    _as_float,
    _cast_keep_graph,
    _check_int_division,
    _nograd_binary,
    _nograd_unary,
    _norm_dim,
    _result_dtype,
    _Scalar,
    apply,
    binary,
    broadcast_mismatch,
    failed,
)

if TYPE_CHECKING:
    # the functions made from the table's rows at the end of this module
    def __getattr__(name: str) -> Any: ...


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else tensor(x)


@implements(O.ADD)
def add(a: Any, b: Any, alpha: Any = 1) -> Tensor:
    a = _as_tensor(a)
    return binary(O.ADD, a, b if alpha == 1 else b * alpha)


@implements(O.SUB)
def sub(a: Any, b: Any, alpha: Any = 1) -> Tensor:
    a = _as_tensor(a)
    return binary(O.SUB, a, b if alpha == 1 else b * alpha)


@implements(O.DIV)
def div(a: Any, b: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return _as_tensor(b).__rtruediv__(a)
    return binary(O.DIV, a, b)


@implements(O.POW, "pow", "__pow__")
def pow(a: Any, exponent: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return rpow(a, exponent)
    if isinstance(exponent, Tensor):
        if exponent._data.ndim == 0 and not exponent.requires_grad:
            return pow(a, exponent.item())
        target = _result_dtype(a, exponent)
        return apply(
            O.POW_T,
            (_cast_keep_graph(a, target) if a._data.dtype != target else a, exponent),
            out_dtype=target,
        )
    if not isinstance(exponent, _Scalar):
        raise TypeError(
            f"unsupported operand type(s) for ** or pow(): 'Tensor' and '{type(exponent).__name__}'"
        )
    if a._data.dtype.kind in "iub" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    target = _result_dtype(a, exponent)
    src = a if a._data.dtype == target else _cast_keep_graph(a, target)
    return apply(O.POW, (src,), {"p": exponent})


def rpow(base: Any, exponent: Tensor) -> Tensor:
    """base ** exponent for a number base (``2 ** x``)."""
    if isinstance(base, Tensor):
        return pow(base, exponent)
    target = _result_dtype(exponent, base)
    src = exponent if exponent._data.dtype == target else _cast_keep_graph(exponent, target)
    return apply(O.RPOW, (src,), {"base": base}, out_dtype=target)


@method("__rpow__")
def _rpow_method(self: Tensor, base: Any) -> Tensor:
    return rpow(base, self)


@implements(O.POW, "square")
def square(a: Tensor) -> Tensor:
    return pow(a, 2)


@implements(O.CLAMP)
def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    lo = min.item() if isinstance(min, Tensor) else min
    hi = max.item() if isinstance(max, Tensor) else max
    return apply(O.CLAMP, (a,), {"lo": lo, "hi": hi})


@implements(O.ROUND)
def round(a: Tensor, decimals: int = 0) -> Tensor:
    return apply(O.ROUND, (a,), {"decimals": decimals}, name="RoundBackward1" if decimals else None)


@implements(O.WHERE, "where", method=False)
def where(condition: Tensor, a: Any = None, b: Any = None) -> Any:
    if a is None and b is None:
        return tuple(Tensor._wrap(i) for i in np.nonzero(condition._data))
    ta = a if isinstance(a, Tensor) else None
    tb = b if isinstance(b, Tensor) else None
    ref = ta if ta is not None else tb
    if ref is None:
        ta = tensor(a)
        ref = ta
    xp = array_module(ref._data)  # a scalar operand goes to the tensor operand's device
    if ta is None:
        ta = Tensor._wrap(xp.asarray(a, dtype=ref._data.dtype))
    if tb is None:
        tb = Tensor._wrap(xp.asarray(b, dtype=ref._data.dtype))
    if ta._data.dtype != tb._data.dtype:
        target = _result_dtype(ta, tb)
        ta, tb = _cast_keep_graph(ta, target), _cast_keep_graph(tb, target)
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    if isinstance(condition, Tensor) and cond.dtype.kind != "b":
        raise RuntimeError(
            "where expected condition to be a boolean tensor, but got a tensor with dtype "
            f"{dtypes.type_word(cond.dtype)}"
        )
    return apply(O.WHERE, (Tensor._wrap(cond.astype(bool, copy=False)), ta, tb))


def _norm_dims(dim: Any, ndim: int) -> Any:
    if dim is None:
        return None
    if isinstance(dim, list | tuple):
        if len(dim) == 0:
            return None
        return tuple(_norm_dim(d, ndim) for d in dim)
    return _norm_dim(int(dim), ndim) if ndim else None


@implements(O.SUM, axis=True)
def sum(a: Tensor, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
    if isinstance(a, list | tuple):
        raise TypeError("sum(): argument 'input' must be Tensor, not list")
    return _sum_or_prod(O.SUM, a, dim is not None, _norm_dims(dim, a._data.ndim), keepdim, dtype)


def _sum_or_prod(
    op: Any, a: Tensor, by_dim: bool, axis: Any, keepdim: bool, dtype: DType | None
) -> Tensor:
    """sum / prod over ``axis`` (given a dim, PyTorch's node is ...Backward1), in
    ``dtype``, else int64 for integer and bool inputs as in PyTorch."""
    if dtype is not None:
        target = dtype.np
    else:
        target = np.dtype(np.int64) if a._data.dtype.kind in "iub" else None
    name = op.grad_fn[:-1] + "1" if by_dim else None
    return apply(op, (a,), {"axis": axis, "keepdim": keepdim}, name=name, out_dtype=target)


@implements(O.PROD, axis=True)
def prod(
    a: Tensor, dim: int | None = None, keepdim: bool = False, dtype: DType | None = None
) -> Tensor:
    """Product of all elements (ProdBackward0) or along one dim (ProdBackward1); integer and
    bool inputs give int64, as in PyTorch."""
    if dim is not None and not isinstance(dim, int):
        raise TypeError(f"prod(): argument 'dim' must be int, not {type(dim).__name__}")
    axis = None if dim is None else _norm_dim(dim, a._data.ndim)
    return _sum_or_prod(O.PROD, a, dim is not None, axis, keepdim, dtype)


@implements(O.MEAN, axis=True)
def mean(a: Tensor, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
    if a._data.dtype.kind != "f" and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dtypes.type_word(a._data.dtype)}"
        )
    axis = _norm_dims(dim, a._data.ndim)
    name = "MeanBackward1" if dim is not None else None
    return apply(
        O.MEAN,
        (a,),
        {"axis": axis, "keepdim": keepdim},
        name=name,
        out_dtype=dtype.np if dtype is not None else a._data.dtype,
    )


def _max_min(a: Tensor, dim: Any, keepdim: bool, mode: str) -> Any:
    if isinstance(dim, Tensor):
        return binary(O.MAXIMUM if mode == "max" else O.MINIMUM, a, dim)
    if dim is None:
        if a._data.size == 0:
            raise RuntimeError(
                f"{mode}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return apply(
            O.AMAX,
            (a,),
            {"axis": None, "keepdim": False, "mode": mode},
            name="MaxBackward1" if mode == "max" else "MinBackward1",
        )
    axis = _norm_dim(dim, a._data.ndim)
    data = a._data
    indices = data.argmax(axis=axis) if mode == "max" else data.argmin(axis=axis)
    if data.ndim == 0:
        indices = array_module(data).asarray(0)
    values = apply(
        O.MAX_DIM,
        (a,),
        {"axis": axis, "keepdim": keepdim, "indices": indices},
        name="MaxBackward0" if mode == "max" else "MinBackward0",
    )
    idx = Tensor._wrap((np.expand_dims(indices, axis) if keepdim else indices).astype(np.int64))
    return _ReturnTypes(mode, values, idx)


@implements(O.AMAX, "max", axis=True)
def max(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _max_min(a, dim, keepdim, "max")


@implements(O.AMAX, "min", axis=True)
def min(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _max_min(a, dim, keepdim, "min")


@implements(O.AMAX, "amax", axis=True)
def amax(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axis = _norm_dims(dim, a._data.ndim)
    return apply(O.AMAX, (a,), {"axis": axis, "keepdim": keepdim, "mode": "max"})


@implements(O.AMAX, "amin", axis=True)
def amin(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axis = _norm_dims(dim, a._data.ndim)
    return apply(
        O.AMAX, (a,), {"axis": axis, "keepdim": keepdim, "mode": "min"}, name="AminBackward0"
    )


@public("argmax", method=True, axis=True)
def argmax(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._wrap(a._data.argmax().astype(np.int64))  # stays on the device
    out = a._data.argmax(axis=_norm_dim(dim, a._data.ndim), keepdims=keepdim)
    return Tensor._wrap(out.astype(np.int64))


@public("argmin", method=True, axis=True)
def argmin(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._wrap(a._data.argmin().astype(np.int64))
    out = a._data.argmin(axis=_norm_dim(dim, a._data.ndim), keepdims=keepdim)
    return Tensor._wrap(out.astype(np.int64))


@public("var", method=True, axis=True)
def var(
    a: Tensor, dim: Any = None, unbiased: bool = True, keepdim: bool = False, correction: Any = None
) -> Tensor:
    return _variance(a, dim, unbiased, keepdim, correction, root=False)


@public("std", method=True, axis=True)
def std(
    a: Tensor, dim: Any = None, unbiased: bool = True, keepdim: bool = False, correction: Any = None
) -> Tensor:
    return _variance(a, dim, unbiased, keepdim, correction, root=True)


def _variance(
    a: Tensor, dim: Any, unbiased: bool, keepdim: bool, correction: Any, root: bool
) -> Tensor:
    """var, or std (``root``), over ``dim`` with Bessel's ``correction``: one node."""
    corr = (1 if unbiased else 0) if correction is None else correction
    axis = _norm_dims(dim, a._data.ndim)
    if a._data.dtype.kind != "f":
        mean(a, dim, keepdim=True)  # PyTorch's error for an integer input
    n = (
        a._data.size
        if axis is None
        else int(
            np.prod([a._data.shape[d] for d in (axis if isinstance(axis, tuple) else (axis,))])
        )
    )
    attrs = {"axis": axis, "keepdim": keepdim, "count": n, "corr": corr, "root": root}
    return apply(O.VAR, (a,), attrs, name="StdBackward0" if root else None)


@public("norm", method=True, axis=True)
def norm(a: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    if p == 2 or p == "fro":
        return sum(a * a, dim, keepdim).sqrt()
    if p == 1:
        return sum(a.abs(), dim, keepdim)
    return pow(sum(pow(a.abs(), p), dim, keepdim), 1.0 / p)


def _softmax_row(op: O.Op, a: Tensor, dim: int | None, dtype: DType | None, kernel: str) -> Tensor:
    """softmax / log_softmax of the (cast) input over its normalised dim; PyTorch has no
    softmax kernel for integer input, and no default dim."""
    if dim is None:
        raise TypeError(f'{kernel}() missing 1 required positional arguments: "dim"')
    if dtype is not None:
        a = a.to(dtype)
    d = _norm_dim(dim, a._data.ndim)
    if a._data.dtype.kind != "f":
        last = "lastdim_" if d == a._data.ndim - 1 or a._data.ndim == 0 else ""
        raise NotImplementedError(
            f'"{kernel}_{last}kernel_impl" not implemented for '
            f"'{dtypes.type_word(a._data.dtype)}'"
        )
    return apply(op, (a,), {"dim": d})


@implements(O.SOFTMAX, axis=True)
def softmax(a: Tensor, dim: int | None = None, dtype: DType | None = None) -> Tensor:
    return _softmax_row(O.SOFTMAX, a, dim, dtype, "softmax")


@implements(O.LOG_SOFTMAX, axis=True)
def log_softmax(a: Tensor, dim: int | None = None, dtype: DType | None = None) -> Tensor:
    return _softmax_row(O.LOG_SOFTMAX, a, dim, dtype, "log_softmax")


@implements(O.MATMUL, "matmul", "mm", "dot", "__matmul__")
def matmul(a: Tensor, b: Tensor) -> Tensor:
    try:
        if not isinstance(a, Tensor) or not isinstance(b, Tensor):
            raise TypeError(
                f"matmul(): argument 'other' (position 1) must be Tensor, not "
                f"{type(b).__name__ if isinstance(a, Tensor) else type(a).__name__}"
            )
        ad, bd = a._data, b._data
        if ad.ndim == 0 or bd.ndim == 0:
            raise RuntimeError(
                f"both arguments to matmul need to be at least 1D, but they are {ad.ndim}D and "
                f"{bd.ndim}D"
            )
        if ad.dtype != bd.dtype and ad.ndim == 1 and bd.ndim == 1:
            raise RuntimeError(
                "dot : expected both vectors to have same dtype, but found "
                f"{dtypes.type_word(ad.dtype)} and {dtypes.type_word(bd.dtype)}"
            )
        if ad.dtype != bd.dtype:  # ATen's words are its kernel's: mv, bmm, or mm
            wa, wb = dtypes.type_word(ad.dtype), dtypes.type_word(bd.dtype)
            if ad.ndim >= 2 and bd.ndim == 1:  # a matrix (or a batch, folded) times a vector
                raise RuntimeError(
                    f"addmv input tensors must have the same dtype, but got {wb}, {wa}, and {wb}"
                )
            if bd.ndim >= 3:  # a batch of matrices on the right: bmm (on the left only: mm)
                raise RuntimeError(f"expected scalar type {wa} but found {wb}")
            raise RuntimeError(
                f"expected m1 and m2 to have the same dtype, but got: {_dtype_word(ad.dtype)} != "
                f"{_dtype_word(bd.dtype)}"
            )
        k_a = ad.shape[-1]
        k_b = bd.shape[0] if bd.ndim == 1 else bd.shape[-2]
        if bd.ndim >= 3:
            _matmul_batch_check(ad.shape, bd.shape, k_a, k_b)
        if k_a != k_b:
            if ad.ndim >= 3 and bd.ndim == 1:
                rows = int(np.prod(ad.shape[:-1]))
                raise RuntimeError(
                    f"size mismatch, got input ({rows}), mat ({rows}x{k_a}), vec ({bd.shape[0]})"
                )
            if ad.ndim == 1 and bd.ndim == 1:
                raise RuntimeError(
                    f"inconsistent tensor size, expected tensor [{ad.shape[0]}] and src [{bd.shape[0]}] to have the same "
                    f"number of elements, but got {ad.shape[0]} and {bd.shape[0]} elements respectively"
                )
            if ad.ndim >= 2 and bd.ndim == 1:  # a matrix (or a batch, folded) times a vector
                raise RuntimeError(
                    f"size mismatch, got input ({ad.shape[0]}), mat ({ad.shape[0]}x{ad.shape[1]}), "
                    f"vec ({bd.shape[0]})"
                )
            sa = "x".join(
                str(s)
                for s in (ad.shape if ad.ndim == 2 else (int(np.prod(ad.shape[:-1])), ad.shape[-1]))
            )
            sb = "x".join(str(s) for s in (bd.shape if bd.ndim == 2 else (bd.shape[0], 1)))
            raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")
        if ad.ndim == 1 and bd.ndim == 1:
            name = "DotBackward0"
        elif ad.ndim == 2 and bd.ndim == 1:
            name = "MvBackward0"
        elif ad.ndim == 2 and bd.ndim == 2:
            name = None
        elif ad.ndim == 1:
            name = "SqueezeBackward4"
        else:
            name = "UnsafeViewBackward0"
        return apply(O.MATMUL, (a, b), name=name)
    except (RuntimeError, TypeError, IndexError) as exc:
        failed(exc, "matmul", (a, b))
        raise


@method("__rmatmul__")
def _rmatmul(self: Tensor, other: Any) -> Tensor:
    return matmul(_as_tensor(other), self)


def _matmul_batch_check(sa: tuple[int, ...], sb: tuple[int, ...], k_a: int, k_b: int) -> None:
    """PyTorch's errors for a batched matmul (the second operand has 3 or more dimensions)."""
    ba, bb = sa[:-2], sb[:-2]
    mismatch = broadcast_mismatch(ba, bb)
    if mismatch is not None:
        raise mismatch
    if k_a != k_b:
        batch = int(np.prod(np.broadcast_shapes(ba, bb)))
        raise RuntimeError(
            "Expected size for first two dimensions of batch2 tensor to be: "
            f"[{batch}, {k_a}] but got: [{batch}, {k_b}]."
        )


def _dtype_word(np_dtype: Any) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int"}.get(
        np.dtype(np_dtype).name, np.dtype(np_dtype).name
    )


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """F.linear: one node, named as PyTorch names it for this input's rank."""
    try:
        xd, wd = x._data, weight._data
        if xd.shape[-1] != wd.shape[-1]:
            rows = int(np.prod(xd.shape[:-1])) if xd.ndim > 1 else 1
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({rows}x{xd.shape[-1]} and "
                f"{wd.shape[1]}x{wd.shape[0]})"
            )
        if xd.dtype != wd.dtype:
            if xd.ndim == 1:  # (ATen runs a vector's linear as a matmul: mm's words)
                raise RuntimeError(
                    "expected m1 and m2 to have the same dtype, but got: "
                    f"{_dtype_word(xd.dtype)} != {_dtype_word(wd.dtype)}"
                )
            raise RuntimeError(
                f"mat1 and mat2 must have the same dtype, but got {dtypes.type_word(xd.dtype)} and "
                f"{dtypes.type_word(wd.dtype)}"
            )
        if xd.ndim == 2:
            name = None if bias is not None else "MmBackward0"
        elif bias is None:
            name = "SqueezeBackward4" if xd.ndim == 1 else "UnsafeViewBackward0"
        else:
            name = "ViewBackward0"
        inputs = (x, weight) if bias is None else (x, weight, bias)
        return apply(O.LINEAR, inputs, name=name)
    except (RuntimeError, TypeError, IndexError) as exc:
        failed(exc, "linear", (x, weight) if bias is None else (x, weight, bias))
        raise


@public("numel")
def numel(a: Tensor) -> int:
    return a.numel()


@public("is_tensor")
def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


@public("sign", method=True, out=True)
def sign(a: Tensor) -> Tensor:
    return _nograd_unary(a, np.sign)


@public("outer", method=True)
def outer(a: Tensor, b: Tensor) -> Tensor:
    return unsqueeze(a, 1) * unsqueeze(b, 0)


@implements(O.CUMSUM, axis=True)
def cumsum(a: Tensor, dim: int) -> Tensor:
    return apply(O.CUMSUM, (a,), {"dim": _norm_dim(dim, a._data.ndim)})


@implements(O.WHERE, "masked_fill")
def masked_fill(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    """where(mask, value, a): the filled places get no gradient."""
    if mask._data.dtype.kind != "b":
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.name}"
        )
    fill = value if isinstance(value, Tensor) else full_like(a, value)
    if fill._data.dtype != a._data.dtype:
        fill = _cast_keep_graph(fill, a._data.dtype)
    cond = Tensor._wrap(mask._data)
    return apply(O.WHERE, (cond, fill, a), name="MaskedFillBackward0")


@public("argsort", method=True)
def argsort(a: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    d = _norm_dim(dim, a._data.ndim)
    xp = array_module(a._data)
    order = xp.argsort(-a._data if descending else a._data, axis=d, kind="stable")
    return Tensor._wrap(order.astype(np.int64))


@implements(S.GATHER, "sort")
def sort(a: Tensor, dim: int = -1, descending: bool = False) -> _ReturnTypes:
    # NOTE: values are a gather of the input at the sorted indices (one node, named as
    # PyTorch names it), so their gradient flows back to the original positions.
    d = _norm_dim(dim, a._data.ndim)
    idx = argsort(a, d, descending)
    values = apply(S.GATHER, (a,), {"dim": d, "index": idx._data}, name="SortBackward0")
    return _ReturnTypes("sort", values, idx)


@implements(S.GATHER, "topk")
def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True) -> _ReturnTypes:
    d = _norm_dim(dim, a._data.ndim)
    if not 0 <= k <= a._data.shape[d]:
        raise RuntimeError("selected index k out of range")
    order = argsort(a, d, descending=largest)._data
    idx = (
        np.take(order, np.arange(k), axis=d)
        if order.__class__ is np.ndarray
        else (array_module(order).take(order, array_module(order).arange(k), axis=d))
    )
    values = apply(S.GATHER, (a,), {"dim": d, "index": idx}, name="TopkBackward0")
    return _ReturnTypes("topk", values, Tensor._wrap(idx))


@public("nonzero", method=True)
def nonzero(a: Tensor) -> Tensor:
    xp = array_module(a._data)
    return Tensor._wrap(xp.stack(xp.nonzero(a._data), axis=1).astype(np.int64))


@implements(O.MATMUL, "mv")
def mv(a: Tensor, v: Tensor) -> Tensor:
    if a._data.ndim != 2 or v._data.ndim != 1:
        raise RuntimeError(
            f"vector + matrix @ vector expected, got 1, {a._data.ndim}, {v._data.ndim}"
        )
    if a._data.shape[1] != v._data.shape[0]:
        raise RuntimeError(
            f"size mismatch, got input ({a._data.shape[0]}), mat "
            f"({a._data.shape[0]}x{a._data.shape[1]}), vec ({v._data.shape[0]})"
        )
    return matmul(a, v)


def _triangle(a: Tensor, diagonal: int, upper: bool, name: str) -> Tensor:
    if a._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    xp = array_module(a._data)
    rows, cols = a._data.shape[-2:]
    keep = (xp.triu if upper else xp.tril)(xp.ones((rows, cols), dtype=bool), diagonal)
    if not a.requires_grad:
        return Tensor._wrap(xp.where(keep, a._data, xp.zeros((), dtype=a._data.dtype)))
    zero = Tensor._wrap(xp.zeros((), dtype=a._data.dtype))
    node = "TriuBackward0" if upper else "TrilBackward0"
    return apply(O.WHERE, (Tensor._wrap(keep), a, zero), name=node)


@implements(O.WHERE, "tril")
def tril(a: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(a, diagonal, False, "tril")


@implements(O.WHERE, "triu")
def triu(a: Tensor, diagonal: int = 0) -> Tensor:
    return _triangle(a, diagonal, True, "triu")


# ---- grad-mode managers beyond autograd's no_grad / enable_grad ----------------------------------


@public("inference_mode")
class inference_mode(core.no_grad):
    """``with torch.inference_mode():`` records no graph, as ``no_grad`` (``mode=False``:
    recording stays as it was)."""

    def __init__(self, mode: bool = True) -> None:
        self._target = not mode and core.is_grad_enabled()


@public("set_grad_enabled")
class set_grad_enabled(core._GradContext):
    """``torch.set_grad_enabled(mode)``: sets the mode when called, and used in ``with``,
    restores the previous mode on exit (PyTorch's behaviour for both uses)."""

    def __init__(self, mode: bool) -> None:
        self._prev = core.is_grad_enabled()
        core.set_grad_enabled(mode)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        core.set_grad_enabled(self._prev)


# ---- NumPy-style keyword aliases -------------------------------------------------------------

_P = ParamSpec("_P")
_R = TypeVar("_R")


def dim_aliases(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """fn accepting ``axis=`` for ``dim=`` and ``keepdims=`` for ``keepdim=``, as PyTorch does
    for its built-in functions."""

    @functools.wraps(fn)
    def accepting(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        if kwargs:
            if "axis" in kwargs:
                kwargs["dim"] = kwargs.pop("axis")
            if "keepdims" in kwargs:
                kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)

    return accepting


# ---- methods that take their arguments differently from the function of the same name ---------


@method("where")
def _where_method(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    return where(condition, self, other)  # type: ignore[no-any-return]


@implements(O.MATMUL, "bmm")
def bmm(a: Tensor, b: Tensor) -> Tensor:
    if a._data.ndim != 3 or getattr(b, "ndim", 0) != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    return matmul(a, b)


@public("logsumexp", method=True, axis=True)
def logsumexp(a: Tensor, dim: Any, keepdim: bool = False) -> Tensor:
    """log(sum(exp(x))) over dim, stably (shifted by the max), recorded from its parts."""
    m = amax(a, dim, keepdim=True).detach()
    m = where(m.isfinite(), m, m * 0)
    out = sum((a - m).exp(), dim, keepdim=True).log() + m
    if keepdim:
        return out
    dims = {d % out.dim() for d in ((dim,) if isinstance(dim, int) else dim)}
    return reshape(out, tuple(s for i, s in enumerate(out.shape) if i not in dims))


@public("remainder", method=True)
def remainder(a: Tensor, b: Any) -> Tensor:
    _check_int_division(a, b)
    return _nograd_binary(a, b, np.remainder)  # Python's sign rule, as torch's %


@public("fmod", method=True)
def fmod(a: Tensor, b: Any) -> Tensor:
    _check_int_division(a, b)
    return _nograd_binary(a, b, np.fmod)  # C's sign rule (of the dividend)


@public("all", method=True, axis=True)
def all(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return Tensor._wrap(a._data.all(axis=_norm_dims(dim, a._data.ndim), keepdims=keepdim))


@public("any", method=True, axis=True)
def any(a: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    return Tensor._wrap(a._data.any(axis=_norm_dims(dim, a._data.ndim), keepdims=keepdim))


# ---- in-place methods (recorded as PyTorch records them; the common updates under no_grad
# run in place in NumPy, see Tensor._inplace_fast) ----------------------------------------------


@method("zero_")
def _zero_(self: Tensor) -> Tensor:
    if self._check_inplace():
        return self._inplace(self._named(binary(O.MUL, self._shadow(), 0), "ZeroBackward0"))
    return _fill_(self, 0)


@method("fill_")
def _fill_(self: Tensor, value: Any) -> Tensor:
    if self._check_inplace():
        filled = self._named(binary(O.MUL, self._shadow(), 0) + value, "FillBackward2")
        return self._inplace(filled)
    self._data[...] = value.item() if isinstance(value, Tensor) else value
    self._bump()
    return self


@method("copy_")
def _copy_(self: Tensor, src: Any) -> Tensor:
    src_t = src if isinstance(src, Tensor) else tensor(src)
    if self._check_inplace() or (core.is_grad_enabled() and src_t.requires_grad):
        copied = binary(O.MUL, self._shadow(), 0) + src_t
        return self._inplace(self._named(copied, "torch::autograd::CopyBackwards"))
    self._data[...] = move(src_t._data, self.device).astype(self._data.dtype, copy=False)
    self._bump()
    return self


# ---- ops added as one row and its test case (see engine.ops) -----------------------------------


@implements(O.CUMPROD, axis=True)
def cumprod(a: Tensor, dim: int | None = None, dtype: DType | None = None) -> Tensor:
    if dim is None:
        raise TypeError('cumprod() missing 1 required positional arguments: "dim"')
    target = dtype.np if dtype is not None else None
    if target is None and a._data.dtype.kind in "iub":
        target = np.dtype(np.int64)
    return apply(O.CUMPROD, (a,), {"dim": _norm_dim(dim, a._data.ndim)}, out_dtype=target)


@implements(O.DIAG)
def diag(a: Tensor, diagonal: int = 0) -> Tensor:
    """A vector to a matrix with it on diagonal ``diagonal``, or a matrix's diagonal."""
    nd = a._data.ndim
    if nd not in (1, 2):
        raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {nd}D")
    name = None if nd == 1 else "DiagonalBackward0_copy"
    return apply(O.DIAG, (a,), {"k": int(diagonal)}, name=name)


@implements(O.EINSUM)
def einsum(equation: str, *operands: Any) -> Tensor:
    """Einstein summation over subscripts of letters (``'ij,jk->ik'``, ``'bi,bi->b'``,
    ``'i,i->'``): one recorded node, whose backward is einsums again."""
    if len(operands) == 1 and isinstance(operands[0], list | tuple):
        operands = tuple(operands[0])
    eq = equation.replace(" ", "")
    if "." in eq:
        raise RuntimeError("einsum with an ellipsis ('...') is not supported in the playground")
    lhs, arrow, rhs = eq.partition("->")
    inputs = lhs.split(",")
    if len(inputs) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(inputs) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    sizes: dict[str, int] = {}
    for k, (sub, t) in enumerate(zip(inputs, operands, strict=True)):
        if not isinstance(t, Tensor):
            raise TypeError(
                f"einsum(): argument 'operands' must be tuple of Tensors, not {type(t).__name__}"
            )
        for pos, c in enumerate(sub):
            if not c.isascii() or not c.isalpha():
                raise RuntimeError(
                    f"einsum(): invalid subscript given at index {pos} in the equation string, "
                    "subscripts must be in [a-zA-Z]"
                )
        if len(sub) != t._data.ndim:
            raise RuntimeError(
                f"einsum(): the number of subscripts in the equation ({len(sub)}) does not match "
                f"the number of dimensions ({t._data.ndim}) for operand {k} and no ellipsis was "
                "given"
            )
        if len(set(sub)) != len(sub):
            raise RuntimeError(
                f"einsum(): the subscripts '{sub}' repeat an index within one operand (a "
                "diagonal or a trace); that is not supported in the playground"
            )
        for c, n in zip(sub, t._data.shape, strict=True):
            if sizes.setdefault(c, n) != n:
                raise RuntimeError(
                    f"einsum(): subscript {c} has size {n} for operand {k} which does not "
                    f"broadcast with previously seen size {sizes[c]}"
                )
    if arrow:
        for c in rhs:
            if c not in sizes:
                raise RuntimeError(
                    f"einsum(): output subscript {c} does not appear in the equation for any "
                    "input operand"
                )
            if rhs.count(c) > 1:
                raise RuntimeError(
                    f"einsum(): output subscript {c} appears more than once in the output"
                )
        output = rhs
    else:  # implicit: the letters seen once, in alphabetical order
        output = "".join(sorted(c for c in sizes if lhs.count(c) == 1))
    summed = set(sizes) - set(output)
    # ATen contracts with a (batched) matrix product, which wants one dtype; a product with
    # nothing summed (an outer product) it multiplies, promoting as ``*`` does
    first = operands[0]._data.dtype
    for t in operands[1:]:
        if summed and t._data.dtype != first:
            raise RuntimeError(
                f"expected scalar type {dtypes.type_word(first)} but found "
                f"{dtypes.type_word(t._data.dtype)}"
            )
    if len(operands) == 1:
        name = "SumBackward1" if summed else "PermuteBackward0"
    else:
        name = "ViewBackward0" if summed else "MulBackward0"
    attrs = {
        "equation": ",".join(inputs) + "->" + output,
        "inputs": tuple(inputs),
        "output": output,
    }
    return apply(O.EINSUM, tuple(operands), attrs, name=name)


# ---- scatter, repeat, broadcasting helpers ------------------------------------------------------


def _scatter(a: Tensor, dim: int, index: Tensor, src: Any, reduce: str) -> Tensor:
    idx = index._data
    if idx.dtype.kind not in "iu":
        raise RuntimeError("scatter(): Expected dtype int64 for index")
    if idx.ndim != a._data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if not isinstance(src, Tensor):
        src = full(tuple(idx.shape), src, dtype=a.dtype, device=a.device)
    elif src._data.dtype != a._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    d = _norm_dim(dim, a._data.ndim)
    name = (
        "ScatterAddBackward0"
        if reduce == "add"
        else ("ScatterBackward0" if src.requires_grad else "ScatterBackward1")
    )
    attrs = {"dim": d, "index": idx, "reduce": reduce}
    return apply(S.SCATTER_PUT, (a, src), attrs, name=name)


@public("scatter_add", method=True)
def scatter_add(a: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return _scatter(a, dim, index, src, "add")


@public("scatter", method=True)
def scatter(a: Tensor, dim: int, index: Tensor, src: Any = None, value: Any = None) -> Tensor:
    return _scatter(a, dim, index, src if src is not None else value, "set")


@method("scatter_add_")
def _scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    return self._inplace_binary(lambda a, s: _scatter(a, dim, index, s, "add"), src)


@method("scatter_")
def _scatter_(self: Tensor, dim: int, index: Tensor, src: Any = None, value: Any = None) -> Tensor:
    source = src if src is not None else value
    return self._inplace_binary(lambda a, s: _scatter(a, dim, index, s, "set"), source)


@method("dist")
def _dist(self: Tensor, other: Tensor, p: float = 2) -> Tensor:
    out = norm(self - other, p)
    if out.grad_fn is not None:
        core.rename(out.grad_fn, "DistBackward0")
    return out


# ---- the simple functions, made from the table's rows -------------------------------------------


def _non_float(a: Tensor, op: O.Op, name: str) -> Tensor:
    """An integer or bool input of an elementwise row, as its dtype rule says: taken as
    float32 ("float"), a copy of itself ("whole": already whole), or PyTorch's refusal."""
    if op.dtype == "whole":
        return Tensor._wrap(a._data.copy())
    if op.dtype == "float_only":
        raise NotImplementedError(
            f"\"{name}_cpu\" not implemented for '{dtypes.type_word(a._data.dtype)}'"
        )
    return _as_float(a)


def from_row(op: O.Op, name: str, *, as_method: bool = False) -> Callable[..., Tensor]:
    """``torch.<name>`` (or ``Tensor.<name>``) for a row with a dtype rule (see engine.ops):
    the row applied to its input, taken as the rule says."""
    rule = op.dtype
    fn: Callable[..., Tensor]
    if rule == "promote":

        def binary_fn(a: Any, b: Any) -> Tensor:
            return binary(op, _as_tensor(a), b)

        fn = binary_fn
    elif rule == "tensors":

        def tensors_fn(a: Tensor, b: Tensor) -> Tensor:
            for position, x, what in ((1, a, "input"), (2, b, "other")):
                if not isinstance(x, Tensor):
                    raise TypeError(
                        f"{name}(): argument '{what}' (position {position}) must be Tensor, "
                        f"not {type(x).__name__}"
                    )
            return binary(op, a, b)

        fn = tensors_fn
    elif as_method:  # self is a tensor: no check, the hot path of x.exp()

        def unary_method(self: Tensor) -> Tensor:
            if self._data.dtype.kind != "f" and rule != "same":
                self = _non_float(self, op, name)
                if self._data.dtype.kind != "f":  # "whole": the copy is the result
                    return self
            return _apply1(op, self)

        fn = unary_method
    else:

        def unary_fn(a: Tensor) -> Tensor:
            if not isinstance(a, Tensor):
                raise TypeError(
                    f"{name}(): argument 'input' (position 1) must be Tensor, not "
                    f"{type(a).__name__}"
                )
            if a._data.dtype.kind != "f" and rule != "same":
                a = _non_float(a, op, name)
                if a._data.dtype.kind != "f":
                    return a
            return _apply1(op, a)

        fn = unary_fn
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"{'Tensor' if as_method else 'torch'}.{name}: the op table's {op.name!r} row."
    return fn


for _op in O.OPS.values():
    if _op.dtype:
        for _name in _op.function:
            if _name not in FUNCTIONS:
                public(_name)(from_row(_op, _name))
            globals()[_name] = FUNCTIONS[_name]
