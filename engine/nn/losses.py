"""``torch.nn.functional``'s losses (``mse_loss``, ``cross_entropy``, ``kl_div`` ...),
re-exported by engine.nn.functional; the fused rows they record are engine/nn/loss_ops.py's."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from engine import backend, dtypes
from engine import functions as _fn
from engine.nn import loss_ops
from engine.tensor import Tensor, apply, broadcast_mismatch
from engine.tensor import named as _named


def _const(like: Tensor, data: Any) -> Tensor:
    """An array as a constant tensor on ``like``'s device, in its dtype."""
    xp = backend.array_module(like._data)
    return Tensor._wrap(xp.asarray(data, dtype=like._data.dtype))


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
    mismatch = broadcast_mismatch(a._data.shape, b._data.shape)
    if mismatch is not None:
        raise mismatch


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
    return _reduce((input - target).abs(), _reduction(reduction))


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
    return _pointwise(loss_ops.BCE, input, target, weight, reduction)


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
    wanted = target._data.dtype  # ATen works in place on (1 − target): the result is its dtype
    input, target = _promote_pair(input, target)
    out = _pointwise(loss_ops.BCE_LOGITS, input, target, weight, reduction)
    return out if out._data.dtype == wanted else out.to(dtypes.from_numpy(wanted))


def _pointwise(
    op: Any, input: Tensor, target: Tensor, weight: Tensor | None, reduction: str
) -> Tensor:
    """A loss row that reduces itself; with a ``weight``, its elementwise losses weighted."""
    if weight is not None:
        return _weighted(apply(op, (input, target), {"reduction": "none"}), weight, reduction)
    return apply(op, (input, target), {"reduction": _reduction(reduction)})


def _weighted(loss: Tensor, weight: Tensor, reduction: str) -> Tensor:
    return _reduce(loss * weight, _reduction(reduction))


def _reduce(loss: Tensor, r: str) -> Tensor:
    """``reduction`` (checked) applied to elementwise losses: mean, sum or none."""
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
    logp = _fn.log_softmax(input, dim)
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
        return _reduce(loss, reduction)
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


def _robust(
    op: Any, input: Tensor, target: Tensor, reduction: str, delta: float, kind: str
) -> Tensor:
    _same_shape_or_broadcast(input, target)
    floats = input._data.dtype.kind == "f" and target._data.dtype.kind == "f"
    if not (kind == "huber" and floats):  # (huber keeps two float dtypes: its backward refuses)
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
    reduced = _reduce(loss, r)
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
    return _reduce(loss, reduction)
