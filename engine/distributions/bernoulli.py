"""``Bernoulli(probs=None, logits=None)``."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.distributions.distribution import (
    Distribution,
    as_tensor,
    check,
    probs_or_logits,
    probs_to_logits,
)
from engine.factories import bernoulli
from engine.nn.functional import binary_cross_entropy_with_logits
from engine.tensor import Tensor


class Bernoulli(Distribution):
    arg_constraints: ClassVar[dict[str, str]] = {
        "probs": "Interval(lower_bound=0.0, upper_bound=1.0)",
        "logits": "Real()",
    }

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        probs_or_logits(probs, logits)
        if probs is not None:
            self.probs = as_tensor(probs)
            if validate_args is not False:
                ok = bool(((self.probs._data >= 0) & (self.probs._data <= 1)).all())
                check(ok, "probs", self.probs, self.arg_constraints["probs"], "Bernoulli")
            self.logits = probs_to_logits(self.probs, is_binary=True)
        else:
            self.logits = as_tensor(logits)
            self.probs = self.logits.sigmoid()
        super().__init__(self.probs.shape)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        from engine.core import no_grad

        with no_grad():
            return bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        logits = (
            self.logits.expand(value.shape) if self.logits.shape != value.shape else self.logits
        )
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")
