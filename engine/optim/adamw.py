"""``torch.optim.AdamW``: Adam with decoupled weight decay."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from engine.optim.adam import Adam


class AdamW(Adam):
    """Adam with decoupled weight decay: the weights shrink by ``lr * weight_decay`` each step,
    outside the moment estimates."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay=True
        )
