"""``torch.nn.functional``'s convolution, pooling, padding, resizing and patches (``conv2d``,
``max_pool2d``, ``pad``, ``interpolate``, ``unfold``, ``bilinear``), re-exported by
engine.nn.functional; the rows they record are engine/nn/conv_ops.py's."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from engine import functions as _fn
from engine import shapes
from engine.dtypes import type_word
from engine.factories import full
from engine.nn import conv_ops
from engine.tensor import Tensor, apply
from engine.tensor import named as _named


def _tuple(value: Any, d: int, name: str) -> tuple[int, ...]:
    if isinstance(value, int | np.integer):
        return (int(value),) * d
    items = tuple(int(v) for v in value)
    if len(items) == 1:
        return items * d
    if len(items) != d:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {d} values")
    return items


def _batched(input: Tensor, d: int, fname: str) -> tuple[Tensor, bool]:
    """The input with a batch dimension (unbatched input is allowed, as in PyTorch)."""
    if input.dim() == d + 1:
        return input.unsqueeze(0), True
    if input.dim() != d + 2:
        shape = list(input._data.shape)
        raise RuntimeError(
            f"Expected {d + 1}D (unbatched) or {d + 2}D (batched) input to {fname}, but got "
            f"input of size: {shape}"
        )
    return input, False


def _conv(
    d: int,
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None,
    stride: Any,
    padding: Any,
    dilation: Any,
    groups: int,
) -> Tensor:
    fname = f"conv{d}d"
    x, unbatched = _batched(input, d, fname)
    kernel = tuple(weight._data.shape[2:])
    dil = _tuple(dilation, d, "dilation")
    st = _tuple(stride, d, "stride")
    if isinstance(padding, str):
        if padding == "valid":
            pad: tuple[int, ...] = (0,) * d
        elif padding == "same":
            if any(s != 1 for s in st):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            totals = [dl * (k - 1) for dl, k in zip(dil, kernel, strict=True)]
            pad = tuple(t // 2 for t in totals)
            extra = [t % 2 for t in totals]  # odd totals: one more on the right, as PyTorch
            if any(extra):
                warnings.warn(
                    "Using padding='same' with even kernel lengths and odd dilation may require "
                    "a zero-padded copy of the input be created",
                    UserWarning,
                    stacklevel=3,
                )
                widths: list[int] = []
                for e in reversed(extra):
                    widths += [0, e]
                x = pad_fn(x, widths)
        else:
            raise ValueError(
                f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}"
            )
    else:
        pad = _tuple(padding, d, "padding")
    c_in = x._data.shape[1]
    if weight.dim() != d + 2 or c_in != weight._data.shape[1] * groups:
        raise RuntimeError(
            f"Given groups={groups}, weight of size {list(weight._data.shape)}, expected "
            f"input{list(x._data.shape)} to have {weight._data.shape[1] * groups} channels, but "
            f"got {c_in} channels instead"
        )
    if weight._data.shape[0] % groups:
        raise RuntimeError("out_channels must be divisible by groups")
    for i in range(d):
        if x._data.shape[2 + i] + 2 * pad[i] < dil[i] * (kernel[i] - 1) + 1:
            raise RuntimeError(
                f"Calculated padded input size per channel: "
                f"({' x '.join(str(x._data.shape[2 + j] + 2 * pad[j]) for j in range(d))}). "
                f"Kernel size: ({' x '.join(str(k) for k in kernel)}). Kernel size can't be "
                "greater than actual input size"
            )
    _same_dtypes(x, weight, bias, _onednn(x, weight, st, dil, int(groups)))
    attrs = {"stride": st, "padding": pad, "dilation": dil, "groups": int(groups)}
    inputs = (x, weight) if bias is None else (x, weight, bias)
    out = apply(conv_ops.CONV, inputs, attrs)
    return out.squeeze(0) if unbatched else out


_DTYPE_WORD = {"float32": "float", "float64": "double", "float16": "c10::Half"}


def _onednn(x: Tensor, weight: Tensor, stride: Any, dilation: Any, groups: int) -> bool:
    """Whether ATen would run this float convolution on a CPU with oneDNN (MKL-DNN): its
    ``use_mkldnn`` rule (one thread), which decides the words of a dtype refusal."""
    shape = x._data.shape  # (N, C, *spatial), a 1-d convolution as a 2-d one of height 1
    kernel = weight._data.shape[2:]
    kh, kw = (1, kernel[0]) if len(kernel) == 1 else (kernel[-2], kernel[-1])
    n = shape[0]
    wide = n >= 16 or kw != 1 or kh != 1
    wide = wide or any(s != 1 for s in stride) or any(d != 1 for d in dilation)
    big = groups > 1 or (kw > 3 and kh > 3) or n > 1 or int(np.prod(shape)) > 20480
    return x._data.dtype == np.float32 and wide and big


def _same_dtypes(x: Tensor, weight: Tensor, bias: Tensor | None, onednn: bool) -> None:
    """PyTorch's refusals of a convolution whose input, weight and bias differ in dtype (its
    kernels compute in one dtype: a float input is never quietly run in double), in the words
    of the kernel ATen picks (``onednn``: see :func:`_onednn`)."""
    xd = x._data.dtype
    if bias is not None and bias._data.dtype != xd:
        raise RuntimeError(
            f"Input type ({_DTYPE_WORD.get(xd.name, xd.name)}) and bias type "
            f"({_DTYPE_WORD.get(bias._data.dtype.name, bias._data.dtype.name)}) should be the "
            "same"
        )
    if weight._data.dtype != xd:
        if onednn:
            raise RuntimeError(
                f"Input type (torch.{type_word(xd)}Tensor) and weight type "
                f"(torch.{type_word(weight._data.dtype)}Tensor) should be the same or input "
                "should be a MKLDNN tensor and weight is a dense tensor"
            )
        raise RuntimeError(
            f"expected scalar type {type_word(xd)} but found {type_word(weight._data.dtype)}"
        )


def _in_dims(name: str, fn: Callable[..., Tensor], doc: str | None = None) -> Any:
    """conv1d / conv2d, max_pool1d / max_pool2d: one function per number of spatial dims,
    named as PyTorch names it (a bad argument's TypeError says ``conv2d()``)."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = doc
    return fn


def _conv_in(d: int, doc: str) -> Any:
    def conv(
        input: Tensor,
        weight: Tensor,
        bias: Tensor | None = None,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
    ) -> Tensor:
        return _conv(d, input, weight, bias, stride, padding, dilation, groups)

    return _in_dims(f"conv{d}d", conv, doc)


conv1d = _conv_in(1, "1-D cross-correlation over (N, C_in, L) input.")
conv2d = _conv_in(2, "2-D cross-correlation over (N, C_in, H, W) input.")


def _pool_attrs(
    d: int, kernel_size: Any, stride: Any, padding: Any, dilation: Any, ceil_mode: bool
) -> dict[str, Any]:
    kernel = _tuple(kernel_size, d, "kernel_size")
    st = (
        kernel
        if stride is None or (not isinstance(stride, int) and len(stride) == 0)
        else _tuple(stride, d, "stride")
    )
    pad = _tuple(padding, d, "padding")
    for k, p in zip(kernel, pad, strict=True):
        if p > k // 2:
            raise RuntimeError(
                f"pad should be at most half of effective kernel size, but got pad={p}, "
                f"kernel_size={k} and dilation=1"
            )
    return {
        "kernel": kernel,
        "stride": st,
        "padding": pad,
        "dilation": _tuple(dilation, d, "dilation"),
        "ceil": bool(ceil_mode),
    }


def _max_pool(
    d: int,
    input: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    dilation: Any,
    ceil_mode: bool,
    return_indices: bool,
) -> Tensor:
    if return_indices:
        raise NotImplementedError("max_pool with return_indices=True is not in the playground")
    _batched(input, d, f"max_pool{d}d")  # (the pooling rows take unbatched input as it is)
    attrs = _pool_attrs(d, kernel_size, stride, padding, dilation, ceil_mode)
    # PyTorch pools 1-D input as 2-D and squeezes: its node is a squeeze
    name = "MaxPool2DWithIndicesBackward0" if d == 2 else "SqueezeBackward1"
    return apply(conv_ops.MAX_POOL, (input,), attrs, name=name)


def _max_pool_in(d: int) -> Any:
    def max_pool(
        input: Tensor,
        kernel_size: Any,
        stride: Any = None,
        padding: Any = 0,
        dilation: Any = 1,
        ceil_mode: bool = False,
        return_indices: bool = False,
    ) -> Tensor:
        return _max_pool(
            d, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices
        )

    return _in_dims(f"max_pool{d}d", max_pool)


max_pool1d = _max_pool_in(1)
max_pool2d = _max_pool_in(2)


def _avg_pool(
    d: int,
    input: Tensor,
    kernel_size: Any,
    stride: Any,
    padding: Any,
    ceil_mode: bool,
    count_include_pad: bool,
    divisor_override: int | None,
) -> Tensor:
    _batched(input, d, f"avg_pool{d}d")
    attrs = _pool_attrs(d, kernel_size, stride, padding, 1, ceil_mode)
    attrs["count_include_pad"] = bool(count_include_pad)
    attrs["divisor"] = divisor_override
    name = "AvgPool2DBackward0" if d == 2 else "SqueezeBackward1"
    return apply(conv_ops.AVG_POOL, (input,), attrs, name=name)


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    return _avg_pool(1, input, kernel_size, stride, padding, ceil_mode, count_include_pad, None)


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    return _avg_pool(
        2, input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override
    )


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Mean over each of an output_size grid of (nearly) equal regions; one pooling node when
    the input divides evenly, else the regions' means stacked (a composite)."""
    x, unbatched = _batched(input, 2, "adaptive_avg_pool2d")
    size = x._data.shape[2:]
    out = tuple(
        s if o is None else int(o) for s, o in zip(size, _tuple_or_none(output_size), strict=True)
    )
    if all(s % o == 0 for s, o in zip(size, out, strict=True)):
        k = tuple(s // o for s, o in zip(size, out, strict=True))
        attrs = {"kernel": k, "stride": k, "padding": (0, 0), "dilation": (1, 1), "ceil": False,
                 "count_include_pad": True, "divisor": None}  # fmt: skip
        # PyTorch takes a (1, 1) output as a mean over the last two dims
        name = "MeanBackward1" if out == (1, 1) else "AdaptiveAvgPool2DBackward0"
        result = apply(conv_ops.AVG_POOL, (x,), attrs, name=name)
    else:
        rows = []
        for i in range(out[0]):
            h0, h1 = (i * size[0]) // out[0], -(-((i + 1) * size[0]) // out[0])
            cols = []
            for j in range(out[1]):
                w0, w1 = (j * size[1]) // out[1], -(-((j + 1) * size[1]) // out[1])
                cols.append(x[:, :, h0:h1, w0:w1].mean(dim=(2, 3)))
            rows.append(shapes.stack(cols, -1))
        result = shapes.stack(rows, -2)
    return result.squeeze(0) if unbatched else result


def _tuple_or_none(value: Any) -> tuple[Any, Any]:
    if value is None or isinstance(value, int | np.integer):
        return (value, value)
    items = tuple(value)
    return (items[0], items[0]) if len(items) == 1 else (items[0], items[1])


def pad(
    input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None
) -> Tensor:
    """F.pad, constant mode: zeros (or ``value``) around the last dims, (left, right) pairs from
    the last dim backwards; a composite of ``cat`` with constant tensors."""
    if mode != "constant":
        raise NotImplementedError(
            f"F.pad(mode={mode!r}) is not in the playground (only 'constant')"
        )
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.dim():
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension"
        )
    out = input
    fill = 0.0 if value is None else float(value)
    for i in range(len(pad) // 2):
        dim = input.dim() - 1 - i
        left, right = int(pad[2 * i]), int(pad[2 * i + 1])
        if left < 0:
            out = out.narrow(dim, -left, out.shape[dim] + left)
            left = 0
        if right < 0:
            out = out.narrow(dim, 0, out.shape[dim] + right)
            right = 0
        parts = []
        for width in (left, right):
            shape = list(out._data.shape)
            shape[dim] = width
            parts.append(full(shape, fill, dtype=out.dtype, device=out.device) if width else None)
        pieces = [p for p in (parts[0], out, parts[1]) if p is not None]
        out = shapes.cat(pieces, dim) if len(pieces) > 1 else out
    # one node in PyTorch; here the last cat (or narrow) takes its name
    return out if out is input else _named(out, "ConstantPadNdBackward0")


def _per_dim(value: Any, input: Tensor, words: tuple[str, str, str, str]) -> list[Any]:
    """interpolate's ``size`` or ``scale_factor``: one value for each spatial dim of ``input``,
    given as a sequence of that many or one value for all. ``words`` name it in PyTorch's
    error: (what, "<what> of", how it is given, the letter of its entries)."""
    d = input.dim() - 2
    if not isinstance(value, list | tuple):
        return [value] * d
    if len(value) != d:
        name, described, called, letter = words
        raise ValueError(
            f"Input and {name} must have the same number of spatial dimensions, but got input "
            f"with spatial dimensions of {list(input.shape[2:])} and {described} {value}. "
            f"Please provide input tensor in (N, C, d1, d2, ...,dK) format and {called} in "
            f"({letter}1, {letter}2, ...,{letter}K) format."
        )
    return list(value)


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resize the spatial dims (1-D, 2-D or 3-D) by nearest neighbour, indexing as ATen does.
    The playground has 'nearest' only."""
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: "
            "linear | bilinear | bicubic | trilinear"
        )
    d = input.dim() - 2
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    scales: list[float] | None = None
    if size is not None:
        sizes = _per_dim(size, input, ("output", "output size of", "output size", "o"))
        if isinstance(size, list | tuple) and not all(_is_integer(s) for s in size):
            raise TypeError(
                "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}"
            )
        out_size = [int(s) for s in sizes]
    elif scale_factor is not None:
        words = ("scale_factor", "scale_factor of shape", "scale_factor", "s")
        scales = [float(s) for s in _per_dim(scale_factor, input, words)]
        out_size = [int(input._data.shape[2 + i] * scales[i]) for i in range(d)]
        if recompute_scale_factor:
            scales = None
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if input.dim() not in (3, 4, 5):
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.dim()}D) for "
            f"the modes: {_INTERPOLATE_MODES} (got {mode})"
        )
    if mode != "nearest":
        raise NotImplementedError(
            f"F.interpolate(mode={mode!r}) is not in the playground: only mode='nearest' "
            "(nn.Upsample's default)"
        )
    index: list[Any] = [slice(None), slice(None)]
    for i in range(d):
        idx = _nearest_index(
            input._data.shape[2 + i], out_size[i], None if scales is None else scales[i]
        )
        shape = [1] * d
        shape[i] = -1
        index.append(Tensor._wrap(idx.reshape(shape)))
    out = input[tuple(index)]
    return _named(out, f"UpsampleNearest{d}DBackward0")


def upsample(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
) -> Tensor:
    """The deprecated name of interpolate (PyTorch warns)."""
    warnings.warn(
        "`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.",
        stacklevel=2,
    )
    return interpolate(input, size, scale_factor, mode, align_corners)


def unfold(
    input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """im2col: every kernel-sized patch of a (N, C, H, W) input as a column, (N, C·kh·kw, L),
    gathered by index from the zero-padded input (one indexing node: Im2ColBackward0)."""
    x, unbatched = _batched(input, 2, "im2col")
    k, dil = _tuple(kernel_size, 2, "kernel_size"), _tuple(dilation, 2, "dilation")
    margin, st = _tuple(padding, 2, "padding"), _tuple(stride, 2, "stride")
    if any(margin):
        x = pad(x, (margin[1], margin[1], margin[0], margin[0]))
    n, c, h, w = x._data.shape
    out = [conv_ops.conv_out_size(s, k[i], st[i], 0, dil[i]) for i, s in enumerate((h, w))]
    if out[0] <= 0 or out[1] <= 0:
        raise RuntimeError(
            f"Given input with spatial size ({h - 2 * margin[0]}, {w - 2 * margin[1]}), "
            f"kernel_size=({k[0]}, {k[1]}), dilation=({dil[0]}, {dil[1]}), "
            f"padding=({margin[0]}, {margin[1]}), calculated shape of the array of sliding blocks as "
            f"({out[0]}, {out[1]}), but its components must be at least one."
        )
    rows = (np.arange(k[0]) * dil[0])[:, None, None, None] + (np.arange(out[0]) * st[0])[
        None, None, :, None
    ]
    cols = (np.arange(k[1]) * dil[1])[None, :, None, None] + (np.arange(out[1]) * st[1])[
        None, None, None, :
    ]
    patches = x[:, :, Tensor._wrap(rows), Tensor._wrap(cols)]  # (N, C, kh, kw, oh, ow)
    result = patches.reshape((n, c * k[0] * k[1], out[0] * out[1]))
    result = result.squeeze(0) if unbatched else result
    return _named(result, "Im2ColBackward0")


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y_o = x1ᵀ A_o x2 + b_o over the last dimension (leading dimensions are a batch)."""
    if input1.dim() != input2.dim():
        raise RuntimeError(
            f"bilinear(): input dimensions do not match: got {input1.dim()} and {input2.dim()}"
        )
    s1, s2, sw = input1._data.shape, input2._data.shape, weight._data.shape
    for i in range(input1.dim() - 1):
        if s1[i] != s2[i]:
            raise RuntimeError(
                f"bilinear(): input batch dimensions do not match at dim {i}: got {s1[i]} and "
                f"{s2[i]}"
            )
    if s1[-1] != sw[1]:
        raise RuntimeError(
            f"bilinear(): input1 size does not match weight size: got {s1[-1]} but expected {sw[1]}"
        )
    if s2[-1] != sw[2]:
        raise RuntimeError(
            f"bilinear(): input2 size does not match weight size: got {s2[-1]} but expected {sw[2]}"
        )
    if bias is not None and bias._data.shape[0] != sw[0]:
        raise RuntimeError(
            f"bilinear(): bias size does not match weight size: got {bias._data.shape[0]} but "
            f"expected {sw[0]}"
        )
    lead = s1[:-1]
    a = input1.reshape((-1, s1[-1]))
    b = input2.reshape((-1, s2[-1]))
    out = _fn.einsum("bi,oij,bj->bo", a, weight, b).reshape((*lead, sw[0]))
    return out + bias if bias is not None else out


def _nearest_index(size_in: int, size_out: int, scale: float | None) -> np.ndarray:
    """ATen's nearest_idx: the source index of each output position, in float32 arithmetic."""
    dst = np.arange(size_out, dtype=np.int64)
    if size_out == size_in:
        return dst
    if size_out == 2 * size_in:
        return dst >> 1
    if scale is not None and scale > 0:
        ratio = np.float32(1.0 / scale)
    else:
        ratio = np.float32(size_in) / np.float32(size_out)
    src = np.floor(dst.astype(np.float32) * ratio).astype(np.int64)
    return np.minimum(src, size_in - 1)


def _is_integer(x: Any) -> bool:
    """An int, a NumPy integer or an integer tensor (PyTorch's _is_integer)."""
    if isinstance(x, Tensor):
        return x._data.dtype.kind in "iub"
    return isinstance(x, int | np.integer)


_INTERPOLATE_MODES = (
    "nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact"
)


pad_fn = pad  # (conv's 'same' padding reaches F.pad under this name: conv's own arg is pad)
