"""Functions outside the graph's arithmetic that lessons reach for: the bitwise operations on
integer and bool tensors, histograms (``histc``, ``histogram``), and the singular value
decomposition (``torch.svd``, ``torch.linalg.svd``; forward only: its backward raises a clear
error). Argument names, defaults and errors follow PyTorch 2.13."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import to_numpy
from engine.core import is_grad_enabled, rename
from engine.function import Function
from engine.registry import public
from engine.tensor import Tensor

__all__ = [
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "histc",
    "histogram",
    "svd",
]


# ---- bitwise: the operators of engine.tensor, under their function names ----------------------


@public("bitwise_and", method=True)
def bitwise_and(input: Tensor, other: Any) -> Tensor:
    return input & other


@public("bitwise_or", method=True)
def bitwise_or(input: Tensor, other: Any) -> Tensor:
    return input | other


@public("bitwise_xor", method=True)
def bitwise_xor(input: Tensor, other: Any) -> Tensor:
    return input ^ other


@public("bitwise_not", method=True)
def bitwise_not(input: Tensor) -> Tensor:
    if input._data.dtype.kind in "fc":
        word = dtypes.type_word(input._data.dtype)
        raise NotImplementedError(f'"bitwise_not_cpu" not implemented for {word!r}')
    return ~input


@public("bitwise_left_shift", method=True)
def bitwise_left_shift(input: Tensor, other: Any) -> Tensor:
    return input << other


@public("bitwise_right_shift", method=True)
def bitwise_right_shift(input: Tensor, other: Any) -> Tensor:
    return input >> other


# ---- histograms ---------------------------------------------------------------------------------


def _float_only(input: Tensor, kernel: str) -> np.ndarray:
    data = to_numpy(input._data)
    if data.dtype.kind != "f":
        word = dtypes.type_word(data.dtype)
        raise RuntimeError(f'"{kernel}" not implemented for {word!r}')
    return data


@public("histc", method=True)
def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:
    """Counts in ``bins`` equal bins over [min, max] (the data's range when both are 0);
    elements outside are ignored."""
    data = _float_only(input, "histogram_cpu")
    lo, hi = float(min), float(max)
    if lo == hi and data.size:
        lo, hi = float(data.min()), float(data.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    counts, _ = np.histogram(data, bins=int(bins), range=(lo, hi))
    return Tensor._wrap(counts.astype(data.dtype))


histogram_result = namedtuple("histogram", ["hist", "bin_edges"])  # type: ignore[name-match]


class _Histogram(histogram_result):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.return_types.histogram(\nhist={self.hist!r},\nbin_edges={self.bin_edges!r})"

    __str__ = __repr__


@public("histogram", method=True)
def histogram(
    input: Tensor,
    bins: Any = 100,
    *,
    range: tuple[float, float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> _Histogram:
    """(hist, bin_edges): counts (or weights' sums) in bins given by a count or by edges."""
    data = _float_only(input, "histogram_cpu")
    edges: Any = to_numpy(bins._data) if isinstance(bins, Tensor) else int(bins)
    lo_hi = None
    if not isinstance(bins, Tensor):
        if range is not None:
            lo_hi = (float(range[0]), float(range[1]))
        elif data.size:
            lo_hi = (float(data.min()), float(data.max()))
        else:
            lo_hi = (0.0, 0.0)
    w = None if weight is None else to_numpy(weight._data)
    hist, out_edges = np.histogram(data, bins=edges, range=lo_hi, weights=w, density=density)
    return _Histogram(
        Tensor._wrap(hist.astype(data.dtype)), Tensor._wrap(out_edges.astype(data.dtype))
    )


# ---- singular value decomposition ---------------------------------------------------------------


class _NoSvdGradient(Function):
    """Passes the factors through; its backward says the gradient is not here."""

    @staticmethod
    def forward(ctx: Any, a: Tensor, u: Tensor, s: Tensor, v: Tensor) -> Any:
        return u.clone(), s.clone(), v.clone()

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise NotImplementedError(
            "the gradient of torch.svd / torch.linalg.svd is not in the playground yet "
            "(torch.linalg.svdvals' is not either)"
        )


def _factors(A: Tensor, full_matrices: bool) -> tuple[Tensor, Tensor, Tensor]:
    data = to_numpy(A._data)
    if data.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    if data.dtype.kind != "f":
        raise RuntimeError(
            f"linalg.svd: Expected a floating point or complex tensor as input. Got "
            f"{dtypes.type_word(data.dtype)}"
        )
    u, s, vh = np.linalg.svd(data, full_matrices=full_matrices)
    return (
        Tensor._wrap(u.astype(data.dtype)),
        Tensor._wrap(s.astype(data.dtype)),
        Tensor._wrap(vh.astype(data.dtype)),
    )


def _graphed(A: Tensor, u: Tensor, s: Tensor, v: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    if A.requires_grad and is_grad_enabled():
        out = _NoSvdGradient.apply(A, u, s, v)
        for t in out:
            rename(t.grad_fn, "LinalgSvdBackward0")
        return out[0], out[1], out[2]
    return u, s, v


svd_result = namedtuple("svd", ["U", "S", "V"])  # type: ignore[name-match]
linalg_svd_result = namedtuple("svd", ["U", "S", "Vh"])  # type: ignore[name-match]


class _Svd(svd_result):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.return_types.svd(\nU={self.U!r},\nS={self.S!r},\nV={self.V!r})"

    __str__ = __repr__


class _LinalgSvd(linalg_svd_result):
    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.return_types.linalg_svd(\nU={self.U!r},\nS={self.S!r},\nVh={self.Vh!r})"

    __str__ = __repr__


@public("svd", method=True)
def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> _Svd:
    """torch.svd: U, S, V with ``input = U diag(S) Vᴴ`` (V, not Vᴴ; reduced unless
    ``some=False``)."""
    u, s, vh = _factors(input, full_matrices=not some)
    v = Tensor._wrap(np.swapaxes(vh._data, -1, -2).copy())
    if not compute_uv:
        u = Tensor._wrap(np.zeros_like(u._data))
        v = Tensor._wrap(np.zeros_like(v._data))
    return _Svd(*_graphed(input, u, s, v))


def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: Any = None) -> _LinalgSvd:
    """torch.linalg.svd: U, S, Vh with ``A = U diag(S) Vh`` (full matrices by default)."""
    return _LinalgSvd(*_graphed(A, *_factors(A, full_matrices)))


def svdvals(A: Tensor, *, driver: Any = None) -> Tensor:
    """torch.linalg.svdvals: the singular values, largest first."""
    return _graphed(A, *_factors(A, False))[1]
