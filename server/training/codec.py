"""The carried training state's arrays: float32 bytes in base64, exact where decimal text is not."""

from __future__ import annotations

import base64
import binascii
import math
from typing import Any

import numpy as np

from engine import backend
from server.training.errors import SpecError
from server.training.schemas import ArrayData

Array = np.ndarray

#: The optimizer buffers a state carries per parameter, by optimizer.
SLOT_KEYS = {"sgd": (), "momentum": ("momentum_buffer",), "adam": ("exp_avg", "exp_avg_sq")}


def encode_array(a: Any) -> dict[str, Any]:
    """An array (NumPy or CuPy) as ArrayData's fields: shape, dtype, base64 of its bytes."""
    host = np.ascontiguousarray(backend.to_numpy(a), dtype="<f4")
    return {"shape": list(host.shape), "dtype": "float32",
            "data": base64.b64encode(host.tobytes()).decode("ascii")}  # fmt: skip


def decode_array(spec: ArrayData, shape: tuple[int, ...], what: str) -> Array:
    """The float32 array ``spec`` holds; SpecError names ``what`` if it is not ``shape`` or
    not finite."""
    if tuple(spec.shape) != shape:
        raise SpecError(
            f"state does not match the model: {what} has shape {spec.shape}, "
            f"expected {list(shape)} (reset the run after changing the model)"
        )
    try:
        raw = binascii.a2b_base64(spec.data, strict_mode=True)  # b64decode's regex: 2x slower
    except ValueError as exc:
        raise SpecError(f"state: {what} is not valid base64") from exc
    if len(raw) != 4 * math.prod(shape):
        raise SpecError(f"state: {what} holds {len(raw)} bytes, expected {4 * math.prod(shape)}")
    arr = np.frombuffer(raw, dtype="<f4").astype(np.float32).reshape(shape)
    if not np.isfinite(arr).all():
        raise SpecError(f"state: {what} contains NaN or infinity")
    return arr
