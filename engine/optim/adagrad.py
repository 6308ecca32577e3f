"""``torch.optim.Adagrad``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from engine import backend
from engine.optim.optimizer import ParameterRule, _fma
from engine.tensor import Tensor


class Adagrad(ParameterRule):
    _settings = (
        "lr lr_decay eps weight_decay initial_accumulator_value foreach maximize "
        "differentiable fused"
    )
    _checks = ("lr", "lr_decay", "weight_decay", "initial_accumulator_value", "eps")
    _fixed: ClassVar[dict[str, Any]] = {"foreach": None, "differentiable": False, "fused": None}

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
        super().__init__(params, locals())
        # PyTorch fills every parameter's state at construction, from the constructor's value
        # (a group's own initial_accumulator_value is not used)
        for group in self.param_groups:
            for p in group["params"]:
                state = self._state(p)
                state["step"] = 0
                xp = backend.array_module(p._data)
                state["sum"] = xp.full_like(p._data, initial_accumulator_value)

    def _step_parameter(
        self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]
    ) -> None:
        clr = group["lr"] / (1 + (state["step"] - 1) * group["lr_decay"])
        state_sum = state["sum"]
        state_sum[...] = _fma(grad, grad, state_sum)
        std = backend.array_module(state_sum).sqrt(state_sum) + group["eps"]
        p._data += (-clr * grad) / std  # addcdiv_(value=-clr)
        p._bump()
