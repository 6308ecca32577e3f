"""``Multinomial(total_count, probs)``: counts of ``total_count`` categorical draws."""

from __future__ import annotations

from typing import Any, ClassVar

from engine.distributions.categorical import Categorical
from engine.distributions.distribution import Distribution
from engine.factories import zeros
from engine.tensor import Tensor


class Multinomial(Distribution):
    arg_constraints: ClassVar[dict[str, str]] = {
        "probs": "Simplex()",
        "logits": "IndependentConstraint(Real(), 1)",
    }

    def __init__(
        self, total_count: int = 1, probs: Any = None, logits: Any = None, validate_args: Any = None
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits, validate_args=validate_args)
        batch = self._categorical.batch_shape
        super().__init__(batch, self._categorical.param_shape[-1:])

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(sample_shape) if isinstance(sample_shape, tuple | list) else (sample_shape,)
        samples = self._categorical.sample((self.total_count, *shape))
        order = list(range(samples.dim()))
        order.append(order.pop(0))
        samples = samples.permute(*order)
        counts = zeros(*self._extended_shape(shape), dtype=samples.dtype)
        counts.scatter_add_(-1, samples, samples.new_ones(tuple(samples.shape)))
        return counts.type_as(self.probs)
