"""``Uniform(low, high)``."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.distributions.distribution import Distribution, broadcast_all, check
from engine.factories import rand
from engine.tensor import Tensor


class Uniform(Distribution):
    arg_constraints: ClassVar[dict[str, str]] = {"low": "Dependent()", "high": "Dependent()"}
    has_rsample = True

    def __init__(self, low: Any, high: Any, validate_args: Any = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        if validate_args is not False:
            check(bool((self.low._data < self.high._data).all()), "low", self.low,
                  "LessThan(upper_bound=high)", "Uniform")  # fmt: skip
        super().__init__(self.low.shape)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        r = rand(tuple(shape), dtype=self.low.dtype)
        return self.low + r * (self.high - self.low)

    def log_prob(self, value: Any) -> Tensor:
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        return (lb * ub).log() - (self.high - self.low).log()

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()
