"""Channel dropout, ``Unflatten``, ``ZeroPad2d``, ``Upsample`` and ``Bilinear``, as PyTorch's
``dropout``, ``flatten``, ``padding``, ``upsampling`` and ``linear`` modules define them
(arguments, checks, initialisation stream and reprs)."""

from __future__ import annotations

import math
from typing import Any

from engine.factories import empty
from engine.nn import functional as F
from engine.nn import init
from engine.nn.modules import Module, Parameter
from engine.tensor import Tensor

__all__ = ["Bilinear", "Dropout1d", "Dropout2d", "Unflatten", "Upsample", "ZeroPad2d"]


class _DropoutNd(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """Zero whole channels of (N, C, L) input with probability p, in training."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """Zero whole channels (feature maps) of (N, C, H, W) input with probability p."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Unflatten(Module):
    """Split dimension ``dim`` into ``unflattened_size`` (a view: ViewBackward0)."""

    def __init__(self, dim: int, unflattened_size: Any) -> None:
        super().__init__()
        if isinstance(unflattened_size, tuple | list):
            for idx, elem in enumerate(unflattened_size):
                if not isinstance(elem, int):
                    raise TypeError(
                        "unflattened_size must be tuple of ints, "
                        f"but found element of type {type(elem).__name__} at pos {idx}"
                    )
        else:
            raise TypeError(
                "unflattened_size must be a tuple of ints, but found type "
                f"{type(unflattened_size).__name__}"
            )
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input: Tensor) -> Tensor:
        return unflatten(input, self.dim, self.unflattened_size)

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


def unflatten(input: Tensor, dim: int, sizes: Any) -> Tensor:
    """``input.unflatten(dim, sizes)``: one dimension viewed as several (one may be -1)."""
    shape = list(input._data.shape)
    d = F._wrap_dim(dim, len(shape))
    sizes = [int(s) for s in sizes]
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    known = math.prod(s for s in sizes if s != -1)
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in sizes:
        if known == 0 or shape[d] % known:
            raise RuntimeError(
                f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
                f"({shape[d]}) in the input tensor"
            )
        sizes[sizes.index(-1)] = shape[d] // known
    elif known != shape[d]:
        raise RuntimeError(
            f"unflatten: Provided sizes {sizes} don't multiply up to the size of dim {dim} "
            f"({shape[d]}) in the input tensor"
        )
    return input.reshape(tuple(shape[:d] + sizes + shape[d + 1 :]))


def _quadruple(padding: Any) -> tuple[int, int, int, int]:
    if isinstance(padding, int):
        return (padding,) * 4
    items = tuple(padding)
    return items if len(items) == 4 else (items * 4)[:4]  # type: ignore[return-value]


class ZeroPad2d(Module):
    """Zeros around the last two dimensions: (left, right, top, bottom)."""

    def __init__(self, padding: Any) -> None:
        super().__init__()
        self.padding = _quadruple(padding)
        self.value = 0.0

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class Upsample(Module):
    """Resize by ``scale_factor`` or to ``size``: nearest neighbour (the only mode here)."""

    def __init__(
        self,
        size: Any = None,
        scale_factor: Any = None,
        mode: str = "nearest",
        align_corners: bool | None = None,
        recompute_scale_factor: bool | None = None,
    ) -> None:
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor: Any = tuple(float(factor) for factor in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners = mode, align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.interpolate(
            input,
            self.size,
            self.scale_factor,
            self.mode,
            self.align_corners,
            recompute_scale_factor=self.recompute_scale_factor,
        )

    def extra_repr(self) -> str:
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class Bilinear(Module):
    """y = x1ᵀ A x2 + b, initialised as PyTorch does: weight then bias uniform in ±1/√in1."""

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        shape = (out_features, in1_features, in2_features)
        self.weight = Parameter(empty(*shape, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        if self.in1_features <= 0:
            raise ValueError(
                f"in1_features must be > 0, but got (in1_features={self.in1_features})"
            )
        bound = 1 / math.sqrt(self.weight.size(1))
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )
