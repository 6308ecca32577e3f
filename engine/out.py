"""PyTorch's ``out=`` argument for the torch functions that take it (:func:`out_functions`):
the result written into ``out``, refused where autograd would need to record it
(engine/__init__ wraps them)."""

from __future__ import annotations

import builtins
import functools
import warnings
from collections.abc import Callable
from typing import Any

from engine import core, dtypes
from engine.ops import OPS
from engine.registry import OUT
from engine.tensor import Tensor


def out_functions() -> frozenset[str]:
    """The torch functions that take ``out=`` here: those the op table's rows declare
    (``Op.out``: PyTorch's out= overloads of the common ops) and the hand-written ones
    registered with ``public(..., out=True)``."""
    return frozenset(OUT).union(*(op.out for op in OPS.values()))


def accepts_out(fn: Callable[..., Any], name: str) -> Callable[..., Any]:
    """``fn`` with PyTorch's ``out=``: the result written into ``out`` (resized when its shape
    differs), refused where autograd would need to record it, as PyTorch refuses it."""

    @functools.wraps(fn)
    def with_out(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        if core.is_grad_enabled() and (
            out.requires_grad
            or builtins.any(isinstance(a, Tensor) and a.requires_grad for a in args)
            or builtins.any(
                isinstance(a, Tensor) and a.requires_grad
                for v in args
                if isinstance(v, list | tuple)
                for a in v
            )
        ):
            raise RuntimeError(
                f"{name}(): functions with out=... arguments don't support automatic "
                "differentiation, but one of the arguments requires grad."
            )
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        with core.no_grad():
            result = fn(*args, **kwargs)
        new = result._data
        if dtypes.category(new.dtype) > dtypes.category(out._data.dtype):
            raise RuntimeError(
                f"result type {dtypes.type_word(new.dtype)} can't be cast to the desired output "
                f"type {dtypes.type_word(out._data.dtype)}"
            )
        if out._data.shape == new.shape:
            out._data[...] = new
        else:
            if out._data.size:
                warnings.warn(
                    "An output with one or more elements was resized since it had shape "
                    f"{list(out._data.shape)}, which does not match the required output shape "
                    f"{list(new.shape)}. This behavior is deprecated, and in a future PyTorch "
                    "release outputs will not be resized unless they have zero elements. You "
                    "can explicitly reuse an out tensor t by resizing it, inplace, to zero "
                    "elements with t.resize_(0).",
                    UserWarning,
                    stacklevel=2,
                )
            out._data = new.astype(out._data.dtype, copy=True)
        out._bump()
        return out

    return with_out
