"""``torch.nn.functional``: activations and losses as functions."""

from __future__ import annotations

import math
import sys as _sys
import warnings
from typing import Any

import numpy as np

from engine import backend, dtypes, shapes
from engine import functions as _fn
from engine import ops as O
from engine.dtypes import DType
from engine.factories import empty_like
from engine.functions import linear, sigmoid, tanh
from engine.nn import loss_ops
from engine.nn.losses import (
    _const,
    _same_shape_or_broadcast,
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    margin_ranking_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)
from engine.nn.spatial import (
    adaptive_avg_pool2d,
    avg_pool1d,
    avg_pool2d,
    bilinear,
    conv1d,
    conv2d,
    interpolate,
    max_pool1d,
    max_pool2d,
    pad,
    unfold,
    upsample,
)
from engine.random import default_generator
from engine.registry import missing as _missing
from engine.tensor import Tensor, _no_record, apply
from engine.tensor import named as _named

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
    _norm_dtypes(input, weight, bias)
    inputs = (
        (input,) if weight is None else (input, weight, bias if bias is not None else weight * 0)
    )
    return apply(loss_ops.LAYER_NORM, inputs, {"axes": axes, "eps": eps})


def _norm_dtypes(input: Tensor, *parameters: Tensor | None) -> None:
    """ATen's CPU rule for a normalization's dtypes (its parameters: weight, bias, then the
    running statistics). Mixed, when the first parameter given differs from the input: then
    every parameter must be float32 and the input a half type (so, here, always an error);
    else every parameter must have the input's dtype."""
    given = [p for p in parameters if p is not None]
    if not given:
        return
    x = input._data.dtype
    if given[0]._data.dtype != x:
        if any(p._data.dtype != np.float32 for p in given):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for p in given:
        if p._data.dtype != x:
            raise RuntimeError(
                f"expected scalar type {dtypes.type_word(x)} but found "
                f"{dtypes.type_word(p._data.dtype)}"
            )


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
    _norm_dtypes(input, weight, bias, running_mean, running_var)
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


# ---- convolution and pooling ------------------------------------------------------------------


# ---- more activations, distances and losses --------------------------------------------------
# Composites of the table's rows, with no backward code of their own. Where PyTorch has a single
# node (HardtanhBackward0, MishBackward0 ...) the composite's last node takes its name, so
# ``y.grad_fn`` prints what PyTorch prints; the nodes before it show the composite's parts.


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


def __getattr__(name: str) -> Any:
    """``torch.nn.functional.<name>`` for a name not here: saying so where PyTorch has it."""
    raise _missing("torch.nn.functional", f"module {__name__!r}", name, _sys.modules[__name__])
