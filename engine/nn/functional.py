"""``torch.nn.functional``: activations and losses as functions."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import backend, dtypes, shapes
from engine import functions as _fn
from engine import ops as O
from engine.core import rename
from engine.dtypes import DType
from engine.factories import empty_like, full
from engine.functions import linear, sigmoid, tanh
from engine.nn import conv_ops, loss_ops
from engine.random import default_generator
from engine.tensor import Tensor, _no_record, apply

__all__ = [
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "cross_entropy",
    "elu",
    "gelu",
    "silu",
    "softplus",
    "leaky_relu",
    "linear",
    "log_softmax",
    "mse_loss",
    "nll_loss",
    "relu",
    "relu_",
    "sigmoid",
    "softmax",
    "tanh",
    "l1_loss",
    "layer_norm",
    "batch_norm",
    "embedding",
    "huber_loss",
    "smooth_l1_loss",
    "one_hot",
    "dropout",
    "conv1d",
    "conv2d",
    "max_pool1d",
    "max_pool2d",
    "avg_pool1d",
    "avg_pool2d",
    "adaptive_avg_pool2d",
    "pad",
]

_REDUCTIONS = ("mean", "sum", "none")


def legacy_reduction(size_average: Any, reduce: Any, reduction: str) -> str:
    """The reduction the deprecated ``size_average`` / ``reduce`` arguments ask for, with
    PyTorch's warning (PyTorch's ``_Reduction.legacy_get_string``)."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(
        "size_average and reduce args will be deprecated, please use reduction='"
        + ret
        + "' instead.",
        UserWarning,
        stacklevel=3,
    )
    return ret


def _reduction(reduction: str) -> str:
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _same_shape_or_broadcast(a: Tensor, b: Tensor) -> None:
    if a._data.shape == b._data.shape:
        return
    try:
        np.broadcast_shapes(a._data.shape, b._data.shape)
    except ValueError:
        sa, sb = a._data.shape, b._data.shape
        n = max(len(sa), len(sb))
        pa, pb = (1,) * (n - len(sa)) + sa, (1,) * (n - len(sb)) + sb
        for i in range(n - 1, -1, -1):
            if pa[i] != pb[i] and 1 not in (pa[i], pb[i]):
                raise RuntimeError(
                    f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) "
                    f"at non-singleton dimension {i}"
                ) from None


def _implicit_softmax_dim(ndim: int) -> int:
    """The dim PyTorch picks (with a deprecation warning) when softmax gets none."""
    return 0 if ndim in (0, 1, 3) else 1


def softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    if dim is None:
        dim = _implicit_softmax_dim(input._data.ndim)
    return _fn.softmax(input, dim, dtype)


def log_softmax(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    if dim is None:
        dim = _implicit_softmax_dim(input._data.ndim)
    return _fn.log_softmax(input, dim, dtype)


def _promote_pair(input: Tensor, target: Tensor) -> tuple[Tensor, Tensor]:
    """Both operands in their common (PyTorch-promoted) dtype."""
    common = np.promote_types(input._data.dtype, target._data.dtype)
    if input._data.dtype != common:
        input = input.to(dtypes.from_numpy(common))
    if target._data.dtype != common:
        target = target.to(dtypes.from_numpy(common))
    return input, target


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction)
    if weight is not None:
        return _weighted(mse_loss(input, target, reduction="none"), weight, reduction)
    _same_shape_or_broadcast(input, target)
    if input._data.dtype.kind != "f" and target._data.dtype.kind != "f":
        word = dtypes.type_word(np.promote_types(input._data.dtype, target._data.dtype))
        raise NotImplementedError(f"\"mse_cpu\" not implemented for '{word}'")
    if target._data.dtype.kind != "f":
        target = target.to(input.dtype)
    elif input._data.dtype.kind != "f":
        input = input.to(target.dtype)
    else:
        input, target = _promote_pair(input, target)
    return apply(loss_ops.MSE, (input, target), {"reduction": _reduction(reduction)})


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction)
    loss = (input - target).abs()
    r = _reduction(reduction)
    return loss.mean() if r == "mean" else loss.sum() if r == "sum" else loss


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction)
    if input._data.shape != target._data.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size "
            f"({input.shape}) is deprecated. Please ensure they have the same size."
        )
    if target._data.dtype != input._data.dtype:
        raise RuntimeError(
            f"Found dtype {dtypes.type_word(target._data.dtype)} but expected "
            f"{dtypes.type_word(input._data.dtype)}"
        )
    d = input._data
    if d.size and (float(d.min()) < 0 or float(d.max()) > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is not None:
        return _weighted(
            apply(loss_ops.BCE, (input, target), {"reduction": "none"}), weight, reduction
        )
    return apply(loss_ops.BCE, (input, target), {"reduction": _reduction(reduction)})


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction)
    if input._data.shape != target._data.shape:
        raise ValueError(
            f"Target size ({target.shape}) must be the same as input size ({input.shape})"
        )
    if pos_weight is not None:
        raise RuntimeError("pos_weight is not supported in the playground")
    if input._data.dtype.kind != "f":
        raise NotImplementedError(
            f"\"log_sigmoid_cpu\" not implemented for '{dtypes.type_word(input._data.dtype)}'"
        )
    if target._data.dtype.kind == "b":
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. "
            "Use the `^` or `logical_xor()` operator instead."
        )
    if target._data.dtype.kind != "f":
        raise RuntimeError(
            f"result type {dtypes.type_word(input._data.dtype)} can't be cast to the desired "
            f"output type {dtypes.type_word(target._data.dtype)}"
        )
    input, target = _promote_pair(input, target)
    if weight is not None:
        loss = apply(loss_ops.BCE_LOGITS, (input, target), {"reduction": "none"})
        return _weighted(loss, weight, reduction)
    return apply(loss_ops.BCE_LOGITS, (input, target), {"reduction": _reduction(reduction)})


