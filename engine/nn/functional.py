"""``torch.nn.functional``: activations and losses as functions."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import backend, dtypes
from engine import functions as _fn
from engine import ops as O
from engine.dtypes import DType
from engine.factories import full
from engine.functions import linear, sigmoid, tanh
from engine.random import default_generator
from engine.tensor import Tensor, apply

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
    return apply(O.MSE, (input, target), {"reduction": _reduction(reduction)})


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
        return _weighted(apply(O.BCE, (input, target), {"reduction": "none"}), weight, reduction)
    return apply(O.BCE, (input, target), {"reduction": _reduction(reduction)})


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
        loss = apply(O.BCE_LOGITS, (input, target), {"reduction": "none"})
        return _weighted(loss, weight, reduction)
    return apply(O.BCE_LOGITS, (input, target), {"reduction": _reduction(reduction)})


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
        O.NLL, (input, target), {"reduction": _reduction(reduction), "ignore_index": ignore_index}
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
    return apply(O.LAYER_NORM, inputs, {"axes": axes, "eps": eps})


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
    """Normalize each channel (axis 1) over the batch (and length) axes; in training, update
    the running statistics in place (unbiased variance), as PyTorch does."""
    if input.dim() not in (2, 3):
        raise ValueError(f"expected 2D or 3D input (got {input.dim()}D input)")
    axes = (0,) if input.dim() == 2 else (0, 2)
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
    return apply(O.BATCH_NORM, inputs, attrs)


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
    return _robust(O.HUBER, input, target, reduction, delta, "huber")


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
    return _robust(O.SMOOTH_L1, input, target, reduction, beta, "smooth_l1")


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
    out = apply(O.CONV, inputs, attrs)
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
    return apply(O.MAX_POOL, (input,), attrs, name=name)


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
    return apply(O.AVG_POOL, (input,), attrs, name=name)


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
        result = apply(O.AVG_POOL, (x,), attrs, name=name)
    else:
        rows = []
        for i in range(out[0]):
            h0, h1 = (i * size[0]) // out[0], -(-((i + 1) * size[0]) // out[0])
            cols = []
            for j in range(out[1]):
                w0, w1 = (j * size[1]) // out[1], -(-((j + 1) * size[1]) // out[1])
                cols.append(x[:, :, h0:h1, w0:w1].mean(dim=(2, 3)))
            rows.append(_fn.stack(cols, -1))
        result = _fn.stack(rows, -2)
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
        out = _fn.cat(pieces, dim) if len(pieces) > 1 else out
    return out


pad_fn = pad  # (conv's 'same' padding reaches F.pad under this name: conv's own arg is pad)
