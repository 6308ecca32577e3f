"""A stand-in CuPy for testing the engine's CUDA paths on the CPU (tests/unit/test_fake_gpu.py).

Device arrays are :class:`ndarray`, a subclass of ``numpy.ndarray``: NumPy does the math, and
ufunc results keep the subclass, so an array that slips onto a NumPy-only path still looks like
a device array where the engine checks ``type(x) is np.ndarray``. Names this module does not
define are forwarded to NumPy, with array results turned into device arrays.
"""

from __future__ import annotations

import types
from typing import Any

import numpy as _np

__version__ = "0.0.0-fake"


class _DeviceHandle:
    def __init__(self, id: int = 0) -> None:
        self.id = id

    def synchronize(self) -> None:
        pass

    def use(self) -> None:
        """Make this the current device (CuPy creates the context here)."""

    def __enter__(self) -> _DeviceHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __repr__(self) -> str:
        return f"<CUDA Device {self.id}>"


class ndarray(_np.ndarray):
    """A "device" array: a NumPy array that is not of type numpy.ndarray."""

    @property
    def device(self) -> _DeviceHandle:  # type: ignore[override]
        return _DeviceHandle(0)

    def get(self) -> _np.ndarray:
        """Copy to the host, as ``cupy.ndarray.get`` does."""
        return _np.array(self, copy=True, subok=False)

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        # Like CuPy: a host array in an elementwise kernel is a TypeError, not a silent copy.
        # (ufunc.at's index argument may be a host array, as CuPy's indexing accepts them.)
        data = (inputs[0], *inputs[2:]) if method == "at" else inputs
        _no_host_arrays(ufunc.__name__, data, kwargs.get("out", ()), floats_only=False)
        inputs = _host_views(inputs)
        if "out" in kwargs:
            kwargs["out"] = _host_views(kwargs["out"])
        result = getattr(ufunc, method)(*inputs, **kwargs)
        return None if method == "at" else _wrap(result)

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        # Host integer arrays pass (split points, indices, axes); host float data does not.
        _no_host_arrays(func.__name__, args, tuple(kwargs.values()), floats_only=True)
        return _wrap(func(*_host_views(args), **{k: _host_views(v) for k, v in kwargs.items()}))

    def __getitem__(self, key: Any) -> Any:
        return _wrap(super().__getitem__(key))  # CuPy indexing gives 0-d arrays, not scalars

    def __float__(self) -> float:
        return float(self.get())

    def __bool__(self) -> bool:
        return bool(self.get())

    def tolist(self) -> Any:
        return self.get().tolist()

    def __reduce__(self) -> Any:  # pickling (e.g. to a worker process) is not allowed on CuPy
        raise TypeError("fake cupy arrays are not picklable")


def _no_host_arrays(what: str, *groups: Any, floats_only: bool) -> None:
    def check(x: Any) -> None:
        if isinstance(x, tuple | list):
            for y in x:
                check(y)
        elif type(x) is _np.ndarray and (not floats_only or x.dtype.kind in "fc"):
            raise TypeError(
                f"fake cupy: {what} got a host numpy.ndarray ({x.dtype}) mixed with device "
                "arrays (CuPy raises: Unsupported type <class 'numpy.ndarray'>)"
            )

    for group in groups:
        check(group)


def _host_views(x: Any) -> Any:
    if isinstance(x, ndarray):
        return x.view(_np.ndarray)
    if isinstance(x, tuple | list):
        return type(x)(_host_views(y) for y in x)
    return x


def _wrap_method(name: str) -> Any:
    base = getattr(_np.ndarray, name)

    def method(self: ndarray, *args: Any, **kwargs: Any) -> Any:
        return _wrap(base(self, *args, **kwargs))

    method.__name__ = name
    return method


# Methods that NumPy answers with scalars or plain arrays; CuPy's give device arrays.
for _name in ("argmax", "argmin", "nonzero", "dot", "trace", "ptp", "searchsorted"):
    if hasattr(_np.ndarray, _name):
        setattr(ndarray, _name, _wrap_method(_name))


def _wrap(x: Any) -> Any:
    if isinstance(x, _np.ndarray) and not isinstance(x, ndarray):
        return x.view(ndarray)
    if isinstance(x, _np.generic):  # CuPy has no scalars: reductions give 0-d arrays
        return _np.asarray(x).view(ndarray)
    if isinstance(x, tuple):
        return tuple(_wrap(v) for v in x)
    if isinstance(x, list):
        return [_wrap(v) for v in x]
    return x


def asarray(x: Any, dtype: Any = None) -> ndarray:
    if isinstance(x, ndarray) and (dtype is None or x.dtype == dtype):
        return x
    return _np.array(x, dtype=dtype, copy=True, subok=False).view(ndarray)


def array(x: Any, dtype: Any = None, copy: bool = True) -> ndarray:
    return _np.array(x, dtype=dtype, copy=True, subok=False).view(ndarray)


def asnumpy(x: Any) -> _np.ndarray:
    return x.get() if isinstance(x, ndarray) else _np.asarray(x)


def get_array_module(*args: Any) -> types.ModuleType:
    import sys

    return sys.modules[__name__] if any(isinstance(a, ndarray) for a in args) else _np


class _MemoryPool:
    def __init__(self) -> None:
        self.limit: int | None = None

    def set_limit(self, size: int | None = None, fraction: float | None = None) -> None:
        self.limit = size

    def get_limit(self) -> int:
        return self.limit or 0

    def used_bytes(self) -> int:
        return 0

    def free_all_blocks(self) -> None:
        pass


_pool = _MemoryPool()


def get_default_memory_pool() -> _MemoryPool:
    return _pool


class _Runtime:
    @staticmethod
    def getDeviceCount() -> int:
        return 1

    @staticmethod
    def getDeviceProperties(i: int) -> dict[str, Any]:
        if i != 0:
            raise ValueError("invalid device ordinal")
        return {"name": b"FakeGPU", "totalGlobalMem": 1 << 30}


cuda = types.SimpleNamespace(runtime=_Runtime(), Device=_DeviceHandle)


def _as_strided(x: Any, shape: Any = None, strides: Any = None) -> Any:
    """cupy.lib.stride_tricks.as_strided: a view of a device array is a device array."""
    return _wrap(_np.lib.stride_tricks.as_strided(x, shape=shape, strides=strides, subok=True))


lib = types.SimpleNamespace(stride_tricks=types.SimpleNamespace(as_strided=_as_strided))


def _forward(fn: Any) -> Any:
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        return _wrap(fn(*args, **kwargs))

    wrapped.__name__ = getattr(fn, "__name__", "wrapped")
    return wrapped


def __getattr__(name: str) -> Any:
    value = getattr(_np, name)  # AttributeError for names NumPy lacks too
    if isinstance(value, _np.ufunc):
        return value  # ufuncs keep the subclass through __array_wrap__; keep .at/.reduce
    if callable(value) and not isinstance(value, type):
        return _forward(value)
    return value  # dtypes, constants (float32, pi, newaxis ...)
