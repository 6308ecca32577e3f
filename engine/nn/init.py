"""``torch.nn.init``: the initialisers, drawing from PyTorch's RNG stream (or ``generator=``)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from engine.tensor import Tensor, _no_record

__all__ = [
    "calculate_gain",
    "constant_",
    "eye_",
    "kaiming_normal_",
    "kaiming_uniform_",
    "normal_",
    "ones_",
    "orthogonal_",
    "trunc_normal_",
    "uniform_",
    "xavier_normal_",
    "xavier_uniform_",
    "zeros_",
]


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")  # fmt: skip
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, int | float) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


_fans = _calculate_fan_in_and_fan_out


def _fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _fans(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    with _no_record():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    with _no_record():
        return tensor.normal_(mean, std, generator=generator)


def trunc_normal_(
    tensor: Tensor,
    mean: float = 0.0,
    std: float = 1.0,
    a: float = -2.0,
    b: float = 2.0,
    generator: Any = None,
) -> Tensor:
    """A normal truncated to [a, b], by PyTorch's rejection sampling: normals redrawn where
    they fall outside (most of the mass inside), else uniforms on [a, b] accepted with the
    normal's relative density."""

    def norm_cdf(x: float) -> float:
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn(
            "mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
            "The distribution of values may be incorrect.",
            stacklevel=2,
        )
    data = tensor._data
    dtype = data.dtype

    def fresh() -> Tensor:
        return tensor.new_empty(tuple(data.shape))  # type: ignore[no-any-return]

    with _no_record():
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = dtype.type(a), dtype.type(b)
            result = tensor.normal_(mean, std, generator=generator)._data.copy()
            while True:
                mask = (result < lo) | (result > hi)
                if not mask.any():
                    break
                redraw = fresh().normal_(mean, std, generator=generator)._data
                result = np.where(mask, redraw, result)
        else:
            mode = max(a, min(mean, b))
            log_peak = -0.5 * ((mode - mean) / std) ** 2

            def log_pdf(x: np.ndarray) -> np.ndarray:
                z = (x - dtype.type(mean)) / dtype.type(std)
                return (z * z * dtype.type(-0.5) - dtype.type(log_peak)).astype(dtype)

            result = tensor.uniform_(a, b, generator=generator)._data.copy()
            candidates = log_pdf(result)
            draws = fresh().uniform_(generator=generator)._data
            pending = np.log(draws) > candidates
            while pending.any():
                drawn = fresh().uniform_(a, b, generator=generator)._data
                result = np.where(pending, drawn, result)
                candidates = log_pdf(drawn)
                draws = fresh().uniform_(generator=generator)._data
                pending = np.where(pending, np.log(draws) > candidates, pending)
        data[...] = result
        tensor._bump()
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    with _no_record():
        return tensor.zero_()


def ones_(tensor: Tensor) -> Tensor:
    with _no_record():
        return tensor.fill_(1)


def constant_(tensor: Tensor, val: float) -> Tensor:
    with _no_record():
        return tensor.fill_(val)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.dim() != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with _no_record():
        tensor._data[...] = np.eye(*tensor._data.shape, dtype=tensor._data.dtype)
        tensor._bump()
    return tensor


def _kaiming(name: str, draw: Callable[[Tensor, float, Any], Tensor]) -> Callable[..., Tensor]:
    """kaiming_uniform_ / kaiming_normal_: ``draw(tensor, std, generator)`` with He et al.'s
    std, gain(nonlinearity, a) / sqrt(fan)."""

    def init(
        tensor: Tensor,
        a: float = 0,
        mode: str = "fan_in",
        nonlinearity: str = "leaky_relu",
        generator: Any = None,
    ) -> Tensor:
        if 0 in tensor.shape:
            return tensor
        return draw(
            tensor, calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode)), generator
        )

    init.__name__ = init.__qualname__ = name
    return init


def _uniform_std(tensor: Tensor, std: float, generator: Any) -> Tensor:
    bound = math.sqrt(3.0) * std  # a uniform on [-b, b] has std b / sqrt(3)
    return uniform_(tensor, -bound, bound, generator)


kaiming_uniform_ = _kaiming("kaiming_uniform_", _uniform_std)
kaiming_normal_ = _kaiming("kaiming_normal_", lambda t, std, g: normal_(t, 0.0, std, g))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    fan_in, fan_out = _fans(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a normal one, as PyTorch."""
    if tensor.dim() < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with _no_record():
        from engine.factories import empty

        flat = empty(rows, cols, dtype=tensor.dtype).normal_(0, 1, generator=generator)._data
        if rows < cols:
            flat = flat.T
        q, r = np.linalg.qr(flat.astype(np.float64))
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        tensor._data[...] = (gain * q).reshape(tensor._data.shape).astype(tensor._data.dtype)
        tensor._bump()
    return tensor
