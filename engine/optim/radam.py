"""``torch.optim.RAdam``."""

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


class RAdam(Optimizer):
    """Adam with the variance of its adaptive rate rectified (Liu et al. 2019): plain momentum
    steps until the approximated SMA length exceeds 5."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr_eps_betas_wd(lr, eps, betas, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "maximize": maximize,
                "foreach": foreach,
                "capturable": capturable,
                "decoupled_weight_decay": decoupled_weight_decay,
                "differentiable": differentiable,
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
                    state["exp_avg_sq"] = _zeros(p)
                state["step"] += 1
                step = float(state["step"])
                if wd:
                    if group["decoupled_weight_decay"]:
                        p._data *= 1 - lr * wd
                        p._bump()
                    else:
                        grad = _fma(wd, p._data, grad)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq[...] = _fma(exp_avg_sq.dtype.type(1 - beta2) * grad, grad, exp_avg_sq)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                corrected = exp_avg / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    xp = backend.array_module(exp_avg_sq)
                    root = xp.sqrt(exp_avg_sq)
                    root += eps
                    # bias_correction2**0.5 / root is Tensor.__rtruediv__: reciprocal, product
                    adaptive = xp.reciprocal(root) * (bias_correction2**0.5)
                    rect = (
                        (rho_t - 4)
                        * (rho_t - 2)
                        * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    p._data -= corrected * lr * adaptive * rect  # add_(..., alpha=-1.0)
                else:
                    p._data -= corrected * lr
                p._bump()
        return loss
