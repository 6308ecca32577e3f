"""``torch.optim.NAdam``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Unpack

import numpy as np

from engine import backend
from engine.optim.optimizer import AdamFamily, ForeachSwitches, _second_moment
from engine.tensor import Tensor


class NAdam(AdamFamily):
    """Adam with Nesterov momentum (Dozat 2016), with its momentum schedule μ_t."""

    _settings = (
        "lr betas eps weight_decay momentum_decay decoupled_weight_decay maximize "
        "foreach capturable differentiable"
    )
    _checks = ("lr", "eps", "betas", "weight_decay", "momentum_decay")

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
        **options: Unpack[ForeachSwitches],
    ) -> None:
        super().__init__(params, locals())

    def _init_state(self, state: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        state["mu_product"] = np.float32(1.0)  # a float32 0-d tensor in PyTorch
        super()._init_state(state, p, group)

    def _update(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        step, psi = float(state["step"]), group["momentum_decay"]
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        bias_correction2 = 1 - beta2**step
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
        mu_product = np.float32(state["mu_product"] * np.float32(mu))
        state["mu_product"] = mu_product
        _second_moment(exp_avg_sq, grad, beta2)
        xp = backend.array_module(exp_avg_sq)
        denom = xp.sqrt(exp_avg_sq / bias_correction2)
        denom += eps
        mu_product_next = float(mu_product) * mu_next
        p._data += ((-lr * (1.0 - mu) / (1.0 - float(mu_product))) * grad) / denom
        p._bump()
        p._data += (((-lr * mu_next) / (1.0 - mu_product_next)) * exp_avg) / denom
