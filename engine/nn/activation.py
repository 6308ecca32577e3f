"""More ``torch.nn`` activation modules (PyTorch's ``torch.nn.modules.activation``): the
clamps and shrinks, SELU / CELU / Mish / the hard variants, Softmin, GLU and PReLU, with
PyTorch's arguments, checks and reprs."""

from __future__ import annotations

import warnings
from typing import Any

from engine.factories import empty
from engine.nn import functional as F
from engine.nn import init
from engine.nn.modules import Module, Parameter, _Functional
from engine.tensor import Tensor

__all__ = [
    "CELU",
    "GLU",
    "SELU",
    "Hardshrink",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LogSigmoid",
    "Mish",
    "PReLU",
    "ReLU6",
    "Softmin",
    "Softshrink",
    "Softsign",
    "Tanhshrink",
    "Threshold",
]


class Threshold(_Functional):
    fn = staticmethod(F.threshold)

    def __init__(self, threshold: float, value: float, inplace: bool = False) -> None:
        super().__init__(threshold=threshold, value=value, inplace=inplace)


class Hardtanh(_Functional):
    fn = staticmethod(F.hardtanh)

    def __init__(
        self,
        min_val: float = -1.0,
        max_val: float = 1.0,
        inplace: bool = False,
        min_value: float | None = None,
        max_value: float | None = None,
    ) -> None:
        if min_value is not None:
            warnings.warn(
                "keyword argument `min_value` is deprecated and renamed to `min_val`",
                FutureWarning,
                stacklevel=2,
            )
            min_val = min_value
        if max_value is not None:
            warnings.warn(
                "keyword argument `max_value` is deprecated and renamed to `max_val`",
                FutureWarning,
                stacklevel=2,
            )
            max_val = max_value
        super().__init__(min_val=min_val, max_val=max_val, inplace=inplace)
        if self.max_val <= self.min_val:
            raise AssertionError(
                f"max_val ({self.max_val}) must be greater than min_val ({self.min_val})"
            )


class ReLU6(Hardtanh):
    forward = Hardtanh.forward  # PyTorch's ReLU6 has no forward of its own: errors name Hardtanh's

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class _InplaceActivation(_Functional):
    """An activation whose only argument is ``inplace``."""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__(inplace=inplace)


class SELU(_InplaceActivation):
    fn = staticmethod(F.selu)


class Mish(_InplaceActivation):
    fn = staticmethod(F.mish)


class Hardswish(_InplaceActivation):
    fn = staticmethod(F.hardswish)

    def extra_repr(self) -> str:
        return ""  # PyTorch's prints no inplace=True (nor does Hardsigmoid's)


class Hardsigmoid(Hardswish):
    fn = staticmethod(F.hardsigmoid)


class CELU(_Functional):
    fn = staticmethod(F.celu)

    def __init__(self, alpha: float = 1.0, inplace: bool = False) -> None:
        super().__init__(alpha=alpha, inplace=inplace)


class GLU(_Functional):
    fn = staticmethod(F.glu)

    def __init__(self, dim: int = -1) -> None:
        super().__init__(dim=dim)


class Hardshrink(_Functional):
    fn = staticmethod(F.hardshrink)

    def __init__(self, lambd: float = 0.5) -> None:
        super().__init__(lambd=lambd)

    def extra_repr(self) -> str:
        return f"{self.lambd}"


class Softshrink(Hardshrink):
    fn = staticmethod(F.softshrink)


class LogSigmoid(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.logsigmoid(input)


class Softsign(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.softsign(input)


class Tanhshrink(Module):
    def forward(self, input: Tensor) -> Tensor:
        return F.tanhshrink(input)


class Softmin(Module):
    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmin(input, self.dim, _stacklevel=5)  # PyTorch's: the caller's line

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class PReLU(Module):
    """max(0, x) + a·min(0, x) with a learned slope a (one, or one per channel), initialised to
    ``init`` (no random draw)."""

    def __init__(
        self, num_parameters: int = 1, init: float = 0.25, device: Any = None, dtype: Any = None
    ) -> None:
        self.num_parameters = num_parameters
        super().__init__()
        self.init = init
        self.weight = Parameter(empty(num_parameters, dtype=dtype, device=device))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.constant_(self.weight, self.init)

    def forward(self, input: Tensor) -> Tensor:
        return F.prelu(input, self.weight)

    def extra_repr(self) -> str:
        return f"num_parameters={self.num_parameters}"
