"""``nn.KLDivLoss`` and ``nn.MarginRankingLoss`` (PyTorch's ``torch.nn.modules.loss``)."""

from __future__ import annotations

from typing import Any

from engine.nn import functional as F
from engine.nn.modules import _Loss
from engine.tensor import Tensor

__all__ = ["KLDivLoss", "MarginRankingLoss"]


class KLDivLoss(_Loss):
    """KL divergence of ``target`` from ``input`` (log-probabilities); ``reduction='batchmean'``
    is the mathematical KL divergence per sample."""

    def __init__(
        self,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        log_target: bool = False,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class MarginRankingLoss(_Loss):
    """max(0, −y·(x1 − x2) + margin): x1 should rank above x2 where y = 1, below where y = −1."""

    def __init__(
        self,
        margin: float = 0.0,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1: Tensor, input2: Tensor, target: Tensor) -> Tensor:
        return F.margin_ranking_loss(
            input1, input2, target, margin=self.margin, reduction=self.reduction
        )
