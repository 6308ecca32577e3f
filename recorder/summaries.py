"""Tensor values as the answer carries them: full up to ``FULL_LIMIT`` elements, else a
summary (shape, min, max, mean and the first ``PREVIEW``); non-finite numbers spelled out
("NaN", "Infinity", "-Infinity"); numbers as the page writes them (labels, captions)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.backend import to_numpy
from recorder import caption as cap

FULL_LIMIT = 64
PREVIEW = 8

_min, _max, _sum = np.minimum.reduce, np.maximum.reduce, np.add.reduce


def num(v: float) -> Any:
    if math.isfinite(v):
        return v
    return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


def _clean(x: Any) -> Any:
    if isinstance(x, list):
        return [_clean(y) for y in x]
    if isinstance(x, float):
        return num(x)
    return x


def summarise(arr: Any) -> Any:
    """A JSON-ready value: full for small arrays, a summary for large ones."""
    if arr is None:
        return None
    a = to_numpy(arr) if not isinstance(arr, int | float | bool) else np.asarray(arr)
    kind = a.dtype.kind
    if kind == "b":
        a = a.astype(np.int64)
    if a.size <= FULL_LIMIT:
        values = a.tolist()
        if kind != "f":
            return values
        if a.ndim == 0:
            return values if math.isfinite(values) else num(values)
        # the sum is finite only if every element is (or, finite, it overflowed: then the
        # walk below finds nothing to spell out); Python's sum of a short list is cheaper
        # than NumPy's reduction
        total = sum(values) if a.ndim == 1 else a.sum()
        return values if math.isfinite(total) else _clean(values)
    if a.dtype.kind == "f":
        # the reductions ndarray.min, .max and .mean(dtype=float64) run, without their Python
        # wrappers (a kept pass summarises a weight matrix or two: the same numbers, sooner)
        lo, hi = _min(a, None), _max(a, None)  # exact in its own dtype; NaN if any is NaN
        if math.isfinite(lo) and math.isfinite(hi):  # every element finite: no copy to filter
            return {
                "shape": list(a.shape),
                "min": float(lo),
                "max": float(hi),
                "mean": num(float(_sum(a, None, np.float64) / a.size)),
                "preview": a.reshape(-1)[:PREVIEW].astype(np.float64).tolist(),
            }
    af = a.astype(np.float64)
    finite = af[np.isfinite(af)]
    return {
        "shape": list(a.shape),
        "min": num(float(finite.min())) if finite.size else None,
        "max": num(float(finite.max())) if finite.size else None,
        "mean": num(float(finite.mean())) if finite.size else None,
        "preview": _clean(af.reshape(-1)[:PREVIEW].tolist()),
    }


def summarise_seen(arr: Any, seen: dict[int, tuple[Any, Any]] | None) -> Any:
    """:func:`summarise`, once per array object of one pass's export (``seen``, None: no
    memory): a gradient is the node's, its step's ``grad_output`` and what the step before
    sent, the same array each time. (Arrays are not written while a pass is exported.)"""
    if seen is None or arr is None:
        return summarise(arr)
    hit = seen.get(id(arr))
    if hit is not None and hit[0] is arr:
        return hit[1]
    summary = summarise(arr)
    seen[id(arr)] = (arr, summary)
    return summary


def fmt_number(v: float) -> str:
    """A number for a label or a caption, as the page writes it (recorder.caption.page_number):
    integers plainly, else 4 significant digits, ``5.81e−4``; a true minus."""
    return cap.page_number(v)


def scalar(arr: Any) -> float | None:
    """A one-element array's (or a number's) value, else None."""
    if arr.__class__ is np.ndarray:  # (the common case first: several times a walk step)
        return float(arr.item()) if arr.size == 1 else None
    if isinstance(arr, int | float | bool | np.number):
        return float(arr)
    if arr is not None and getattr(arr, "size", 2) == 1:
        return float(to_numpy(arr).reshape(()))
    return None


def number(arr: Any) -> cap.Expr | None:
    """A scalar operand as a number node (None for a tensor: its label stays)."""
    v = scalar(arr)
    return cap.num(v) if v is not None else None
