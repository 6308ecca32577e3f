"""``torch.optim.RMSprop``."""

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
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        super().__init__(
            params,
            {
                "lr": lr,
                "momentum": momentum,
                "alpha": alpha,
                "eps": eps,
                "centered": centered,
                "weight_decay": weight_decay,
                "capturable": False,
                "foreach": None,
                "maximize": maximize,
                "differentiable": False,
            },
        )

    def step(self) -> None:
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            wd, mom, centered = group["weight_decay"], group["momentum"], group["centered"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad._data
                if group["maximize"]:
                    grad = -grad
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["square_avg"] = _zeros(p)
                    if mom > 0:
                        state["momentum_buffer"] = _zeros(p)
                    if centered:
                        state["grad_avg"] = _zeros(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                square_avg = state["square_avg"]
                square_avg *= alpha
                square_avg[...] = _fma(square_avg.dtype.type(1 - alpha) * grad, grad, square_avg)
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
