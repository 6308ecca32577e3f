"""Tensor printing, ported from PyTorch's ``torch/_tensor_str.py``, print options included.

Learners compare what the playground prints with their lessons' output, so this follows
PyTorch's rules: integer-valued floats print as ``1.``, otherwise 4 decimals, scientific
notation when the magnitudes span more than 1e3 (or exceed 1e8, or go below 1e-4), values
padded to a common width, lines wrapped at 80 columns, and tensors over 1000 elements
summarised with ``...`` and 3 edge items; ``torch.set_printoptions`` changes these as it does
in PyTorch (``precision``, ``threshold``, ``edgeitems``, ``linewidth``, ``profile``,
``sci_mode``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np


class PrintOptions:
    """PyTorch's ``PRINT_OPTS``: what ``torch.set_printoptions`` sets."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


PRINT_OPTS = PrintOptions()

_PROFILES = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """torch.set_printoptions: a profile first, then each option given."""
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"Unknown profile: {profile}")  # (PyTorch ignores unknown ones)
        (
            PRINT_OPTS.precision,
            PRINT_OPTS.threshold,
            PRINT_OPTS.edgeitems,
            PRINT_OPTS.linewidth,
        ) = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """torch.get_printoptions."""
    return {
        "precision": PRINT_OPTS.precision,
        "threshold": PRINT_OPTS.threshold,
        "edgeitems": PRINT_OPTS.edgeitems,
        "linewidth": PRINT_OPTS.linewidth,
        "sci_mode": PRINT_OPTS.sci_mode,
    }


class _Formatter:
    def __init__(self, values: np.ndarray) -> None:
        self.floating = values.dtype.kind == "f"
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.reshape(-1)
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(_int_str(v)))
            return
        finite = flat[np.isfinite(flat) & (flat != 0)].astype(np.float64)
        if finite.size == 0:
            return
        absf = np.abs(finite)
        lo, hi = float(absf.min()), float(absf.max())
        precision = PRINT_OPTS.precision
        self.int_mode = bool(np.all(finite == np.ceil(finite)))
        forced = PRINT_OPTS.sci_mode
        self.sci_mode = (
            (hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) if forced is None else forced
        )
        vals = finite.tolist()
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{precision}e}") for v in vals)
        elif self.int_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in vals)
        else:
            self.max_width = max(len(f"{v:.{precision}f}") for v in vals)

    def format(self, value: Any) -> str:
        if self.floating:
            if self.sci_mode:
                ret = f"{value:{self.max_width}.{PRINT_OPTS.precision}e}"
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{value:.{PRINT_OPTS.precision}f}"
        else:
            ret = _int_str(value)
        return (self.max_width - len(ret)) * " " + ret


def _int_str(v: Any) -> str:
    return str(v)


def _summarized(a: np.ndarray) -> np.ndarray:
    if a.ndim == 0:
        return a
    if a.ndim == 1:
        if a.shape[0] > 2 * PRINT_OPTS.edgeitems:
            return np.concatenate((a[: PRINT_OPTS.edgeitems], a[-PRINT_OPTS.edgeitems :]))
        return a
    if a.shape[0] > 2 * PRINT_OPTS.edgeitems:
        rows = [a[i] for i in range(PRINT_OPTS.edgeitems)] + [
            a[i] for i in range(len(a) - PRINT_OPTS.edgeitems, len(a))
        ]
    else:
        rows = list(a)
    return np.stack([_summarized(r) for r in rows])


def _vector_str(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    element_length = fmt.max_width + 2
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / element_length))
    if summarize and a.shape[0] > 2 * PRINT_OPTS.edgeitems:
        data = (
            [fmt.format(v) for v in a[: PRINT_OPTS.edgeitems].tolist()]
            + [" ..."]
            + [fmt.format(v) for v in a[-PRINT_OPTS.edgeitems :].tolist()]
        )
    else:
        data = [fmt.format(v) for v in a.tolist()]
    lines = [", ".join(data[i : i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + ("," + "\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str_with(a: np.ndarray, indent: int, summarize: bool, fmt: _Formatter) -> str:
    if a.ndim == 0:
        return fmt.format(a.item())
    if a.ndim == 1:
        return _vector_str(a, indent, summarize, fmt)
    if summarize and a.shape[0] > 2 * PRINT_OPTS.edgeitems:
        slices = (
            [
                _tensor_str_with(a[i], indent + 1, summarize, fmt)
                for i in range(PRINT_OPTS.edgeitems)
            ]
            + ["..."]
            + [
                _tensor_str_with(a[i], indent + 1, summarize, fmt)
                for i in range(len(a) - PRINT_OPTS.edgeitems, len(a))
            ]
        )
    else:
        slices = [_tensor_str_with(a[i], indent + 1, summarize, fmt) for i in range(a.shape[0])]
    return "[" + ("," + "\n" * (a.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def tensor_str(a: np.ndarray, indent: int) -> str:
    """The bracketed body of a tensor's repr."""
    if a.size == 0:
        return "[]"
    if a.dtype == np.float16:
        a = a.astype(np.float32)
    summarize = a.size > PRINT_OPTS.threshold
    fmt = _Formatter(_summarized(a) if summarize else a)
    return _tensor_str_with(a, indent, summarize, fmt)


def add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    parts = [text]
    last_line_len = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line_len + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line_len = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line_len += len(suffix) + 2
    parts.append(")")
    return "".join(parts)


_DEFAULT_DTYPES = {"float32", "int64", "bool"}


def tensor_repr(
    a: np.ndarray,
    *,
    dtype_name: str,
    device: str,
    grad_fn: str | None,
    requires_grad: bool,
    prefix: str = "tensor(",
) -> str:
    """PyTorch's ``repr(tensor)``."""
    indent = len(prefix)
    suffixes = []
    if device != "cpu":
        suffixes.append(f"device='{device}'")
    if a.size == 0:
        if a.ndim != 1:
            suffixes.append("size=" + str(tuple(a.shape)))
        if dtype_name != "float32":
            suffixes.append(f"dtype=torch.{dtype_name}")
        body = "[]"
    else:
        if dtype_name not in _DEFAULT_DTYPES:
            suffixes.append(f"dtype=torch.{dtype_name}")
        body = tensor_str(a, indent)
    if grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn}>")
    elif requires_grad:
        suffixes.append("requires_grad=True")
    return add_suffixes(prefix + body, suffixes, indent)
