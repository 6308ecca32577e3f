"""Creating tensors: torch.tensor, zeros/ones/full/arange/linspace/eye, the random factories
(drawing from engine.random, PyTorch's CPU stream), the legacy constructors, the default device.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import dtypes, limits
from engine.backend import CPU, Device, move, parse_device, to_numpy
from engine.dtypes import DType
from engine.random import default_generator
from engine.registry import method, public
from engine.tensor import Size, Tensor, _no_record


def _legacy_new(dtype: DType, *args: Any, device: Any = None) -> Tensor:
    """torch.Tensor / torch.FloatTensor / torch.LongTensor ...: data, or a shape of zeros."""
    if not args:
        return zeros(0, dtype=dtype, device=device)
    if all(isinstance(a, int | np.integer) and not isinstance(a, bool) for a in args):
        return zeros(*args, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        return zeros(tuple(args[0]), dtype=dtype, device=device)
    if len(args) == 1:
        return tensor(args[0], dtype=dtype, device=device)
    raise TypeError(f"new() received an invalid combination of arguments: {args!r}")


class _LegacyTensorType(type):
    """torch.FloatTensor and friends: callable like the old constructors, and usable with
    isinstance (a tensor of that dtype on the CPU)."""

    _dtype: DType

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:  # type: ignore[override]
        return _legacy_new(cls._dtype, *args, **kwargs)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls._dtype.np


class FloatTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.float32


class DoubleTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.float64


class LongTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.int64


class IntTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.int32


class BoolTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.bool_


_default_device: Device = CPU


@public("set_default_device")
def set_default_device(device: Any) -> None:
    """torch.set_default_device: where factories put tensors when no device is given."""
    global _default_device
    _default_device = parse_device(device) if device is not None else CPU


@public("get_default_device")
def get_default_device() -> Device:
    return _default_device


def _device(device: Any) -> Device:
    return _default_device if device is None else parse_device(device)


def _infer_dtype(data: Any) -> Any:
    """PyTorch's inference for torch.tensor(list): bool, int64, or the default float32."""
    kinds: set[str] = set()

    def scan(x: Any) -> None:
        if isinstance(x, Tensor):
            kinds.add(x._data.dtype.kind)
        elif isinstance(x, list | tuple):
            for y in x:
                scan(y)
        elif isinstance(x, bool | np.bool_):
            kinds.add("b")
        elif isinstance(x, int | np.integer):
            kinds.add("i")
        elif isinstance(x, float | np.floating):
            kinds.add("f")
        elif isinstance(x, str):
            raise TypeError("new(): invalid data type 'str'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")

    scan(data)
    if "f" in kinds or not kinds:
        return np.float32
    if "i" in kinds:
        return np.int64
    return np.bool_


def _check_nested_lengths(data: Any) -> None:
    """PyTorch's errors for ragged nested lists (sizes come from the first element chain)."""
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    sizes: list[int] = []
    x = data
    while isinstance(x, list | tuple):
        sizes.append(len(x))
        if not x:
            break
        x = x[0]
    if isinstance(x, str) and sizes:
        raise ValueError("too many dimensions 'str'")

    def walk(y: Any, d: int) -> None:
        if d < len(sizes):
            if isinstance(y, Tensor):
                return
            if not isinstance(y, list | tuple):
                raise TypeError("not a sequence")
            if len(y) != sizes[d]:
                raise ValueError(
                    f"expected sequence of length {sizes[d]} at dim {d} (got {len(y)})"
                )
            for z in y:
                walk(z, d + 1)
        elif isinstance(y, list | tuple):
            raise TypeError(f"'{type(y).__name__}' object cannot be interpreted as an integer")

    walk(data, 0)


def _to_nested(data: Any) -> Any:
    if isinstance(data, Tensor):
        return to_numpy(data._data)
    if isinstance(data, list | tuple):
        return [_to_nested(x) for x in data]
    return data


