"""Tensor's dtype and device conversions (``x.to(...)``, ``x.float()``, ``x.type(...)``,
``x.cpu()``, ``x.cuda()``), all through the op table's ``to`` row (ToCopyBackward0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import dtypes
from engine import shape_ops as S
from engine.backend import Device, move, parse_device
from engine.dtypes import DType
from engine.registry import method
from engine.tensor import Tensor, apply


def to_copy(a: Tensor, dtype: DType | None, device: Any) -> Tensor:
    dev = parse_device(device) if device is not None else None
    np_dtype = dtype.np if dtype is not None else a._data.dtype
    same_dev = dev is None or dev == a.device
    if np_dtype == a._data.dtype and same_dev:
        return a
    if dtype is not None and dtype.is_floating_point is False and a.requires_grad:
        out = Tensor._wrap(a._data.astype(np_dtype))
        return out
    out = apply(S.TO_COPY, (a,), {"dtype": np_dtype})
    if not same_dev and dev is not None:
        out._data = move(out._data, dev)
    return out


@method("to")
def _to(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    dtype = kwargs.pop("dtype", None)
    device = kwargs.pop("device", None)
    for a in args:
        if isinstance(a, DType):
            dtype = a
        elif isinstance(a, str | Device):
            device = a
        elif isinstance(a, Tensor):
            dtype, device = a.dtype, a.device
    return to_copy(self, dtype, device)


def _cast(name: str, dtype: DType) -> None:
    def cast(self: Tensor) -> Tensor:
        return to_copy(self, dtype, None)

    cast.__name__ = cast.__qualname__ = name
    method(name)(cast)


for _name, _dtype in (
    ("float", dtypes.float32),
    ("double", dtypes.float64),
    ("half", dtypes.float16),
    ("long", dtypes.int64),
    ("int", dtypes.int32),
    ("bool", dtypes.bool_),
):
    _cast(_name, _dtype)


@method("type")
def _type(self: Tensor, dtype: DType | None = None) -> Any:
    """``x.type()`` names the tensor type (``'torch.FloatTensor'``); ``x.type(dtype)`` casts."""
    if dtype is None:
        prefix = "torch." if self._data.__class__ is np.ndarray else "torch.cuda."
        return f"{prefix}{dtypes.type_word(self._data.dtype)}Tensor"
    legacy = getattr(dtype, "_dtype", None)  # torch.FloatTensor, the class (as 2017 code has it)
    if isinstance(dtype, type) and isinstance(legacy, DType):
        dtype = legacy
    elif isinstance(dtype, str):  # 'torch.DoubleTensor'
        words = {f"torch.{dtypes.type_word(d.np)}Tensor": d for d in dtypes.ALL}
        if dtype not in words:
            raise ValueError(f"invalid type: '{dtype}'")
        dtype = words[dtype]
    return to_copy(self, dtype, None)


@method("type_as")
def _type_as(self: Tensor, other: Tensor) -> Tensor:
    return to_copy(self, other.dtype, None)


@method("cpu")
def _cpu(self: Tensor) -> Tensor:
    return to_copy(self, None, "cpu")


@method("cuda")
def _cuda(self: Tensor, device: Any = None) -> Tensor:
    return to_copy(self, None, "cuda" if device is None else f"cuda:{device}")