def _weighted(loss: Tensor, weight: Tensor, reduction: str) -> Tensor:
    loss = loss * weight
    r = _reduction(reduction)
    return loss.mean() if r == "mean" else loss.sum() if r == "sum" else loss


def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction)
    t = target._data
    if t.dtype.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {dtypes.type_word(t.dtype)}")
    d = input._data
    if t.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if d.ndim == 2:
        if t.ndim != 1 or t.shape[0] != d.shape[0]:
            raise ValueError(
                f"Expected input batch_size ({d.shape[0]}) to match target batch_size "
                f"({t.shape[0] if t.ndim else 0})."
            )
        n_classes = d.shape[1]
    elif d.ndim == 1:
        if t.ndim != 0:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        n_classes = d.shape[0]
    else:
        raise RuntimeError("the playground's nll_loss takes 1-D or 2-D input")
    bad = t[(t != ignore_index) & ((t < 0) | (t >= n_classes))]
    if bad.size:
        raise IndexError(f"Target {int(bad.reshape(-1)[0])} is out of bounds.")
    if weight is not None:
        return _class_weighted_nll(input, target, weight, ignore_index, _reduction(reduction))
    return apply(
        loss_ops.NLL,
        (input, target),
        {"reduction": _reduction(reduction), "ignore_index": ignore_index},
    )


def _class_weighted_nll(
    logp: Tensor, target: Tensor, weight: Tensor, ignore_index: int, reduction: str
) -> Tensor:
    """NLL with class weights: -w[y]·logp[y] per sample, the mean divided by Σ w[y] (as
    PyTorch's); a composite of indexing rows."""
    if weight.dim() != 1 or weight.shape[0] != logp.shape[-1]:
        raise RuntimeError(
            f"weight tensor should be defined either for all {logp.shape[-1]} classes or no "
            "classes but got weight tensor of shape: " + str(list(weight.shape))
        )
    t = target._data
    keep = t != ignore_index
    safe = np.where(keep, t, 0)
    rows = np.arange(t.shape[0]) if t.ndim else ()
    picked = logp[rows, safe] if t.ndim else logp[int(safe)]
    w = weight[safe] * Tensor._wrap(keep.astype(weight._data.dtype))
    loss = -(picked * w)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: Any = None,
    ignore_index: int = -100,
    reduce: Any = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """log_softmax then nll_loss, as PyTorch records it (class indices), or soft targets;
    ``label_smoothing`` mixes in the mean log-probability over the classes, as PyTorch does."""
    reduction = _reduction(legacy_reduction(size_average, reduce, reduction))
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    dim = 1 if input._data.ndim >= 2 else 0
    logp = log_softmax(input, dim)
    if target._data.dtype.kind not in "f" and target._data.dtype not in (np.int64, np.uint8):
        raise RuntimeError(
            "expected target dtype to be Long or Byte, but got "
            f"{dtypes.type_word(target._data.dtype)}"
        )
    if target._data.dtype.kind == "f":
        if target._data.shape != input._data.shape:
            raise RuntimeError(
                f"expected target dtype to be Long or Byte, but got {dtypes.type_word(target._data.dtype)}"
            )
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / input.shape[dim]
        loss = -(logp * target).sum(dim)
        if weight is not None:
            raise RuntimeError("class weights with probability targets are not in the playground")
        return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if not label_smoothing:
        return nll
    if weight is not None:
        raise RuntimeError("class weights with label_smoothing are not in the playground")
    ignored = Tensor._wrap(target._data == ignore_index)
    smooth = (-logp.sum(dim)).masked_fill(ignored, 0.0)
    if reduction == "mean":
        kept = int((~ignored._data).sum())
        smooth = smooth.sum() / kept
    elif reduction == "sum":
        smooth = smooth.sum()
    return (1 - label_smoothing) * nll + smooth * (label_smoothing / input.shape[dim])


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    return input.relu_() if inplace else input.relu()  # type: ignore[no-any-return]


