"""``torch.optim.Adamax``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import backend
from engine.optim.optimizer import (
    Optimizer,
    _check_lr_eps_betas_wd,
    _closure_loss,
    _fma,
    _lerp_,
    _zeros,
)


class Adamax(Optimizer):
    """Adam with the infinity norm: steps divided by a running maximum of |gradient|."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_lr_eps_betas_wd(lr, eps, betas, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd = group["weight_decay"]
            for p, grad, state in self._with_grads(group):
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = _zeros(p)
                    state["exp_inf"] = _zeros(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                _lerp_(exp_avg, grad, 1 - beta1)
                xp = backend.array_module(exp_inf)
                exp_inf *= beta2
                xp.maximum(exp_inf, xp.abs(grad) + eps, out=exp_inf)
                clr = lr / (1 - beta1 ** state["step"])
                p._data += (-clr * exp_avg) / exp_inf  # addcdiv_(exp_avg, exp_inf, value=-clr)
                p._bump()
        return loss
