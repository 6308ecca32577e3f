"""``torch.optim.RAdam``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Unpack

from engine import backend
from engine.optim.optimizer import AdamFamily, ForeachSwitches, _second_moment
from engine.tensor import Tensor


class RAdam(AdamFamily):
    """Adam with the variance of its adaptive rate rectified (Liu et al. 2019): plain momentum
    steps until the approximated SMA length exceeds 5."""

    _settings = (
        "lr betas eps weight_decay maximize foreach capturable decoupled_weight_decay "
        "differentiable"
    )

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        **options: Unpack[ForeachSwitches],
    ) -> None:
        super().__init__(params, locals())

    def _update(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        step, exp_avg, exp_avg_sq = float(state["step"]), state["exp_avg"], state["exp_avg_sq"]
        _second_moment(exp_avg_sq, grad, beta2)
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
                (rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
            ) ** 0.5
            p._data -= corrected * lr * adaptive * rect  # add_(..., alpha=-1.0)
        else:
            p._data -= corrected * lr
