"""``torch.optim.ASGD``."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import numpy as np

from engine.optim.optimizer import (
    Optimizer,
    _check_args,
    _closure_loss,
    _decayed,
    _defaults,
    _fma,
    _zeros,
)


class ASGD(Optimizer):
    """Averaged SGD (Polyak and Juditsky 1992): SGD with a decaying rate η, and a running average
    of the iterates (``state['ax']``) from step ``t0`` on."""

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
        _check_args(lr=lr, weight_decay=weight_decay)
        super().__init__(
            params,
            _defaults(
                locals(),
                "lr lambd alpha t0 weight_decay foreach maximize differentiable capturable",
            ),
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            for p, grad, state in self._with_grads(group):
                if not state:
                    state["step"] = 0
                    state["eta"] = np.float32(lr)  # float32 0-d tensors in PyTorch
                    state["mu"] = np.float32(1.0)
                    state["ax"] = _zeros(p)
                state["step"] += 1
                grad = _decayed(p, grad, group)
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
        return loss
