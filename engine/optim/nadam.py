"""``torch.optim.NAdam``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from engine import backend
from engine.optim.optimizer import (
    Optimizer,
    _check_lr_eps_betas_wd,
    _closure_loss,
    _fma,
    _lerp_,
    _zeros,
)


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat 2016), with its momentum schedule μ_t."""

    _scalar_state: ClassVar[dict[str, Any]] = {"step": int, "mu_product": np.float32}

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        _check_lr_eps_betas_wd(lr, eps, betas, weight_decay)
        if not momentum_decay >= 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "momentum_decay": momentum_decay,
                "decoupled_weight_decay": decoupled_weight_decay,
                "maximize": maximize,
                "foreach": foreach,
                "capturable": capturable,
                "differentiable": differentiable,
            },
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, psi = group["weight_decay"], group["momentum_decay"]
            for p, grad, state in self._with_grads(group):
                if not state:
                    state["step"] = 0
                    state["mu_product"] = np.float32(1.0)  # a float32 0-d tensor in PyTorch
                    state["exp_avg"] = _zeros(p)
                    state["exp_avg_sq"] = _zeros(p)
                state["step"] += 1
                step = float(state["step"])
                bias_correction2 = 1 - beta2**step
                if wd:
                    if group["decoupled_weight_decay"]:
                        p._data *= 1 - lr * wd
                        p._bump()
                    else:
                        grad = _fma(wd, p._data, grad)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
                mu_product = np.float32(state["mu_product"] * np.float32(mu))
                state["mu_product"] = mu_product
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq[...] = _fma(exp_avg_sq.dtype.type(1 - beta2) * grad, grad, exp_avg_sq)
                xp = backend.array_module(exp_avg_sq)
                denom = xp.sqrt(exp_avg_sq / bias_correction2)
                denom += eps
                mu_product_next = float(mu_product) * mu_next
                p._data += ((-lr * (1.0 - mu) / (1.0 - float(mu_product))) * grad) / denom
                p._bump()
                p._data += (((-lr * mu_next) / (1.0 - mu_product_next)) * exp_avg) / denom
                p._bump()
        return loss
