"""``Normal(loc, scale)``."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from engine.distributions.distribution import LOG_2PI, Distribution, broadcast_all, check
from engine.factories import empty, normal
from engine.tensor import Tensor


class Normal(Distribution):
    arg_constraints: ClassVar[dict[str, str]] = {
        "loc": "Real()",
        "scale": "GreaterThan(lower_bound=0.0)",
    }
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: Any = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        if validate_args is not False:
            check(bool((self.scale._data > 0).all()), "scale", self.scale,
                  self.arg_constraints["scale"], "Normal")  # fmt: skip
        super().__init__(self.loc.shape)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return self.scale

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        from engine.core import no_grad

        with no_grad():
            return normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = empty(tuple(shape), dtype=self.loc.dtype).normal_()
        return self.loc + eps * self.scale

    def log_prob(self, value: Any) -> Tensor:
        var = self.scale**2
        log_scale = self.scale.log()
        return -((value - self.loc) ** 2) / (2 * var) - log_scale - math.log(math.sqrt(2 * math.pi))

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * LOG_2PI + self.scale.log()

    def cdf(self, value: Any) -> Tensor:
        return 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())
