"""``torch.optim.Adam``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import backend
from engine.optim.optimizer import (
    Optimizer,
    _fma,
    _lerp_,
    _zeros,
)


class Adam(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        maximize: bool = False,
        *,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": tuple(betas),
                "eps": eps,
                "weight_decay": weight_decay,
                "amsgrad": amsgrad,
                "maximize": maximize,
                "foreach": None,
                "capturable": False,
                "differentiable": False,
                "fused": None,
                "decoupled_weight_decay": decoupled_weight_decay,
            },
        )

    def step(self) -> None:
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad = group["weight_decay"], group["amsgrad"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad._data
                if group["maximize"]:
                    grad = -grad
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = _zeros(p)
                    state["exp_avg_sq"] = _zeros(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros(p)
                state["step"] += 1
                step = state["step"]
                if wd:
                    if group["decoupled_weight_decay"]:  # AdamW: decay the weights themselves
                        p._data *= 1 - lr * wd
                        p._bump()  # PyTorch's param.mul_ counts as its own in-place change
                    else:
                        grad = _fma(wd, p._data, grad)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq[...] = _fma(exp_avg_sq.dtype.type(1 - beta2) * grad, grad, exp_avg_sq)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2**0.5
                xp = backend.array_module(exp_avg_sq)
                if amsgrad:
                    max_sq = state["max_exp_avg_sq"]
                    xp.maximum(max_sq, exp_avg_sq, out=max_sq)
                    denom = xp.sqrt(max_sq) / bias_correction2_sqrt + eps
                else:
                    denom = xp.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
                p._data += (-step_size * exp_avg) / denom  # addcdiv_(value=-step_size)
                p._bump()
