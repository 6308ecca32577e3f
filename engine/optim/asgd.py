"""``torch.optim.ASGD``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from engine.optim.optimizer import ParameterRule, _fma, _zeros
from engine.tensor import Tensor


class ASGD(ParameterRule):
    """Averaged SGD (Polyak and Juditsky 1992): SGD with a decaying rate η, and a running average
    of the iterates (``state['ax']``) from step ``t0`` on."""

    _settings = "lr lambd alpha t0 weight_decay foreach maximize differentiable capturable"
    _checks = ("lr", "weight_decay")

    _scalar_state: ClassVar[dict[str, Any]] = {"step": int, "eta": np.float32, "mu": np.float32}

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        super().__init__(params, locals())

    def _init_state(self, state: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        state["eta"] = np.float32(group["lr"])  # float32 0-d tensors in PyTorch
        state["mu"] = np.float32(1.0)
        state["ax"] = _zeros(p)

    def _step_parameter(
        self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]
    ) -> None:
        lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
        eta = float(state["eta"])
        p._data *= 1 - lambd * eta  # the decay term
        p._bump()
        p._data[...] = _fma(-eta, grad, p._data)  # add_(grad, alpha=-eta)
        p._bump()
        ax = state["ax"]
        if float(state["mu"]) != 1:
            ax += (p._data - ax) * state["mu"]
        else:
            ax[...] = p._data
        step = float(state["step"])
        state["eta"] = np.float32(lr / ((1 + lambd * lr * step) ** alpha))
        state["mu"] = np.float32(1 / max(1, step - t0))
