"""``torch.optim.Adagrad``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import backend
from engine.optim.optimizer import (
    Optimizer,
    _fma,
)


class Adagrad(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        *,
        maximize: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        super().__init__(
            params,
            {
                "lr": lr,
                "lr_decay": lr_decay,
                "eps": eps,
                "weight_decay": weight_decay,
                "initial_accumulator_value": initial_accumulator_value,
                "foreach": None,
                "maximize": maximize,
                "differentiable": False,
                "fused": None,
            },
        )
        # PyTorch fills every parameter's state at construction, from the constructor's value
        # (a group's own initial_accumulator_value is not used)
        for group in self.param_groups:
            for p in group["params"]:
                state = self._state(p)
                state["step"] = 0
                xp = backend.array_module(p._data)
                state["sum"] = xp.full_like(p._data, initial_accumulator_value)

    def step(self) -> None:
        for group in self.param_groups:
            lr, lr_decay, eps, wd = (
                group["lr"],
                group["lr_decay"],
                group["eps"],
                group["weight_decay"],
            )
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad._data
                if group["maximize"]:
                    grad = -grad
                state = self._state(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                clr = lr / (1 + (state["step"] - 1) * lr_decay)
                state_sum = state["sum"]
                state_sum[...] = _fma(grad, grad, state_sum)
                std = backend.array_module(state_sum).sqrt(state_sum) + eps
                p._data += (-clr * grad) / std  # addcdiv_(value=-clr)
                p._bump()
