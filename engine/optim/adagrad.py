"""``torch.optim.Adagrad``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine import backend
from engine.optim.optimizer import Optimizer, _check_args, _closure_loss, _decayed, _defaults, _fma


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
        _check_args(
            lr=lr,
            lr_decay=lr_decay,
            weight_decay=weight_decay,
            initial_accumulator_value=initial_accumulator_value,
            eps=eps,
        )
        super().__init__(
            params,
            _defaults(
                locals(),
                "lr lr_decay eps weight_decay initial_accumulator_value foreach maximize "
                "differentiable fused",
                foreach=None,
                differentiable=False,
                fused=None,
            ),
        )
        # PyTorch fills every parameter's state at construction, from the constructor's value
        # (a group's own initial_accumulator_value is not used)
        for group in self.param_groups:
            for p in group["params"]:
                state = self._state(p)
                state["step"] = 0
                xp = backend.array_module(p._data)
                state["sum"] = xp.full_like(p._data, initial_accumulator_value)

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lr_decay, eps = group["lr"], group["lr_decay"], group["eps"]
            for p, grad, state in self._with_grads(group):
                state["step"] += 1
                grad = _decayed(p, grad, group)
                clr = lr / (1 + (state["step"] - 1) * lr_decay)
                state_sum = state["sum"]
                state_sum[...] = _fma(grad, grad, state_sum)
                std = backend.array_module(state_sum).sqrt(state_sum) + eps
                p._data += (-clr * grad) / std  # addcdiv_(value=-clr)
                p._bump()
        return loss
