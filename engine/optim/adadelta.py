"""``torch.optim.Adadelta``."""

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
    _second_moment,
    _zeros,
)


class Adadelta(Optimizer):
    """Adadelta (Zeiler 2012): steps scaled by the ratio of running RMS of updates and of
    gradients."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_args(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay)
        super().__init__(
            params,
            _defaults(
                locals(), "lr rho eps weight_decay maximize capturable foreach differentiable"
            ),
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps = group["lr"], group["rho"], group["eps"]
            for p, grad, state in self._with_grads(group):
                if not state:
                    state["step"] = 0
                    state["square_avg"] = _zeros(p)
                    state["acc_delta"] = _zeros(p)
                state["step"] += 1
                grad = _decayed(p, grad, group)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                _second_moment(square_avg, grad, rho)
                xp = backend.array_module(square_avg)
                std = xp.sqrt(square_avg + eps)
                delta = xp.sqrt(acc_delta + eps)
                delta /= std
                delta *= grad
                _second_moment(acc_delta, delta, rho)
                p._data[...] = _fma(-lr, delta, p._data)  # add_(delta, alpha=-lr)
                p._bump()
        return loss
