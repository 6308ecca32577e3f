"""``torch.optim.RMSprop``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import backend
from engine.optim.optimizer import (
    Optimizer,
    _check_args,
    _closure_loss,
    _decayed,
    _defaults,
    _fma,
    _lerp_,
    _second_moment,
    _zeros,
)


class RMSprop(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        _check_args(lr=lr, eps=eps, momentum=momentum, weight_decay=weight_decay, alpha=alpha)
        super().__init__(
            params,
            _defaults(
                locals(),
                "lr momentum alpha eps centered weight_decay capturable foreach maximize "
                "differentiable",
                capturable=False,
                foreach=None,
                differentiable=False,
            ),
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            mom, centered = group["momentum"], group["centered"]
            for p, grad, state in self._with_grads(group):
                if not state:
                    state["step"] = 0
                    state["square_avg"] = _zeros(p)
                    if mom > 0:
                        state["momentum_buffer"] = _zeros(p)
                    if centered:
                        state["grad_avg"] = _zeros(p)
                state["step"] += 1
                grad = _decayed(p, grad, group)
                square_avg = state["square_avg"]
                _second_moment(square_avg, grad, alpha)
                xp = backend.array_module(square_avg)
                if centered:
                    grad_avg = state["grad_avg"]
                    _lerp_(grad_avg, grad, 1 - alpha)
                    avg = xp.sqrt(_fma(-grad_avg, grad_avg, square_avg)) + eps
                else:
                    avg = xp.sqrt(square_avg) + eps
                if mom > 0:
                    buf = state["momentum_buffer"]
                    buf *= mom
                    buf += grad / avg  # addcdiv_(grad, avg)
                    p._data[...] = _fma(-lr, buf, p._data)
                else:
                    p._data += (-lr * grad) / avg  # addcdiv_(value=-lr)
                p._bump()
        return loss
