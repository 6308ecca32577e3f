"""``torch.accelerator`` (PyTorch 2.6+): the current accelerator, CUDA where CuPy has one."""

from __future__ import annotations

from engine import backend
from engine.backend import Device


def is_available() -> bool:
    return backend.cuda_is_available()


def current_accelerator(check_available: bool = False) -> Device | None:
    """``device(type='cuda')`` where a GPU is usable, else None."""
    return Device("cuda") if backend.cuda_is_available() else None


def device_count() -> int:
    return backend.cuda_device_count() if backend.cuda_is_available() else 0


def current_device_index() -> int:
    return 0 if backend.cuda_is_available() else -1


def synchronize(device: object = None) -> None:
    if backend.cuda_is_available():
        backend._cupy().cuda.Device().synchronize()