def relu_(input: Tensor) -> Tensor:
    return input.relu_()  # type: ignore[no-any-return]


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return apply(O.LEAKY_RELU, (input,), {"slope": negative_slope})


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    if approximate != "none":
        raise RuntimeError("only gelu(approximate='none') is supported in the playground")
    return apply(O.GELU, (input,))


def silu(input: Tensor) -> Tensor:
    return apply(O.SILU, (input,))


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    return apply(O.SOFTPLUS, (input,), {"beta": beta, "threshold": threshold})


def elu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return apply(O.ELU, (input,), {"alpha": alpha})


__all__ += ["softmax", "log_softmax"]


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """Class indices -> int64 one-hot rows (no gradient, as in PyTorch)."""
    t = tensor._data
    if t.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    n = int(t.max()) + 1 if num_classes == -1 else num_classes
    if t.size and (int(t.min()) < 0 or int(t.max()) >= n):
        raise RuntimeError("Class values must be smaller than num_classes.")
    xp = np if t.__class__ is np.ndarray else __import__("engine").backend.array_module(t)
    return Tensor._wrap((t[..., None] == xp.arange(n)).astype(np.int64))


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p) (identity when not
    training), as ATen does on the CPU: a mask ``bernoulli_(1 - p)`` from the default
    generator, divided by ``1 - p`` in the input's dtype, times the input."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0.0
    dtype = input._data.dtype
    keep = default_generator.bernoulli_scalar(input._data.size, 1.0 - p)
    noise = keep.reshape(input._data.shape).astype(dtype) / dtype.type(1.0 - p)
    mask = Tensor._wrap(backend.move(noise, input.device))
    if inplace:
        return input.mul_(mask)
    return input * mask


# ---- normalization, embedding, robust losses --------------------------------------------------


def layer_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each sample over its last ``len(normalized_shape)`` axes (one node:
    NativeLayerNormBackward0, as PyTorch records it)."""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(shape)
    if tuple(input.shape[input.dim() - k :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in shape)}], but got input of size{input.shape}"
        )
    axes = tuple(range(input.dim() - k, input.dim()))
    inputs = (
        (input,) if weight is None else (input, weight, bias if bias is not None else weight * 0)
    )
    return apply(loss_ops.LAYER_NORM, inputs, {"axes": axes, "eps": eps})


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each channel (axis 1) over the batch and spatial axes (any of them: 2-D, 3-D,
    4-D input); in training, update the running statistics in place (unbiased variance), as
    PyTorch does."""
    if input.dim() < 2:
        c = running_mean._data.size if running_mean is not None else 0
        raise RuntimeError(f"running_mean should contain 0 elements not {c}")
    channels = input._data.shape[1]
    for name, stat in (("running_mean", running_mean), ("running_var", running_var)):
        if stat is not None and stat._data.size != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {stat._data.size}")
    axes = (0, *range(2, input.dim()))
    attrs: dict[str, Any] = {"axes": axes, "eps": eps, "channel_axis": 1}
    if training:
        count = input._data.size // input._data.shape[1]
        if count <= 1:
            raise ValueError(
                "Expected more than 1 value per channel when training, got input size "
                f"{input.shape}"
            )
        if running_mean is not None and running_var is not None:
            x = input._data
            mean = x.mean(axis=axes)
            var = x.var(axis=axes, ddof=1)
            rm, rv = running_mean._data, running_var._data
            rm *= 1 - momentum
            rm += momentum * mean.astype(rm.dtype, copy=False)
            rv *= 1 - momentum
            rv += momentum * var.astype(rv.dtype, copy=False)
            running_mean._bump()
            running_var._bump()
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        attrs["mean"], attrs["var"] = running_mean._data, running_var._data
    inputs = (
        (input,) if weight is None else (input, weight, bias if bias is not None else weight * 0)
    )
    return apply(loss_ops.BATCH_NORM, inputs, attrs)


