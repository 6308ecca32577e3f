"""``torch.optim.Adadelta``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Unpack

from engine import backend
from engine.optim.optimizer import ParameterRule, Switches, _fma, _second_moment, _zeros
from engine.tensor import Tensor


class Adadelta(ParameterRule):
    """Adadelta (Zeiler 2012): steps scaled by the ratio of running RMS of updates and of
    gradients."""

    _settings = "lr rho eps weight_decay maximize capturable foreach differentiable"
    _checks = ("lr", "rho", "eps", "weight_decay")

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        **options: Unpack[Switches],
    ) -> None:
        super().__init__(params, locals())

    def _init_state(self, state: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        state["square_avg"] = _zeros(p)
        state["acc_delta"] = _zeros(p)

    def _step_parameter(
        self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]
    ) -> None:
        lr, rho, eps = group["lr"], group["rho"], group["eps"]
        square_avg, acc_delta = state["square_avg"], state["acc_delta"]
        _second_moment(square_avg, grad, rho)
        xp = backend.array_module(square_avg)
        std = xp.sqrt(square_avg + eps)
        delta = xp.sqrt(acc_delta + eps)
        delta /= std
        delta *= grad
        _second_moment(acc_delta, delta, rho)
        p._data[...] = _fma(-lr, delta, p._data)  # add_(delta, alpha=-lr)
        p._bump()
