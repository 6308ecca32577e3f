"""Array-module selection by device name: numpy for "cpu", cupy for "cuda[:N]".

This is the only module that imports CuPy (Chainer's ``get_array_module`` pattern). Every
array operation elsewhere goes through the ``xp`` module a :class:`Device` hands out.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np


class DeviceUnavailableError(RuntimeError):
    """The requested device cannot be used here; the message says why."""


@dataclass(frozen=True)
class Device:
    """A device: its PyTorch-style name, its kind and its array module."""

    type: str  # "cpu" | "cuda"
    index: int | None = None

    @property
    def xp(self) -> ModuleType:
        """The array module (numpy or cupy) that holds this device's arrays."""
        return np if self.type == "cpu" else _cupy()

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"


CPU = Device("cpu")


def parse_device(spec: str | Device | None) -> Device:
    """Turn "cpu", "cuda" or "cuda:N" into a Device; raise if it is not usable here."""
    if spec is None:
        return CPU
    if isinstance(spec, Device):
        return spec
    if not isinstance(spec, str):
        raise TypeError(f"device must be a string like 'cpu' or 'cuda', got {type(spec).__name__}")
    kind, _, idx = spec.strip().partition(":")
    if kind == "cpu" and not idx:
        return CPU
    if kind == "cuda":
        index = None
        if idx:
            if not idx.isdigit():
                raise RuntimeError(f"Invalid device string: '{spec}'")
            index = int(idx)
        reason = cuda_unavailable_reason()
        if reason is not None:
            raise DeviceUnavailableError(f"CUDA is not available: {reason}")
        count = _cupy().cuda.runtime.getDeviceCount()
        if index is not None and index >= count:
            raise DeviceUnavailableError(
                f"CUDA error: invalid device ordinal (cuda:{index} requested, {count} present)"
            )
        return Device("cuda", index)
    raise RuntimeError(f"Expected one of cpu, cuda device type at start of device string: {spec}")


@functools.lru_cache(maxsize=1)
def _cupy_or_reason() -> tuple[ModuleType | None, str | None]:
    try:
        import cupy  # the one CuPy import in the code base
    except ImportError:
        return None, "CuPy is not installed (pip install -e '.[gpu]')"
    except Exception as exc:  # a broken CUDA install surfaces as assorted errors
        return None, f"CuPy failed to import: {exc}"
    try:
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as exc:
        return None, f"no usable CUDA driver ({exc})"
    if count < 1:
        return None, "no CUDA device found"
    return cupy, None


def _cupy() -> ModuleType:
    mod, reason = _cupy_or_reason()
    if mod is None:
        raise DeviceUnavailableError(f"CUDA is not available: {reason}")
    return mod


def cuda_unavailable_reason() -> str | None:
    """None when CUDA can be used, else a sentence saying why not."""
    return _cupy_or_reason()[1]


def cuda_is_available() -> bool:
    return cuda_unavailable_reason() is None


def cuda_device_count() -> int:
    return 0 if not cuda_is_available() else int(_cupy().cuda.runtime.getDeviceCount())


def set_cuda_memory_limit(limit_bytes: int) -> None:
    """Cap CuPy's default memory pool, so one request cannot take the card."""
    if cuda_is_available():
        _cupy().get_default_memory_pool().set_limit(size=limit_bytes)


def device_of(array: Any) -> Device:
    """The device an array lives on."""
    # Exact type checks: a device array type may subclass numpy.ndarray (tests' fake CuPy).
    if array.__class__ is np.ndarray or isinstance(array, np.generic):
        return CPU
    dev = getattr(array, "device", None)
    return Device("cuda", int(getattr(dev, "id", 0)))


def to_numpy(array: Any) -> np.ndarray:
    """A host copy (or view) of any backend array."""
    if array.__class__ is np.ndarray:
        return array
    get = getattr(array, "get", None)
    if get is None:  # NumPy scalars, other ndarray subclasses
        return np.asarray(array)
    return get()  # a device array (CuPy's ndarray.get)


def move(array: Any, device: Device) -> Any:
    """Copy an array to a device (no copy if it is already there)."""
    if device.type == "cpu":
        return to_numpy(array)
    cp = _cupy()
    with cp.cuda.Device(device.index or 0):
        return cp.asarray(array)


def devices() -> list[dict[str, Any]]:
    """What /api/v1/devices reports."""
    reason = cuda_unavailable_reason()
    return [
        {"name": "cpu", "available": True, "reason": None},
        {"name": "cuda", "available": reason is None, "reason": reason},
    ]


def index_add(xp: ModuleType, target: Any, index: Any, values: Any) -> None:
    """target[index] += values, accumulating repeated indices (np.add.at / cupyx.scatter_add)."""
    if xp is np:
        np.add.at(target, index, values)
    elif getattr(xp, "index_add", None) is not None:  # engine.higher's tensor facade
        xp.index_add(target, index, values)
    else:
        import cupyx

        cupyx.scatter_add(target, index, values)


def array_module(array: Any) -> ModuleType:
    """numpy or cupy, whichever holds this array."""
    if array.__class__ is np.ndarray or isinstance(array, np.generic):
        return np
    return _cupy()


_erf_ufunc = np.frompyfunc(__import__("math").erf, 1, 1)


def erf(xp: ModuleType, a: Any) -> Any:
    """The error function, exact to double precision (NumPy has no erf ufunc)."""
    if xp is np:
        return np.asarray(_erf_ufunc(a), dtype=np.float64).astype(a.dtype, copy=False)
    own = getattr(xp, "erf", None)  # engine.higher's tensor facade (CuPy's module has none)
    if own is not None:
        return own(a)
    import cupyx.scipy.special

    return cupyx.scipy.special.erf(a)


def init_cuda_after_fork(memory_limit_bytes: int = 0) -> None:
    """Start CUDA in a freshly forked sandbox worker, before its jail closes the files the
    driver opens (CUDA does not survive ``fork``: the zygote only imports CuPy)."""
    _cupy_or_reason.cache_clear()
    cp = _cupy()
    cp.cuda.Device(0).use()
    cp.zeros(1).sum()  # create the context and the memory pool now
    if memory_limit_bytes > 0:
        cp.get_default_memory_pool().set_limit(size=memory_limit_bytes)
