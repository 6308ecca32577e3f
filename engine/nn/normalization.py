"""``nn.BatchNorm1d``, ``nn.BatchNorm2d`` and ``nn.GroupNorm``, as PyTorch's ``batchnorm`` and ``normalization``
modules: the same buffers, state_dict keys, running-statistics updates (including
``momentum=None``, a cumulative average) and reprs."""

from __future__ import annotations

from typing import Any

from engine import dtypes
from engine.factories import empty, ones, tensor, zeros
from engine.nn import functional as F
from engine.nn import init
from engine.nn.modules import Module, Parameter
from engine.tensor import Tensor

__all__ = ["BatchNorm1d", "BatchNorm2d", "GroupNorm"]


def _affine(module: Module, n: int, affine: bool, bias: bool, dtype: Any, device: Any) -> None:
    """A learned scale and shift per channel (``weight``, ``bias``: set by _reset_affine), or
    None for either."""
    weight = Parameter(empty(n, dtype=dtype, device=device)) if affine else None
    shift = Parameter(empty(n, dtype=dtype, device=device)) if affine and bias else None
    module.register_parameter("weight", weight)
    module.register_parameter("bias", shift)


def _reset_affine(module: Module) -> None:
    """The scale ones and the shift zeros, as PyTorch initialises them."""
    if module.weight is not None:
        init.ones_(module.weight)
    if module.bias is not None:
        init.zeros_(module.bias)


class _BatchNorm(Module):
    """PyTorch's ``_BatchNorm``: batch statistics in training (updating the running ones),
    running statistics in eval mode (unless they are not tracked)."""

    def __init__(
        self,
        num_features: int,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine(self, num_features, affine, bias, dtype, device)
        if track_running_stats:
            self.register_buffer("running_mean", zeros(num_features, dtype=dtype, device=device))
            self.register_buffer("running_var", ones(num_features, dtype=dtype, device=device))
            self.register_buffer(
                "num_batches_tracked", tensor(0, dtype=dtypes.int64, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        self.reset_parameters()

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.zero_()
            self.running_var.fill_(1)
            self.num_batches_tracked.zero_()

    def reset_parameters(self) -> None:
        self.reset_running_stats()
        _reset_affine(self)

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            self.num_batches_tracked._data += 1
            self.num_batches_tracked._bump()
            if self.momentum is None:  # a cumulative moving average
                factor = 1.0 / float(self.num_batches_tracked._data)
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        keep = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if keep else None,
            self.running_var if keep else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self.bias is not None}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) input, per feature over N (and L)."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) input, per channel over N, H and W."""

    def _check_input_dim(self, input: Tensor) -> None:
        if input.dim() != 4:
            raise ValueError(f"expected 4D input (got {input.dim()}D input)")


class GroupNorm(Module):
    """Group normalization: each sample's channels in ``num_groups`` groups, then a learned
    scale and shift per channel (ones and zeros at first)."""

    def __init__(
        self,
        num_groups: int,
        num_channels: int,
        eps: float = 1e-5,
        affine: bool = True,
        device: Any = None,
        dtype: Any = None,
        *,
        bias: bool = True,
    ) -> None:
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(
                f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})"
            )
        self.num_groups, self.num_channels = num_groups, num_channels
        self.eps, self.affine = eps, affine
        _affine(self, num_channels, affine, bias, dtype, device)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        _reset_affine(self)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self.bias is not None}"
        )
