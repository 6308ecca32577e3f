"""``torch.optim.RMSprop``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

from engine import backend
from engine.optim.optimizer import ParameterRule, _fma, _lerp_, _second_moment, _zeros
from engine.tensor import Tensor


class RMSprop(ParameterRule):
    _settings = (
        "lr momentum alpha eps centered weight_decay capturable foreach maximize differentiable"
    )
    _checks = ("lr", "eps", "momentum", "weight_decay", "alpha")
    _fixed: ClassVar[dict[str, Any]] = {
        "capturable": False,
        "foreach": None,
        "differentiable": False,
    }

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
        super().__init__(params, locals())

    def _init_state(self, state: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        state["square_avg"] = _zeros(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _zeros(p)
        if group["centered"]:
            state["grad_avg"] = _zeros(p)

    def _step_parameter(
        self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]
    ) -> None:
        lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
        square_avg = state["square_avg"]
        _second_moment(square_avg, grad, alpha)
        xp = backend.array_module(square_avg)
        if group["centered"]:
            grad_avg = state["grad_avg"]
            _lerp_(grad_avg, grad, 1 - alpha)
            avg = xp.sqrt(_fma(-grad_avg, grad_avg, square_avg)) + eps
        else:
            avg = xp.sqrt(square_avg) + eps
        if group["momentum"] > 0:
            buf = state["momentum_buffer"]
            buf *= group["momentum"]
            buf += grad / avg  # addcdiv_(grad, avg)
            p._data[...] = _fma(-lr, buf, p._data)
        else:
            p._data += (-lr * grad) / avg  # addcdiv_(value=-lr)
        p._bump()