def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None) -> Tensor:
    """Rows of weight picked by integer indices (EmbeddingBackward0); the padding row gets
    no gradient."""
    idx = input._data
    if idx.dtype.kind not in "iu":
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got torch.{dtypes.from_numpy(idx.dtype).name} instead "
            "(while checking arguments for embedding)"
        )
    n = weight._data.shape[0]
    if idx.size and (int(idx.min()) < -n or int(idx.max()) >= n):
        raise IndexError("index out of range in self")
    out = weight[input]
    if padding_idx is not None and out.grad_fn is not None:
        keep = (input != (padding_idx % n)).to(weight.dtype).unsqueeze(-1)
        out = out * keep + (out * (1 - keep)).detach()
    if out.grad_fn is not None:
        out.grad_fn._name = "EmbeddingBackward0"
    return out


def _robust(
    op: Any, input: Tensor, target: Tensor, reduction: str, delta: float, kind: str
) -> Tensor:
    _same_shape_or_broadcast(input, target)
    input, target = _promote_pair(input, target)
    attrs = {"reduction": _reduction(reduction), "delta": float(delta), "kind": kind}
    return apply(op, (input, target), attrs)


def huber_loss(
    input: Tensor,
    target: Tensor,
    reduction: str = "mean",
    delta: float = 1.0,
    weight: Tensor | None = None,
) -> Tensor:
    if weight is not None:
        return _weighted(huber_loss(input, target, "none", delta), weight, reduction)
    return _robust(loss_ops.HUBER, input, target, reduction, delta, "huber")


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    reduction = legacy_reduction(size_average, reduce, reduction)
    if beta == 0:
        return l1_loss(input, target, reduction)
    return _robust(loss_ops.SMOOTH_L1, input, target, reduction, beta, "smooth_l1")


