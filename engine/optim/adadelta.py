"""``torch.optim.Adadelta``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import backend
from engine.optim.optimizer import (
    Optimizer,
    _check_lr_eps_wd,
    _closure_loss,
    _fma,
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
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_lr_eps_wd(lr, eps, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "rho": rho,
                "eps": eps,
                "weight_decay": weight_decay,
                "maximize": maximize,
                "capturable": capturable,
                "foreach": foreach,
                "differentiable": differentiable,
            },
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for p, grad, state in self._with_grads(group):
                if not state:
                    state["step"] = 0
                    state["square_avg"] = _zeros(p)
                    state["acc_delta"] = _zeros(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                one_minus_rho = square_avg.dtype.type(1 - rho)
                square_avg *= rho
                square_avg[...] = _fma(one_minus_rho * grad, grad, square_avg)
                xp = backend.array_module(square_avg)
                std = xp.sqrt(square_avg + eps)
                delta = xp.sqrt(acc_delta + eps)
                delta /= std
                delta *= grad
                acc_delta *= rho
                acc_delta[...] = _fma(one_minus_rho * delta, delta, acc_delta)
                p._data[...] = _fma(-lr, delta, p._data)  # add_(delta, alpha=-lr)
                p._bump()
        return loss
