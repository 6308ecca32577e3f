"""``torch.cuda``: availability of the GPU device (through engine.backend)."""

from __future__ import annotations

from engine import backend


def is_available() -> bool:
    return backend.cuda_is_available()


def device_count() -> int:
    return backend.cuda_device_count()


def synchronize() -> None:
    if backend.cuda_is_available():
        backend._cupy().cuda.Device().synchronize()


def manual_seed(seed: int) -> None:
    """The engine draws random numbers on the host, so the CPU seed covers CUDA too."""
