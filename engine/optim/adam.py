"""``torch.optim.Adam``."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from engine import backend
from engine.optim.optimizer import (
    EXACT_MAX_ELEMENTS,
    AdamFamily,
    _second_moment,
    _zeros,
    fma32,
)
from engine.tensor import Tensor


@dataclass
class _Flat:
    """A group's moments as two flat float32 buffers: each parameter's state arrays are views
    of them (``state["exp_avg"] is m[k]``), so that one step updates them all at once."""

    ids: list[int]
    exp_avg: Any
    exp_avg_sq: Any
    m: list[Any]
    v: list[Any]


class Adam(AdamFamily):
    _settings = (
        "lr betas eps weight_decay amsgrad maximize foreach capturable differentiable "
        "fused decoupled_weight_decay"
    )
    _fixed: ClassVar[dict[str, Any]] = {
        "foreach": None,
        "capturable": False,
        "differentiable": False,
        "fused": None,
    }

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        maximize: bool = False,
        *,
        decoupled_weight_decay: bool = False,
    ) -> None:
        super().__init__(params, locals(), betas=tuple(betas))

    def _step_group(self, group: dict[str, Any]) -> None:
        if not self._flat_step(group):
            super()._step_group(group)

    def _flat_step(self, group: dict[str, Any]) -> bool:
        """The step of every parameter of ``group`` at once, on flat arrays: the same
        elementwise arithmetic as the step of each in turn (so the same numbers), without its
        dozen small NumPy calls per parameter. Where the group does not fit (AMSGrad, another
        dtype than float32 on the host, a tensor large enough for ``_fma``'s two roundings,
        parameters at different steps, state that is not the flat buffers' views: loaded, or
        made by the step of each), nothing is done and False returned."""
        if group["amsgrad"]:
            return False
        params = [p for p in group["params"] if p.grad is not None]
        if len(params) < 2:
            return False
        for p in params:
            pd, gd = p._data, p.grad._data  # type: ignore[union-attr]
            if (
                pd.__class__ is not np.ndarray
                or gd.__class__ is not np.ndarray
                or pd.dtype != np.float32
                or gd.dtype != np.float32
                or pd.shape != gd.shape
                or pd.size > EXACT_MAX_ELEMENTS
            ):
                return False
        ids = [id(p) for p in params]
        states = [self.state.get(i) for i in ids]
        flats: dict[int, _Flat] = self.__dict__.setdefault("_flats", {})
        flat = flats.get(id(group))
        if not any(states):
            if len(set(ids)) != len(ids):
                return False
            flat = flats[id(group)] = self._new_flat(params)
            for p, m, v in zip(params, flat.m, flat.v, strict=True):
                self.state[id(p)] = {"step": 0, "exp_avg": m, "exp_avg_sq": v}
            states = [self.state[i] for i in ids]
        elif flat is None or flat.ids != ids:
            return False
        step = states[0]["step"]  # type: ignore[index]
        for st, m, v in zip(states, flat.m, flat.v, strict=True):
            if not st or st["step"] != step or st["exp_avg"] is not m or st["exp_avg_sq"] is not v:
                return False
        self._flat_update(group, params, states, flat)  # type: ignore[arg-type]
        return True

    @staticmethod
    def _new_flat(params: list[Tensor]) -> _Flat:
        """Zeroed moment buffers for ``params``, and each one's views of them."""
        total = sum(p._data.size for p in params)
        exp_avg, exp_avg_sq = np.zeros(total, np.float32), np.zeros(total, np.float32)
        m, v, at = [], [], 0
        for p in params:
            n = p._data.size
            m.append(exp_avg[at : at + n].reshape(p._data.shape))
            v.append(exp_avg_sq[at : at + n].reshape(p._data.shape))
            at += n
        return _Flat([id(p) for p in params], exp_avg, exp_avg_sq, m, v)

    @staticmethod
    def _flat_update(
        group: dict[str, Any], params: list[Tensor], states: list[dict[str, Any]], flat: _Flat
    ) -> None:
        """Adam's (or AdamW's) step on the concatenated parameters and gradients, written back
        to each parameter: ``_decayed``, ``_lerp_``, ``_second_moment`` and ``_update``."""
        lr, (beta1, beta2), eps, wd = (
            group["lr"],
            group["betas"],
            group["eps"],
            group["weight_decay"],
        )
        decoupled = group.get("decoupled_weight_decay", False)
        grad = np.concatenate([p.grad._data.reshape(-1) for p in params])  # type: ignore[union-attr]
        if group["maximize"]:
            grad = -grad
        data = np.concatenate([p._data.reshape(-1) for p in params])
        for st in states:
            st["step"] += 1
        step = states[0]["step"]
        if wd:
            if decoupled:
                data *= 1 - lr * wd
            else:
                grad = fma32(wd, data, grad)
        exp_avg, exp_avg_sq = flat.exp_avg, flat.exp_avg_sq
        weight = 1 - beta1  # _lerp_(exp_avg, grad, 1 - beta1)
        w = np.float32(weight)
        if abs(weight) < 0.5:
            exp_avg[...] = fma32(w, grad - exp_avg, exp_avg)
        else:
            exp_avg[...] = fma32(w - np.float32(1), grad - exp_avg, grad)
        exp_avg_sq *= beta2  # _second_moment
        exp_avg_sq[...] = fma32(np.float32(1 - beta2) * grad, grad, exp_avg_sq)
        step_size = lr / (1 - beta1**step)
        denom = np.sqrt(exp_avg_sq) / (1 - beta2**step) ** 0.5 + eps
        data += (-step_size * exp_avg) / denom
        at = 0
        for p in params:
            n = p._data.size
            p._data[...] = data[at : at + n].reshape(p._data.shape)
            at += n
            if wd and decoupled:
                p._bump()
            p._bump()

    def _init_state(self, state: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        super()._init_state(state, p, group)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _zeros(p)

    def _update(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
        step, exp_avg, exp_avg_sq = state["step"], state["exp_avg"], state["exp_avg_sq"]
        _second_moment(exp_avg_sq, grad, beta2)
        bias_correction1 = 1 - beta1**step
        bias_correction2 = 1 - beta2**step
        step_size = lr / bias_correction1
        bias_correction2_sqrt = bias_correction2**0.5
        xp = backend.array_module(exp_avg_sq)
        if group["amsgrad"]:
            max_sq = state["max_exp_avg_sq"]
            xp.maximum(max_sq, exp_avg_sq, out=max_sq)
            denom = xp.sqrt(max_sq) / bias_correction2_sqrt + eps
        else:
            denom = xp.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
        p._data += (-step_size * exp_avg) / denom  # addcdiv_(value=-step_size)