@public("tensor")
def tensor(
    data: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """torch.tensor: copy data (numbers, nested lists, arrays, tensors) into a new leaf."""
    dev = _device(device)
    if isinstance(data, Tensor):
        arr = to_numpy(data._data).copy()
        if dtype is not None:
            arr = arr.astype(dtype.np)
    elif isinstance(data, np.ndarray):
        arr = np.array(data, dtype=dtype.np if dtype else None)
        if dtype is None and arr.dtype == np.float64:
            arr = arr.astype(np.float64)
    else:
        _check_nested_lengths(data)
        np_dtype = dtype.np if dtype is not None else _infer_dtype(data)
        if limits.active is not None:
            limits.active.check_nested(data)
        try:
            arr = np.array(_to_nested(data), dtype=np_dtype)
        except ValueError as exc:
            if "inhomogeneous" in str(exc) or "sequence" in str(exc):
                raise ValueError(
                    "expected sequence of equal length lists (ragged nested lists cannot form "
                    "a tensor)"
                ) from None
            raise
    if arr.dtype == object:
        raise TypeError("Could not infer dtype of object")
    if limits.active is not None:
        limits.active.alloc(arr.size)
    t = Tensor._wrap(move(arr, dev) if dev.type != "cpu" else arr)
    if requires_grad:
        if arr.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad_(True)
    return t


@public("as_tensor")
def as_tensor(data: Any, dtype: DType | None = None, device: Any = None) -> Tensor:
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data
    return tensor(data, dtype=dtype, device=device)


@public("from_numpy")
def from_numpy(array: np.ndarray) -> Tensor:
    return Tensor._wrap(array)


def _shape_arg(shape: Sequence[Any], fname: str = "") -> tuple[int, ...]:
    """A shape given as ints or one sequence; ``fname`` words errors as PyTorch's factories do."""
    single = len(shape) == 1
    if single and isinstance(shape[0], list | tuple | Size):
        shape, single = tuple(shape[0]), False
    out = []
    for pos, s in enumerate(shape):
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, int | np.integer) or isinstance(s, bool):
            name = type(s).__name__
            if not fname:
                raise TypeError(f"expected a sequence of integers as the shape, got {name}")
            if single:
                raise TypeError(
                    f"{fname}(): argument 'size' (position 1) must be tuple of ints, not {name}"
                )
            raise TypeError(
                f"{fname}(): argument 'size' failed to unpack the object at pos {pos + 1} with "
                f'error "type must be tuple of ints,but got {name}"'
            )
        out.append(int(s))
    return tuple(out)


def _factory(
    shape: Any,
    dtype: DType | None,
    device: Any,
    requires_grad: bool,
    fill: Any,
    fname: str = "",
) -> Tensor:
    dims = _shape_arg(shape, fname)
    for d in dims:
        if d < 0:
            if fname == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(dims)}")
    dev = _device(device)
    np_dtype = (dtype or dtypes.float32).np
    n = int(np.prod(dims)) if dims else 1
    if limits.active is not None:
        limits.active.alloc(n)
    arr = fill(dev.xp, dims, np_dtype)
    t = Tensor._wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


