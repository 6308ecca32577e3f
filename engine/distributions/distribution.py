"""The base class: batch and event shapes, sampling shapes, and PyTorch's repr."""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from engine import dtypes
from engine.factories import tensor
from engine.shapes import broadcast_tensors
from engine.sizes import Size
from engine.tensor import Tensor


def as_tensor(value: Any, like: Tensor | None = None) -> Tensor:
    if isinstance(value, Tensor):
        return value
    dtype = like.dtype if like is not None else dtypes.float32
    return tensor(float(value), dtype=dtype)


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """Numbers and tensors to tensors of one broadcast shape (PyTorch's broadcast_all)."""
    like = next((v for v in values if isinstance(v, Tensor)), None)
    tensors = [as_tensor(v, like) for v in values]
    return tuple(broadcast_tensors(*tensors))


def probs_or_logits(probs: Any, logits: Any) -> None:
    """PyTorch's check that a discrete distribution is given exactly one of the two."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """PyTorch's ``probs_to_logits``: the log of the probabilities clamped to [eps, 1 - eps]
    (float32's eps), or for a binary event the log-odds."""
    eps = 1.1920928955078125e-07
    p = probs.clamp(eps, 1 - eps)
    return p.log() - (-p).log1p() if is_binary else p.log()


def check(ok: bool, name: str, value: Any, constraint: str, cls: str) -> None:
    if not ok:
        raise ValueError(
            f"Expected parameter {name} ({type(value).__name__} of shape "
            f"{tuple(value.shape) if isinstance(value, Tensor) else ()}) of distribution {cls} to "
            f"satisfy the constraint {constraint}, but found invalid values:\n{value}"
        )


class Distribution:
    """A (batch of) probability distribution(s)."""

    arg_constraints: ClassVar[dict[str, str]] = {}
    has_rsample = False

    def __init__(self, batch_shape: Any = (), event_shape: Any = (), validate_args: Any = None):
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)

    @property
    def batch_shape(self) -> Size:
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        if not isinstance(sample_shape, tuple | list | Size):
            sample_shape = (sample_shape,)
        return Size((*sample_shape, *self._batch_shape, *self._event_shape))

    def sample(self, sample_shape: Any = ()) -> Tensor:
        from engine.core import no_grad

        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sampling")

    def sample_n(self, n: int) -> Tensor:
        return self.sample((n,))

    def log_prob(self, value: Tensor) -> Tensor:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        raise NotImplementedError

    @property
    def stddev(self) -> Tensor:
        return self.variance.sqrt()  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        raise NotImplementedError

    @property
    def variance(self) -> Tensor:
        raise NotImplementedError

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        parts = []
        for p in names:
            v = self.__dict__[p]
            parts.append(f"{p}: {v if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(parts)})"


LOG_2PI = math.log(2 * math.pi)
EPS32 = float(np.finfo(np.float32).eps)