# ---- convolution and pooling ------------------------------------------------------------------


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
    attrs = {"stride": st, "padding": pad, "dilation": dil, "groups": int(groups)}
    inputs = (x, weight) if bias is None else (x, weight, bias)
    out = apply(conv_ops.CONV, inputs, attrs)
    return out.squeeze(0) if unbatched else out


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-D cross-correlation over (N, C_in, L) input."""
    return _conv(1, input, weight, bias, stride, padding, dilation, groups)


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-D cross-correlation over (N, C_in, H, W) input."""
    return _conv(2, input, weight, bias, stride, padding, dilation, groups)


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


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    return _max_pool(1, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    return _max_pool(2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


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


# ---- more activations, distances and losses (issue 18) ----------------------------------------
# Composites of the table's rows, with no backward code of their own. Where PyTorch has a single
# node (HardtanhBackward0, MishBackward0 ...) the composite's last node takes its name, so
# ``y.grad_fn`` prints what PyTorch prints; the nodes before it show the composite's parts.


def _named(out: Tensor, name: str) -> Tensor:
    """Give the composite's last node PyTorch's name for the whole operation."""
    if out.grad_fn is not None:
        rename(out.grad_fn, name)
    return out


pad_fn = pad  # (conv's 'same' padding reaches F.pad under this name: conv's own arg is pad)


def _maybe_inplace(input: Tensor, fn: Any, inplace: bool, inplace_name: str = "") -> Tensor:
    """``fn(input)``, or written into ``input`` (``inplace=True``) as PyTorch's ``foo_`` ops
    are: the recorded composite reads a stand-in for the old value, so the in-place write
    never invalidates what its backward saved (its node named ``inplace_name`` if PyTorch
    names the in-place op's node differently, as EluBackward1)."""
    if not inplace:
        return fn(input)  # type: ignore[no-any-return]
    if input._check_inplace():
        out = fn(input._shadow())
        return input._inplace(_named(out, inplace_name) if inplace_name else out)
    with _no_record():
        return input._inplace(fn(input))


def _const(like: Tensor, data: Any) -> Tensor:
    """An array as a constant tensor on ``like``'s device, in its dtype."""
    xp = backend.array_module(like._data)
    return Tensor._wrap(xp.asarray(data, dtype=like._data.dtype))


def _clip_inside(value: Tensor, inside: Any, lo: float, hi: float) -> Tensor:
    """``value`` where ``inside``, clamped to [lo, hi] (a constant) elsewhere: gradient 1
    strictly inside, 0 on and beyond the bounds, as PyTorch's hardtanh / hardswish /
    hardsigmoid backward give (``clamp`` passes gradient on its bounds)."""
    d = value._data
    xp = backend.array_module(d)
    outside = xp.minimum(xp.maximum(d, lo), hi).astype(d.dtype, copy=False)
    return _fn.where(Tensor._wrap(inside), value, _const(value, outside))


def _strictly_between(x: Tensor, lo: float, hi: float) -> Any:
    d = x._data
    return (d > lo) & (d < hi)


def hardtanh(
    input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False
) -> Tensor:
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _maybe_inplace(
        input,
        lambda x: _named(
            _clip_inside(x, _strictly_between(x, min_val, max_val), min_val, max_val),
            "HardtanhBackward0",
        ),
        inplace,
    )


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(0, x), 6): PyTorch's hardtanh(x, 0, 6) (its node is HardtanhBackward0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def _threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """x where x > threshold, else value (gradient 0 there)."""

    def fn(x: Tensor) -> Tensor:
        below = Tensor._wrap(x._data <= threshold)  # NaN stays NaN, as in PyTorch
        return _named(_fn.where(below, value, x), "ThresholdBackward0")

    return _maybe_inplace(input, fn, inplace, "ThresholdBackward1")


# named _threshold because its argument ``threshold`` hides the function (as in PyTorch)
threshold = _threshold


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _threshold(input, threshold, value, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale·elu(x, alpha) with SELU's constants.

    NOTE: PyTorch multiplies the negative branch by the product alpha·scale rounded once; the
    composite rounds elu's output then the product (one rounding more, negative inputs only).
    """
    return _maybe_inplace(
        input,
        lambda x: _named(elu(x, _SELU_ALPHA) * _SELU_SCALE, "EluBackward0"),
        inplace,
        "EluBackward1",
    )


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x for x > 0, else alpha·(exp(x/alpha) − 1), as PyTorch computes it: x·(1/alpha)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")

    def fn(x: Tensor) -> Tensor:
        if alpha == 1.0:
            return _named(elu(x, 1.0), "CeluBackward0")
        negative = elu(x * (1.0 / alpha), alpha)
        return _named(_fn.where(Tensor._wrap(x._data > 0), x, negative), "CeluBackward0")

    return _maybe_inplace(input, fn, inplace, "CeluBackward1")


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x·tanh(softplus(x)) (softplus's linear branch above 20 is where tanh is 1 in float32)."""
    return _maybe_inplace(input, lambda x: _named(x * softplus(x).tanh(), "MishBackward0"), inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x·min(max(x + 3, 0), 6)/6 in PyTorch's order of operations, with its gradient: 0 for
    x ≤ −3, x/3 + 1/2 between, 1 for x ≥ 3 (the clamp passes no gradient on its bounds)."""

    def fn(x: Tensor) -> Tensor:
        # the bounds are tested on x itself, as PyTorch does: x + 3 may round onto 6 below 3
        gate = _clip_inside(x + 3, _strictly_between(x, -3, 3), 0, 6)
        return _named(x * gate / 6, "HardswishBackward0")

    return _maybe_inplace(input, fn, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x + 3, 0), 6)/6, with gradient 1/6 strictly inside (−3, 3) and 0 elsewhere.

    NOTE: PyTorch's float64 gradient is the upstream gradient times float32(1/6) (its kernel's
    constant is a float); this composite divides by 6, which float32 rounds the same way.
    """

    def fn(x: Tensor) -> Tensor:
        gate = _clip_inside(x + 3, _strictly_between(x, -3, 3), 0, 6)
        return _named(gate / 6, "HardsigmoidBackward0")

    return _maybe_inplace(input, fn, inplace)


def logsigmoid(input: Tensor) -> Tensor:
    """log σ(x) = −softplus(−x).

    NOTE: softplus switches to its linear branch above threshold 40 (not 20), where
    log1p(exp(−|x|)) is below a float64 rounding of |x|: PyTorch's min(x, 0) − log1p(exp(−|x|))
    to the last bit of either dtype, and the gradient σ(−x) without a kink at 0.
    """
    return _named(-softplus(-input, 1.0, 40.0), "LogSigmoidBackward0")


def softsign(input: Tensor) -> Tensor:
    """x / (|x| + 1), PyTorch's composite."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x − tanh(x), PyTorch's composite."""
    return input - input.tanh()


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x where |x| > lambd, else 0."""
    d = input._data
    zero = Tensor._wrap((d >= -lambd) & (d <= lambd))
    return _named(_fn.where(zero, 0.0, input), "HardshrinkBackward0")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x − clamp(x, −lambd, lambd): x ∓ lambd outside [−lambd, lambd], 0 inside (the same
    roundings as PyTorch's kernel, and its gradient: 0 on the bounds)."""
    if lambd < 0:
        raise RuntimeError(
            f"lambda must be in range [0, 3.40282e+38] for input dtype "
            f"{dtypes.type_word(input._data.dtype)}, but found {lambd}"
        )
    return _named(input - input.clamp(-lambd, lambd), "SoftshrinkBackward0")


def softmin(
    input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: DType | None = None
) -> Tensor:
    """softmax(−x), PyTorch's composite."""
    if dim is None:
        warnings.warn(
            "Implicit dimension choice for softmin has been deprecated. Change the call to "
            "include dim=X as an argument.",
            stacklevel=_stacklevel - 1,  # PyTorch warns one frame deeper (_get_softmax_dim)
        )
        dim = _implicit_softmax_dim(input._data.ndim)
    return _fn.softmax(-input, dim, dtype)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a·σ(b) for the two halves a, b of ``input`` along ``dim``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = _wrap_dim(dim, input.dim())
    n = input._data.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    a, b = input.narrow(d, 0, n // 2), input.narrow(d, n // 2, n // 2)
    return _named(a * b.sigmoid(), "GluBackward0")


def _wrap_dim(dim: int, ndim: int) -> int:
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if not lo <= dim <= hi:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim % max(ndim, 1)


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x for x > 0, else weight·x, one weight per channel (dim 1) or one for all."""
    if input._data.dtype != weight._data.dtype:
        raise RuntimeError(
            "prelu: Type promoting not supported. Got "
            f"{dtypes.type_word(input._data.dtype)} and {dtypes.type_word(weight._data.dtype)}"
        )
    n = weight._data.size
    if n != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input._data.shape[1] if input.dim() > 1 else 1
        if channels != n:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. Found parameter "
                f"numbers = {n} and channel size = {channels}."
            )
    if weight.dim() > 1:
        raise RuntimeError(
            f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.dim()}"
        )
    w = weight
    if input.dim() != weight.dim():
        shape = [1] * input.dim()
        if input.dim() > 1:
            shape[1] = n
        w = weight.reshape(tuple(shape))
    positive = Tensor._wrap(input._data > 0)
    return _named(_fn.where(positive, input, w * input), "PreluKernelBackward0")


# ---- normalization and distances --------------------------------------------------------------


def _norm2(x: Tensor, dim: Any, keepdim: bool) -> Tensor:
    """The 2-norm along ``dim``, with PyTorch's gradient 0 (not 0/0) where the norm is 0."""
    s = (x * x).sum(dim, keepdim=keepdim)
    positive = s._data > 0
    safe = _fn.where(Tensor._wrap(positive), s, 1.0).sqrt()
    return safe * _const(safe, positive)


def normalize(
    input: Tensor, p: float = 2.0, dim: Any = 1, eps: float = 1e-12, out: Tensor | None = None
) -> Tensor:
    """input / max(‖input‖_p, eps) along ``dim``.

    NOTE: for p other than 2, 1 and inf the norm is pow(Σ|x|^p, 1/p), whose gradient is NaN
    where a whole slice is zero (PyTorch's is 0 there).
    """
    if isinstance(dim, int):
        _wrap_dim(dim, input.dim())
    if p == 2:
        norm = _norm2(input, dim, True)
    elif p == math.inf:
        norm = input.abs().amax(dim, keepdim=True)
    else:
        norm = _fn.norm(input, p, dim, keepdim=True)
    denom = norm.clamp(min=eps).expand_as(input)
    if out is not None:
        with _no_record():
            return out.copy_(input / denom)  # type: ignore[no-any-return]
    return input / denom


def _float_pair(x1: Tensor, x2: Tensor) -> tuple[Tensor, Tensor]:
    common = np.promote_types(x1._data.dtype, x2._data.dtype)
    if common.kind != "f":
        raise RuntimeError(
            "expected common dtype to be floating point, yet common dtype is "
            f"{dtypes.type_word(common)}"
        )
    return x1, x2


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """Σ (x1/‖x1‖)(x2/‖x2‖) along ``dim``, as ATen computes it: each norm clamped at eps in
    place, outside autograd (the gradient is that of the unclamped norm)."""
    x1, x2 = _float_pair(x1, x2)
    if x1._data.dtype.kind != "f":
        x1 = x1.to(x2.dtype)
    if x2._data.dtype.kind != "f":
        x2 = x2.to(x1.dtype)
    _same_shape_or_broadcast(x1, x2)
    x1, x2 = shapes.broadcast_tensors(x1, x2)
    norms = []
    for x in (x1, x2):
        n = _norm2(x, dim, True).clone()
        xp = backend.array_module(n._data)
        n._data[...] = xp.maximum(n._data, eps)  # ATen's clamp_min_ under NoGradGuard
        norms.append(n)
    return ((x1 / norms[0]) * (x2 / norms[1])).sum(dim)


def pairwise_distance(
    x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False
) -> Tensor:
    """‖x1 − x2 + eps‖_p over the last dimension."""
    _same_shape_or_broadcast(x1, x2)
    innermost = max(x1.dim(), x2.dim()) - 1
    diff = x1 - x2 + eps
    if p == math.inf:
        out = diff.abs().amax(innermost, keepdim=keepdim)
    else:
        out = _fn.norm(diff, p, innermost, keepdim=keepdim)
    return _named(out, "NormBackward1")


def group_norm(
    input: Tensor,
    num_groups: int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalize each sample's channels in ``num_groups`` groups (statistics over each group's
    channels and positions), then scale and shift per channel: a layer norm of the grouped
    view (the table's row), reshaped back."""
    if input.dim() < 2:
        raise RuntimeError(
            f"Expected at least 2 dimensions for input tensor but received {input.dim()}"
        )
    shape = list(input._data.shape)
    n, c = shape[0], shape[1]
    spatial = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    if (n * c // num_groups) * spatial == 1:
        size = [n * c // num_groups, num_groups, *shape[2:]]
        raise ValueError(
            f"Expected more than 1 value per channel when training, got input size {size}"
        )
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {shape} and num_groups={num_groups}"
        )
    for t in (weight, bias):
        if t is not None and (t.dim() != 1 or t._data.size != c):
            raise RuntimeError(
                "Expected weight to be a vector of size equal to the number of channels in "
                f"input, but got weight of shape {list(t._data.shape)} and input of shape {shape}"
            )
    grouped = input.reshape((n, num_groups, -1))
    normed = apply(loss_ops.LAYER_NORM, (grouped,), {"axes": (2,), "eps": eps}).reshape(
        tuple(shape)
    )
    channel = (1, c) + (1,) * (len(shape) - 2)
    if weight is not None:
        normed = normed * weight.reshape(channel)
    if bias is not None:
        normed = normed + bias.reshape(channel)
    return _named(normed, "NativeGroupNormBackward0")


# ---- losses -----------------------------------------------------------------------------------


def _xlogy_self(t: Tensor) -> Tensor:
    """t·log(t), 0 where t = 0 (torch.xlogy(t, t)); a constant unless t requires grad."""
    d = t._data
    xp = backend.array_module(d)
    zero = d == 0
    if not t.requires_grad:
        with np.errstate(divide="ignore", invalid="ignore"):
            return _const(t, xp.where(zero, 0, d * xp.log(xp.where(zero, 1, d))))
    safe = _fn.where(Tensor._wrap(zero), 1.0, t)
    return _named(t * safe.log(), "XlogyBackward0")


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """Σ target·(log target − input) (input holds log-probabilities), or with a log-space
    target exp(target)·(target − input); 'batchmean' divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support "
            "size.'batchmean' divides only by the batch size, and aligns with the KL div math "
            "definition.'mean' will be changed to behave the same as 'batchmean' in the next "
            "major release.",
            stacklevel=2,
        )
    r = "sum" if reduction == "batchmean" else _reduction(reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        loss = _xlogy_self(target) - target * input
    reduced = loss.mean() if r == "mean" else loss.sum() if r == "sum" else loss
    if reduction == "batchmean" and input.dim() != 0:
        reduced = reduced / input._data.shape[0]
    return reduced


def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0,
    size_average: Any = None,
    reduce: Any = None,
    reduction: str = "mean",
) -> Tensor:
    """max(0, −target·(input1 − input2) + margin), PyTorch's composite."""
    reduction = _reduction(legacy_reduction(size_average, reduce, reduction))
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} "
        )
    loss = _named((-target * (input1 - input2) + margin).clamp(min=0), "ClampMinBackward0")
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


# ---- sampling, resizing, patches --------------------------------------------------------------


def gumbel_softmax(
    logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1
) -> Tensor:
    """softmax((logits + g)/tau) with Gumbel noise g = −log(E), E ~ Exp(1) drawn from the
    default generator as PyTorch draws it (``empty_like(logits).exponential_()``); ``hard``
    returns the one-hot argmax with the soft sample's gradient (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    draws = empty_like(logits).exponential_()
    gumbels = -draws.log()
    y_soft = _fn.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return y_soft
    d = y_soft._data
    xp = backend.array_module(d)
    axis = _wrap_dim(dim, d.ndim)
    index = xp.expand_dims(d.argmax(axis=axis), axis)
    y_hard = xp.zeros_like(d)
    xp.put_along_axis(y_hard, index, 1.0, axis=axis)
    return Tensor._wrap(y_hard) - y_soft.detach() + y_soft


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
        if isinstance(size, list | tuple):
            if len(size) != d:
                raise ValueError(
                    "Input and output must have the same number of spatial dimensions, but got "
                    f"input with spatial dimensions of {list(input.shape[2:])} and output size "
                    f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) format "
                    "and output size in (o1, o2, ...,oK) format."
                )
            if not all(_is_integer(s) for s in size):
                raise TypeError(
                    "expected size to be one of int or Tuple[int] or Tuple[int, int] or "
                    f"Tuple[int, int, int], but got size with types {[type(s) for s in size]}"
                )
            out_size = [int(s) for s in size]
        else:
            out_size = [int(size)] * d
    elif scale_factor is not None:
        if isinstance(scale_factor, list | tuple):
            if len(scale_factor) != d:
                raise ValueError(
                    "Input and scale_factor must have the same number of spatial dimensions, but "
                    f"got input with spatial dimensions of {list(input.shape[2:])} and "
                    f"scale_factor of shape {scale_factor}. Please provide input tensor in (N, "
                    "C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
                )
            scales = [float(s) for s in scale_factor]
        else:
            scales = [float(scale_factor)] * d
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


# ---- channel dropout --------------------------------------------------------------------------


def _feature_dropout(
    input: Tensor, p: float, training: bool, inplace: bool, batched: bool = True
) -> Tensor:
    """ATen's feature dropout: one mask entry per (sample, channel), ``bernoulli_(1 − p)`` from
    the default generator as plain dropout draws it, divided by 1 − p, times the input.
    Unbatched (C, L) input has one entry per channel, as PyTorch's unsqueeze(0) gives it."""
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input._data.size == 0:
        return input
    if p == 1:
        return input.mul_(0.0) if inplace else input * 0.0
    shape = input._data.shape
    dtype = input._data.dtype
    lead = shape[:2] if batched else shape[:1]
    keep = default_generator.bernoulli_scalar(int(np.prod(lead)), 1.0 - p)
    noise = keep.reshape(lead + (1,) * (len(shape) - len(lead))).astype(dtype)
    noise = noise / dtype.type(1.0 - p)
    mask = Tensor._wrap(backend.move(noise, input.device))
    return input.mul_(mask) if inplace else input * mask


def dropout1d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, L) or (C, L) input with probability p."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note that "
            "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs)."
        )
    if input.dim() == 3:
        return _feature_dropout(input, p, training, inplace)
    out = _feature_dropout(input, p, training, inplace, batched=False)
    # PyTorch drops out input.unsqueeze(0) and squeezes the result back: its node is a squeeze
    return (
        out
        if out is input and not inplace
        else _named(out, "SqueezeBackward4" if inplace else "SqueezeBackward1")
    )


def dropout2d(
    input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
) -> Tensor:
    """Zero whole channels of (N, C, H, W) input with probability p (3-D input is taken as
    (N, C, L), with PyTorch's warning)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    d = input.dim()
    if d not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {d}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, and "
            "an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if d == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    if d < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    return _feature_dropout(input, p, training, inplace)


__all__ += [
    "bilinear",
    "celu",
    "cosine_similarity",
    "dropout1d",
    "dropout2d",
    "glu",
    "group_norm",
    "gumbel_softmax",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "interpolate",
    "kl_div",
    "logsigmoid",
    "margin_ranking_loss",
    "mish",
    "normalize",
    "pairwise_distance",
    "prelu",
    "relu6",
    "selu",
    "softmin",
    "softshrink",
    "softsign",
    "tanhshrink",
    "threshold",
    "threshold_",
    "unfold",
    "upsample",
]
