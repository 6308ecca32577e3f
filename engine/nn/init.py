"""``torch.nn.init``: the initialisers nn.Linear uses, drawing from PyTorch's RNG stream."""

from __future__ import annotations

import math

from engine.tensor import Tensor, _no_record


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    if nonlinearity in ("linear", "sigmoid", "conv1d", "conv2d"):
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        slope = 0.01 if param is None else param
        return math.sqrt(2.0 / (1 + slope**2))
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _fans(t: Tensor) -> tuple[int, int]:
    if t.dim() < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in t.shape[2:]:
        receptive *= s
    return t.shape[1] * receptive, t.shape[0] * receptive


def uniform_(t: Tensor, a: float = 0.0, b: float = 1.0) -> Tensor:
    with _no_record():
        return t.uniform_(a, b)


def normal_(t: Tensor, mean: float = 0.0, std: float = 1.0) -> Tensor:
    with _no_record():
        return t.normal_(mean, std)


def zeros_(t: Tensor) -> Tensor:
    with _no_record():
        return t.zero_()


def ones_(t: Tensor) -> Tensor:
    with _no_record():
        return t.fill_(1)


def constant_(t: Tensor, val: float) -> Tensor:
    with _no_record():
        return t.fill_(val)


def kaiming_uniform_(
    t: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    fan_in, fan_out = _fans(t)
    fan = fan_in if mode == "fan_in" else fan_out
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std
    return uniform_(t, -bound, bound)


def xavier_uniform_(t: Tensor, gain: float = 1.0) -> Tensor:
    fan_in, fan_out = _fans(t)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(t, -a, a)


def xavier_normal_(t: Tensor, gain: float = 1.0) -> Tensor:
    fan_in, fan_out = _fans(t)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(t, 0.0, std)


def kaiming_normal_(
    t: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu"
) -> Tensor:
    fan_in, fan_out = _fans(t)
    fan = fan_in if mode == "fan_in" else fan_out
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(t, 0.0, std)
