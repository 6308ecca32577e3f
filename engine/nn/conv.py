"""``nn.Conv1d`` / ``nn.Conv2d`` and the pooling modules, initialised and printed as PyTorch's."""

from __future__ import annotations

import math
from typing import Any

from engine.factories import empty
from engine.nn import functional as F
from engine.nn import init
from engine.nn.modules import Parameter, _Functional, _SharedForward
from engine.nn.spatial import _conv, _max_pool
from engine.tensor import Tensor

__all__ = [
    "AdaptiveAvgPool2d",
    "AvgPool1d",
    "AvgPool2d",
    "Conv1d",
    "Conv2d",
    "MaxPool1d",
    "MaxPool2d",
]


def _ntuple(value: Any, d: int) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * d
    items = tuple(value)
    return items * d if len(items) == 1 else items


class _ConvNd(_SharedForward):
    _d = 0

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        d = self._d
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise NotImplementedError(
                f"padding_mode={padding_mode!r} is not in the playground (only 'zeros')"
            )
        if isinstance(padding, str) and padding not in ("same", "valid"):
            raise ValueError(
                f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, d)
        self.stride = _ntuple(stride, d)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, d)
        self.dilation = _ntuple(dilation, d)
        self.groups = groups
        self.padding_mode = padding_mode
        shape = (out_channels, in_channels // groups, *self.kernel_size)
        self.weight = Parameter(empty(*shape, dtype=dtype, device=device))
        self.bias = Parameter(empty(out_channels, dtype=dtype, device=device)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return _conv(
            self._d, input, self.weight, self.bias, self.stride, self.padding, self.dilation,
            self.groups,
        )  # fmt: skip

    def extra_repr(self) -> str:
        s = (
            f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
            f"stride={self.stride}"
        )
        if self.padding != (0,) * self._d:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._d:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C_in, L) input."""

    _d = 1


class Conv2d(_ConvNd):
    """2-D convolution over (N, C_in, H, W) input."""

    _d = 2


class _PoolNd(_SharedForward):
    """A pooling window, as PyTorch's pooling modules hold it: ``stride`` defaults to
    ``kernel_size``."""

    _d: int

    def __init__(self, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding = padding
        self.ceil_mode = ceil_mode


class _MaxPoolNd(_PoolNd):
    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        return_indices: bool = False,
        ceil_mode: bool = False,
    ) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.dilation = dilation
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Tensor:
        return _max_pool(
            self._d, input, self.kernel_size, self.stride, self.padding, self.dilation,
            self.ceil_mode, self.return_indices,
        )  # fmt: skip

    def extra_repr(self) -> str:
        return (
            f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
            f"dilation={self.dilation}, ceil_mode={self.ceil_mode}"
        )


class MaxPool1d(_MaxPoolNd):
    _d = 1


class MaxPool2d(_MaxPoolNd):
    _d = 2


class _AvgPoolNd(_PoolNd):
    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode)
        self.count_include_pad = count_include_pad
        if self._d == 1:  # PyTorch's AvgPool1d holds its window as 1-tuples (AvgPool2d as given)
            self.kernel_size = _ntuple(self.kernel_size, 1)
            self.stride = _ntuple(self.stride, 1)
            self.padding = _ntuple(self.padding, 1)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolNd):
    _d = 1

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool1d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
            self.count_include_pad,
        )  # fmt: skip


class AvgPool2d(_AvgPoolNd):
    _d = 2

    def __init__(
        self,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
        divisor_override: int | None = None,
    ) -> None:
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)
        self.divisor_override = divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return F.avg_pool2d(
            input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
            self.count_include_pad, self.divisor_override,
        )  # fmt: skip


class AdaptiveAvgPool2d(_Functional):
    fn = staticmethod(F.adaptive_avg_pool2d)

    def __init__(self, output_size: Any) -> None:
        super().__init__(output_size=output_size)
