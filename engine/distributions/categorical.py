"""``Categorical(probs=None, logits=None)``: sampled by ``torch.multinomial``, as PyTorch's."""

from __future__ import annotations

import math
from typing import Any, ClassVar

from engine.distributions.distribution import (
    Distribution,
    as_tensor,
    check,
    probs_or_logits,
    probs_to_logits,
)
from engine.factories import multinomial
from engine.functions import softmax
from engine.shapes import broadcast_tensors
from engine.tensor import Tensor


class Categorical(Distribution):
    arg_constraints: ClassVar[dict[str, str]] = {
        "probs": "Simplex()",
        "logits": "IndependentConstraint(Real(), 1)",
    }

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: Any = None) -> None:
        probs_or_logits(probs, logits)
        if probs is not None:
            probs = as_tensor(probs)
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            if validate_args is not False and bool((probs._data < 0).any()):
                check(False, "probs", probs, self.arg_constraints["probs"], type(self).__name__)
            self.probs = probs / probs.sum(-1, keepdim=True)
            self.logits = probs_to_logits(self.probs)
        else:
            logits = as_tensor(logits)
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self.probs = softmax(self.logits, -1)
        self._num_events = self.probs.shape[-1]
        super().__init__(self.probs.shape[:-1])

    @property
    def param_shape(self) -> Any:
        return self.probs.shape

    @property
    def mean(self) -> Tensor:
        return self.probs.new_full(self._extended_shape(), math.nan)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(sample_shape) if isinstance(sample_shape, tuple | list) else (sample_shape,)
        n = math.prod(shape) if shape else 1
        probs_2d = self.probs.reshape(-1, self._num_events)
        samples_2d = multinomial(probs_2d, n, True).T
        return samples_2d.reshape(tuple(self._extended_shape(shape)))

    def log_prob(self, value: Tensor) -> Tensor:
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_tensors(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self) -> Tensor:
        return -(self.logits * self.probs).sum(-1)
