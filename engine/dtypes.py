"""PyTorch-style dtypes (``torch.float32`` ...) and PyTorch's type-promotion rules."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np


class DType:
    """A tensor element type; prints as PyTorch does (``torch.float32``)."""

    __slots__ = ("is_floating_point", "itemsize", "name", "np")

    def __init__(self, name: str, np_dtype: Any) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    __str__ = __repr__

    def __reduce__(self) -> str:
        return self.name


float16 = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = DType("float64", np.float64)
int8 = DType("int8", np.int8)
uint8 = DType("uint8", np.uint8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
bool_ = DType("bool", np.bool_)

# aliases PyTorch accepts
half, float, double = float16, float32, float64
short, int, long = int16, int32, int64

ALL = (float16, float32, float64, int8, uint8, int16, int32, int64, bool_)
_BY_NP: dict[np.dtype[Any], DType] = {d.np: d for d in ALL}
DEFAULT_FLOAT = float32


def from_numpy(np_dtype: Any) -> DType:
    """The DType of a NumPy dtype (float64 stays float64, as torch.from_numpy does)."""
    try:
        return _BY_NP[np_dtype]
    except KeyError:
        pass
    try:
        return _BY_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"can't convert np.ndarray of type {np.dtype(np_dtype)}") from None


def to_numpy_dtype(dtype: DType | Any) -> np.dtype[Any]:
    """Accept a DType (or a numpy dtype) and return the numpy dtype."""
    if isinstance(dtype, DType):
        return dtype.np
    raise TypeError(f"dtype must be a torch.dtype, got {type(dtype).__name__}")


_TYPE_WORDS = {
    "float32": "Float",
    "float64": "Double",
    "float16": "Half",
    "int64": "Long",
    "int32": "Int",
    "int16": "Short",
    "int8": "Char",
    "uint8": "Byte",
    "bool": "Bool",
}


def type_word(np_dtype: Any) -> str:
    """PyTorch's word for a dtype in messages (``Float``, ``Long`` ...)."""
    return _TYPE_WORDS.get(np.dtype(np_dtype).name, "Float")


def category(np_dtype: np.dtype[Any]) -> builtins.int:
    """0 for bool, 1 for integers, 2 for floating point (PyTorch's promotion categories)."""
    kind = np_dtype.kind
    return 2 if kind == "f" else 0 if kind == "b" else 1


_DEFAULT_FOR_CATEGORY: dict[builtins.int, np.dtype[Any]] = {
    0: np.dtype(np.bool_),
    1: np.dtype(np.int64),
    2: np.dtype(np.float32),
}


def scalar_category(value: Any) -> builtins.int:
    if isinstance(value, builtins.bool | np.bool_):
        return 0
    if isinstance(value, builtins.int | np.integer):
        return 1
    return 2


def promote_types(*types: np.dtype[Any]) -> np.dtype[Any]:
    """torch.promote_types over several dtypes: the highest category wins outright
    (float32 with int64 is float32, where NumPy says float64); within it, NumPy's rule."""
    top = max(category(np.dtype(t)) for t in types)
    return np.result_type(*[t for t in types if category(np.dtype(t)) == top])


def promote(
    operands: list[tuple[np.dtype[Any], builtins.int]], scalars: list[Any]
) -> np.dtype[Any]:
    """PyTorch's result type: operands are (dtype, ndim) of tensors, scalars are Python numbers.

    Dimensioned tensors outrank zero-dim tensors, which outrank Python scalars, unless a
    lower-ranked operand is of a higher category (bool < int < float): then a zero-dim tensor
    contributes its own dtype and a Python scalar the category's default (float32 / int64).
    """
    dimensioned = [dt for dt, nd in operands if nd > 0]
    zero_dim = [dt for dt, nd in operands if nd == 0]
    result: np.dtype[Any] | None = promote_types(*dimensioned) if dimensioned else None
    if zero_dim:
        group_type = promote_types(*zero_dim)
        if result is None or category(group_type) > category(result):
            result = group_type
    if scalars:
        cat = max(scalar_category(s) for s in scalars)
        if result is None:
            result = _DEFAULT_FOR_CATEGORY[cat]
            if cat == 2 and any(isinstance(s, np.floating) for s in scalars):
                result = np.result_type(*[s for s in scalars if isinstance(s, np.floating)])
        elif cat > category(result):
            result = _DEFAULT_FOR_CATEGORY[cat]
    assert result is not None
    return result
