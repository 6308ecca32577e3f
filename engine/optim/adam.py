"""``torch.optim.Adam``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from engine import backend
from engine.optim.optimizer import AdamFamily, _second_moment, _zeros
from engine.tensor import Tensor


class Adam(AdamFamily):
    _settings = (
        "lr betas eps weight_decay amsgrad maximize foreach capturable differentiable "
        "fused decoupled_weight_decay"
    )
    _fixed: ClassVar[dict[str, Any]] = {
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "fused": None,
    }

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
        super().__init__(params, locals(), betas=tuple(betas))

    def _init_state(self, state: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        super()._init_state(state, p, group)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _zeros(p)

    def _update(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        step, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
        _second_moment(exp_avg_sq, grad, beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        xp = backend.array_module(exp_avg_sq)
        if group["amsgrad"]:
            max_sq = state["max_exp_avg_sq"]
            xp.maximum(max_sq, exp_avg_sq, out=max_sq)
            denom = xp.sqrt(max_sq) / bias_correction2_sqrt + eps
        else:
            denom = xp.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
        p._data += (-step_size * exp_avg) / denom  # addcdiv_(value=-step_size)
