"""``torch.optim.Adamax``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar, Unpack

from engine import backend
from engine.optim.optimizer import AdamFamily, Switches
from engine.tensor import Tensor


class Adamax(AdamFamily):
    """Adam with the infinity norm: steps divided by a running maximum of |gradient|."""

    _settings = "lr betas eps weight_decay foreach maximize differentiable capturable"

    _moments: ClassVar[tuple[str, ...]] = ("exp_avg", "exp_inf")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        **options: Unpack[Switches],
    ) -> None:
        super().__init__(params, locals())

    def _update(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
        xp = backend.array_module(exp_inf)
        exp_inf *= beta2
        xp.maximum(exp_inf, xp.abs(grad) + eps, out=exp_inf)
        clr = lr / (1 - beta1 ** state["step"])
        p._data += (-clr * exp_avg) / exp_inf  # addcdiv_(exp_avg, exp_inf, value=-clr)
