"""``torch.nn.functional``: activations and losses as functions."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import backend, dtypes
from engine import functions as _fn
from engine import ops as O
from engine.dtypes import DType
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
]

_REDUCTIONS = ("mean", "sum", "none")


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


def mse_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
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


def l1_loss(input: Tensor, target: Tensor, reduction: str = "mean") -> Tensor:
    loss = (input - target).abs()
    r = _reduction(reduction)
    return loss.mean() if r == "mean" else loss.sum() if r == "sum" else loss


def binary_cross_entropy(
    input: Tensor, target: Tensor, weight: Tensor | None = None, reduction: str = "mean"
) -> Tensor:
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
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
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
    ignore_index: int = -100,
    reduction: str = "mean",
) -> Tensor:
    if weight is not None:
        raise RuntimeError("class weights are not supported in the playground")
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
    return apply(
        O.NLL, (input, target), {"reduction": _reduction(reduction), "ignore_index": ignore_index}
    )


def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    ignore_index: int = -100,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """log_softmax then nll_loss, as PyTorch records it (class indices), or soft targets."""
    if label_smoothing:
        raise RuntimeError("label_smoothing is not supported in the playground")
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
        loss = -(logp * target).sum(dim)
        r = _reduction(reduction)
        return loss.mean() if r == "mean" else loss.sum() if r == "sum" else loss
    return nll_loss(logp, target, weight, ignore_index, reduction)


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
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0
) -> Tensor:
    return _robust(O.HUBER, input, target, reduction, delta, "huber")


def smooth_l1_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", beta: float = 1.0
) -> Tensor:
    if beta == 0:
        return l1_loss(input, target, reduction)
    return _robust(O.SMOOTH_L1, input, target, reduction, beta, "smooth_l1")