@public("zeros")
def zeros(
    *shape: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    return _factory(shape, dtype, device, requires_grad, lambda xp, s, d: xp.zeros(s, d), "zeros")


@public("ones")
def ones(
    *shape: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    return _factory(shape, dtype, device, requires_grad, lambda xp, s, d: xp.ones(s, d), "ones")


@public("empty")
def empty(
    *shape: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    return zeros(*shape, dtype=dtype, device=device, requires_grad=requires_grad)


@public("full")
def full(
    size: Any,
    fill_value: Any,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if not isinstance(size, list | tuple | Size):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, int | float | bool | np.number | np.bool_):
        raise TypeError(
            "full(): argument 'fill_value' (position 2) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    if dtype is None:
        dtype = dtypes.from_numpy(_infer_dtype(fill_value))
    return _factory(
        (size,), dtype, device, requires_grad, lambda xp, s, d: xp.full(s, fill_value, d)
    )


def _like(t: Tensor, dtype: DType | None) -> tuple[Any, DType]:
    return t._data.shape, dtype or t.dtype


@public("zeros_like")
def zeros_like(t: Tensor, dtype: DType | None = None, requires_grad: bool = False) -> Tensor:
    shape, dt = _like(t, dtype)
    return zeros(shape, dtype=dt, device=t.device, requires_grad=requires_grad)


@public("ones_like")
def ones_like(t: Tensor, dtype: DType | None = None, requires_grad: bool = False) -> Tensor:
    shape, dt = _like(t, dtype)
    return ones(shape, dtype=dt, device=t.device, requires_grad=requires_grad)


@public("full_like")
def full_like(t: Tensor, fill_value: Any, dtype: DType | None = None) -> Tensor:
    shape, dt = _like(t, dtype)
    return full(shape, fill_value, dtype=dt, device=t.device)


@public("arange")
def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (vals[2] > 0 and vals[1] < vals[0]) or (vals[2] < 0 and vals[1] > vals[0]):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = dtypes.float32 if builtins.any(isinstance(v, float) for v in vals) else dtypes.int64
    n = builtins.max(0, int(np.ceil((vals[1] - vals[0]) / vals[2])))
    if limits.active is not None:
        limits.active.alloc(n)
    arr = (np.arange(n, dtype=np.float64) * vals[2] + vals[0]).astype(dtype.np)
    t = Tensor._wrap(move(arr, _device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


@public("linspace")
def linspace(
    start: float,
    end: float,
    steps: int,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if limits.active is not None:
        limits.active.alloc(int(steps))
    dt = (dtype or dtypes.float32).np
    if steps == 1:
        arr = np.array([start], dtype=dt)
    else:
        # PyTorch fills the first half from start and the second half from end
        step = (end - start) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        arr = np.where(i < half, start + step * i, end - step * (steps - 1 - i)).astype(dt)
    t = Tensor._wrap(move(arr, _device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


@public("eye")
def eye(n: int, m: int | None = None, dtype: DType | None = None, device: Any = None) -> Tensor:
    if limits.active is not None:
        limits.active.alloc(n * (m or n))
    return Tensor._wrap(move(np.eye(n, m, dtype=(dtype or dtypes.float32).np), _device(device)))


def _random(
    shape: Any, dtype: DType | None, device: Any, requires_grad: bool, draw: Any, fname: str = ""
) -> Tensor:
    dims = _shape_arg(shape, fname)
    for d in dims:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(dims)}")
    n = int(np.prod(dims)) if dims else 1
    if limits.active is not None:
        limits.active.alloc(n)
    np_dtype = (dtype or dtypes.float32).np
    arr = draw(default_generator, n, np_dtype).reshape(dims)
    t = Tensor._wrap(move(arr, _device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


@public("rand")
def rand(
    *shape: Any,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    return _random(
        shape, dtype, device, requires_grad, lambda g, n, d: g.uniform(n, 0.0, 1.0, d), "rand"
    )


@public("randn")
def randn(
    *shape: Any,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    return _random(
        shape, dtype, device, requires_grad, lambda g, n, d: g.normal(n, 0.0, 1.0, d), "randn"
    )


@public("randint")
def randint(
    low: int, high: Any = None, size: Any = None, dtype: DType | None = None, device: Any = None
) -> Tensor:
    if size is None:
        low, high, size = 0, low, high
    return _random(
        size,
        dtype or dtypes.int64,
        device,
        False,
        lambda g, n, d: g.randint(low, high, n).astype(d),
    )


@public("randperm")
def randperm(n: int, dtype: DType | None = None, device: Any = None) -> Tensor:
    if limits.active is not None:
        limits.active.alloc(n)
    arr = default_generator.randperm(n).astype((dtype or dtypes.int64).np)
    return Tensor._wrap(move(arr, _device(device)))


@public("rand_like")
def rand_like(t: Tensor) -> Tensor:
    return rand(t._data.shape, dtype=t.dtype, device=t.device)


@public("randn_like")
def randn_like(t: Tensor) -> Tensor:
    return randn(t._data.shape, dtype=t.dtype, device=t.device)


@public("normal")
def normal(mean: float, std: float, size: Any) -> Tensor:
    return randn(size) * std + mean


# ---- Tensor methods that create tensors -------------------------------------------------------


@method("__new__")  # type: ignore[misc]
@staticmethod
def _tensor_new(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """The legacy constructor: ``torch.Tensor([1, 2])`` (data) or ``torch.Tensor(2, 3)``
    (a shape; zeros here, uninitialised in PyTorch); always float32."""
    return _legacy_new(dtypes.float32, *args, **kwargs)


@method("new_zeros", "new_empty")
def _new_zeros(self: Tensor, *size: Any) -> Tensor:
    return zeros(*size, dtype=self.dtype, device=self.device)


@method("new_ones")
def _new_ones(self: Tensor, *size: Any) -> Tensor:
    return ones(*size, dtype=self.dtype, device=self.device)


@method("new_full")
def _new_full(self: Tensor, size: Any, fill_value: Any) -> Tensor:
    return full(size, fill_value, dtype=self.dtype, device=self.device)


@method("new_tensor")
def _new_tensor(self: Tensor, data: Any) -> Tensor:
    return tensor(data, dtype=self.dtype, device=self.device)


@method("normal_")
def _normal_(self: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    with _no_record():
        self._check_inplace()
    vals = default_generator.normal(self._data.size, mean, std, self._data.dtype)
    self._data[...] = move(vals.reshape(self._data.shape), self.device)
    self._bump()
    return self


@method("uniform_")
def _uniform_(self: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    self._check_inplace()
    vals = default_generator.uniform(self._data.size, a, b, self._data.dtype)
    self._data[...] = move(vals.reshape(self._data.shape), self.device)
    self._bump()
    return self
