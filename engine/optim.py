"""``torch.optim``: SGD (momentum, dampening, Nesterov, weight decay) and Adam.

The update rules follow PyTorch's single-tensor implementations step for step, in the
parameters' dtype, so a seeded run matches PyTorch to float32 rounding.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from engine import dtypes
from engine.autograd import zero_grads
from engine.tensor import Tensor


class Optimizer:
    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[int, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got torch.{dtypes.type_word(params._data.dtype)}Tensor"
            )
        items = list(params)
        if not items:
            raise ValueError("optimizer got an empty parameter list")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        for g in groups:
            # PyTorch's order: the group as given ('params' first), then the missing defaults
            group = {"params": list(g["params"]), **{k: v for k, v in g.items() if k != "params"}}
            for k, v in defaults.items():
                group.setdefault(k, v)
            for p in group["params"]:
                if not isinstance(p, Tensor):
                    raise TypeError(
                        "optimizer can only optimize Tensors, but one of the params "
                        f"is {type(p).__name__}"
                    )
                if not p.is_leaf:
                    raise ValueError("can't optimize a non-leaf Tensor")
            self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        zero_grads((p for g in self.param_groups for p in g["params"]), set_to_none)

    def _state(self, p: Tensor) -> dict[str, Any]:
        return self.state.setdefault(id(p), {})

    def state_of(self, p: Tensor) -> dict[str, Any]:
        """The optimizer state of one parameter (arrays), for the stateless train API."""
        return self.state.get(id(p), {})

    def state_dict(self) -> dict[str, Any]:
        """PyTorch's layout: per-parameter state keyed by the parameter's index over all
        groups, and each group's settings with its parameters as those indices."""
        index: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state: dict[int, dict[str, Any]] = {}
        for g in self.param_groups:
            for p in g["params"]:
                saved = self.state.get(id(p))
                if saved:
                    state[index[id(p)]] = {k: _state_value(v) for k, v in saved.items()}
        return {"state": state, "param_groups": groups}

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            for k in sorted(k for k in g if k != "params"):
                lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


def _state_value(value: Any) -> Any:
    """An optimizer state entry as PyTorch holds it: a tensor (Adam's step count is a float32
    0-d tensor)."""
    if isinstance(value, int | float):
        return Tensor._wrap(np.asarray(value, dtype=np.float32))
    return Tensor._wrap(value)


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
                    d_p = d_p + wd * p._data
                if mom:
                    state = self._state(p)
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = d_p.copy()
                    else:
                        buf *= mom
                        buf += (1 - damp) * d_p
                    state["momentum_buffer"] = buf
                    d_p = d_p + mom * buf if nesterov else buf
                p._data -= lr * d_p
                p._version += 1


class Adam(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        maximize: bool = False,
    ) -> None:
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": tuple(betas),
                "eps": eps,
                "weight_decay": weight_decay,
                "amsgrad": amsgrad,
                "maximize": maximize,
                "foreach": None,
                "capturable": False,
                "differentiable": False,
                "fused": None,
                "decoupled_weight_decay": False,
            },
        )

    def step(self) -> None:
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad = group["weight_decay"], group["amsgrad"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad._data
                if group["maximize"]:
                    grad = -grad
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = p._data * 0
                    state["exp_avg_sq"] = p._data * 0
                    if amsgrad:
                        state["max_exp_avg_sq"] = p._data * 0
                state["step"] += 1
                step = state["step"]
                if wd:
                    grad = grad + wd * p._data
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                exp_avg += (1 - beta1) * (grad - exp_avg)  # lerp_ with weight 1 - beta1
                exp_avg_sq *= beta2
                exp_avg_sq += (1 - beta2) * (grad * grad)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = math.sqrt(bias_correction2)
                if amsgrad:
                    xp_max = state["max_exp_avg_sq"]
                    xp_max[...] = (xp_max > exp_avg_sq) * xp_max + (
                        xp_max <= exp_avg_sq
                    ) * exp_avg_sq
                    denom = (xp_max**0.5) / bias_correction2_sqrt + eps
                else:
                    denom = (exp_avg_sq**0.5) / bias_correction2_sqrt + eps
                p._data -= step_size * (exp_avg / denom)
                p._version += 1


__all__ = ["SGD", "Adam", "Optimizer"]
