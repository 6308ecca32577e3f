"""``torch.testing``: ``assert_close`` with PyTorch's default tolerances and its message."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine.backend import to_numpy
from engine.tensor import Tensor

__all__ = ["assert_close"]

#: (rtol, atol) by dtype, as PyTorch's defaults
_TOLERANCES = {
    np.dtype(np.float16): (1e-3, 1e-5),
    np.dtype(np.float32): (1.3e-6, 1e-5),
    np.dtype(np.float64): (1e-7, 1e-7),
}


def _array(x: Any) -> np.ndarray:
    if isinstance(x, Tensor):
        return np.asarray(to_numpy(x._data))
    return np.asarray(x)


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | None = None,
) -> None:
    """Raise AssertionError unless actual and expected are close elementwise."""
    if isinstance(actual, list | tuple) and isinstance(expected, list | tuple):
        for a, e in zip(actual, expected, strict=True):
            assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=check_dtype)
        return
    a, e = _array(actual), _array(expected)
    if a.shape != e.shape:
        raise AssertionError(
            msg or f"The values for attribute 'shape' do not match: {a.shape} != {e.shape}."
        )
    if (
        check_dtype
        and isinstance(actual, Tensor)
        and isinstance(expected, Tensor)
        and a.dtype != e.dtype
    ):
        raise AssertionError(
            msg
            or f"The values for attribute 'dtype' do not match: torch.{actual.dtype.name} != "
            f"torch.{expected.dtype.name}."
        )
    if rtol is None or atol is None:
        rtol, atol = _TOLERANCES.get(a.dtype, (0.0, 0.0))
    close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if close.all():
        return
    if msg:
        raise AssertionError(msg)
    bad = int((~close).sum())
    diff = np.abs(a.astype(np.float64) - e.astype(np.float64))
    worst = np.unravel_index(int(np.nanargmax(np.where(close, -1, diff))), a.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = diff / np.abs(e.astype(np.float64))
    worst_rel = np.unravel_index(int(np.nanargmax(np.where(close, -1, rel))), a.shape)
    kind = "Tensor-likes" if a.ndim else "Scalars"
    raise AssertionError(
        f"{kind} are not close!\n\n"
        f"Mismatched elements: {bad} / {a.size} ({100 * bad / a.size:.1f}%)\n"
        f"Greatest absolute difference: {diff[worst]} at index {worst} (up to {atol} allowed)\n"
        f"Greatest relative difference: {rel[worst_rel]} at index {worst_rel} (up to {rtol} "
        "allowed)"
    )
