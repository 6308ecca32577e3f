"""``torch.optim.SGD``: momentum, dampening, Nesterov, weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.optim.optimizer import (
    Optimizer,
    _fma,
)


class SGD(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        maximize: bool = False,
    ) -> None:
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(
            params,
            {
                "lr": lr,
                "momentum": momentum,
                "dampening": dampening,
                "weight_decay": weight_decay,
                "nesterov": nesterov,
                "maximize": maximize,
                # PyTorch's implementation switches, kept so the group prints as PyTorch's does
                "foreach": None,
                "differentiable": False,
                "fused": None,
            },
        )

    def step(self) -> None:
        for group in self.param_groups:
            lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov = group["weight_decay"], group["nesterov"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad._data
                if group["maximize"]:
                    d_p = -d_p
                if wd:
                    d_p = _fma(wd, p._data, d_p)  # grad.add(param, alpha=weight_decay)
                if mom:
                    state = self._state(p)
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = d_p.copy()
                    else:
                        buf *= mom
                        buf[...] = _fma(1 - damp, d_p, buf)
                    state["momentum_buffer"] = buf
                    d_p = _fma(mom, buf, d_p) if nesterov else buf
                # In place, rounding lr·d_p then the difference (PyTorch fuses the two: results
                # can differ in the last bit). The single-rounding form (_fma) costs ~3x here,
                # on the update every SGD lesson runs.
                p._data -= lr * d_p
                p._bump()
