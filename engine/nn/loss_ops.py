"""The op table's rows for torch.nn's losses and normalisation layers (see engine.ops: the
same builders, the same table): fused, one node each, as PyTorch records them."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from engine.dtypes import type_word
from engine.ops import Array, Grads, _sigmoid, row

# --- losses ---------------------------------------------------------------------------------------


def _reduce(xp: ModuleType, loss: Array, reduction: str) -> Array:
    if reduction == "mean":
        return loss.sum() / loss.size
    if reduction == "sum":
        return loss.sum()
    return loss


def _reduce_grad(g: Array, like: Array, reduction: str) -> Array:
    if reduction == "mean":
        return g / max(like.size, 1)
    return g


def _mse_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, b = xs
    diff = a - b
    scale = 2.0 / diff.size if at["reduction"] == "mean" and diff.size else 2.0
    d = diff * (g * scale)
    return (d if n[0] else None, -d if n[1] else None)


def _mse_fwd(xp: ModuleType, a: Array, b: Array, reduction: str) -> Array:
    d = a - b
    return _reduce(xp, d * d, reduction)


# --- normalization ---------------------------------------------------------------------------
# One rule for layer norm (statistics over the last k axes of each sample) and batch norm
# (over the batch axes of each channel): x̂ = (x − mean) / √(var + eps), out = x̂·w + b, with
# the biased variance. Batch norm in eval mode normalizes with given running statistics.


def _norm_stats(xp: ModuleType, x: Array, at: Any) -> tuple[Array, Array]:
    """(mean, 1/√(var + eps)) with reduced axes kept, from x or from the given statistics."""
    axes = at["axes"]
    if at.get("mean") is not None:  # batch norm in eval mode: running statistics
        shape = [1] * x.ndim
        shape[1] = -1
        mean = at["mean"].reshape(shape)
        return mean, 1 / xp.sqrt(at["var"].reshape(shape) + at["eps"])
    mean = x.mean(axis=axes, keepdims=True)
    d = x - mean
    var = (d * d).mean(axis=axes, keepdims=True)
    return mean, 1 / xp.sqrt(var + at["eps"])


def _affine(at: Any, ndim: int, w: Array) -> Array:
    """w shaped to broadcast against x: trailing for layer norm, along axis 1 for batch norm."""
    if at.get("channel_axis") is None:
        return w
    shape = [1] * ndim
    shape[1] = -1
    return w.reshape(shape)


def _normalize_fwd(xp: ModuleType, x: Array, *wb: Array, **at: Any) -> Array:
    mean, rstd = _norm_stats(xp, x, at)
    out = (x - mean) * rstd
    if wb:
        out = out * _affine(at, x.ndim, wb[0]) + _affine(at, x.ndim, wb[1])
    return out


def _normalize_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    x = xs[0]
    axes = at["axes"]
    mean, rstd = _norm_stats(xp, x, at)
    xhat = (x - mean) * rstd
    gxhat = g * _affine(at, x.ndim, xs[1]) if len(xs) > 1 else g
    gx = None
    if n[0]:
        if at.get("mean") is not None:  # fixed statistics: an affine map of x
            gx = gxhat * rstd
        else:
            m1 = gxhat.mean(axis=axes, keepdims=True)
            m2 = (gxhat * xhat).mean(axis=axes, keepdims=True)
            gx = (gxhat - m1 - xhat * m2) * rstd
    if len(xs) == 1:
        return (gx,)
    gw = gb = None
    if at.get("channel_axis") is not None:  # per channel: sum over every other axis
        other = tuple(a for a in range(x.ndim) if a != 1)
        gw = (g * xhat).sum(axis=other) if n[1] else None
        gb = g.sum(axis=other) if n[2] else None
    else:  # per normalized element: the backward loop sums the leading axes away
        gw = g * xhat if n[1] else None
        gb = g if n[2] else None
    return gx, gw, gb


# fmt: off
LAYER_NORM = row("layer_norm", _normalize_fwd, _normalize_vjp, grad_fn="NativeLayerNormBackward0",
    local=("(1 − 1/N − x̂²/N)/σ", "x̂", "1"),
    chain=("(ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂))/σ", "Σ ({g} · x̂)", "Σ {g}"),
    functional=("layer_norm",))
BATCH_NORM = row("batch_norm", _normalize_fwd, _normalize_vjp, grad_fn="NativeBatchNormBackward0",
    local=("(1 − 1/N − x̂²/N)/σ", "x̂", "1"),
    chain=("(ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂))/σ", "Σ ({g} · x̂)", "Σ {g}"),
    functional=("batch_norm",))
# fmt: on


def _huber_terms(xp: ModuleType, d: Array, at: Any) -> tuple[Array, Array]:
    """(loss, d loss / d d) elementwise: quadratic within delta (beta), linear outside."""
    delta = at["delta"]
    ad = xp.abs(d)
    small = ad < delta
    if at["kind"] == "huber":
        return (xp.where(small, 0.5 * d * d, delta * (ad - 0.5 * delta)),
                xp.where(small, d, delta * xp.sign(d)))  # fmt: skip
    return (xp.where(small, 0.5 * d * d / delta, ad - 0.5 * delta),
            xp.where(small, d / delta, xp.sign(d)))  # fmt: skip


def _huber_fwd(xp: ModuleType, a: Array, b: Array, **at: Any) -> Array:
    loss, _ = _huber_terms(xp, a - b, at)
    return _reduce(xp, loss, at["reduction"]).astype(xp.result_type(a, b), copy=False)


def _huber_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, b = xs
    if a.dtype != b.dtype:  # ATen's huber backward: the forward promoted, its backward refuses
        raise RuntimeError(f"Found dtype {type_word(b.dtype)} but expected {type_word(a.dtype)}")
    _, slope = _huber_terms(xp, a - b, at)
    d = slope * _reduce_grad(g, a, at["reduction"])
    return (d if n[0] else None, -d if n[1] else None)


# fmt: off
HUBER = row("huber_loss", _huber_fwd, _huber_vjp,
    local=("clip({a} − {b}, −{delta}, {delta})/{N}", "−clip({a} − {b}, −{delta}, {delta})/{N}"),
    symbol="huber({a}, {b})", functional=("huber_loss",))
SMOOTH_L1 = row("smooth_l1_loss", _huber_fwd, _huber_vjp,
    local=("clip(({a} − {b})/{delta}, −1, 1)/{N}", "−clip(({a} − {b})/{delta}, −1, 1)/{N}"),
    symbol="smooth_l1({a}, {b})", functional=("smooth_l1_loss",))


MSE = row("mse_loss", _mse_fwd, _mse_vjp, local=("2 · ({a} − {b})/{N}", "−2 · ({a} − {b})/{N}"),
    symbol="mse({a}, {b})", functional=("mse_loss",))
# fmt: on


def _bce_fwd(xp: ModuleType, p: Array, t: Array, reduction: str) -> Array:
    # PyTorch clamps each log term at -100 so that p = 0 or 1 gives a finite loss.
    with np.errstate(divide="ignore"):
        log_p = xp.maximum(xp.log(p), -100)
        log_1p = xp.maximum(xp.log(1 - p), -100)
    return _reduce(xp, -(t * log_p + (1 - t) * log_1p), reduction).astype(p.dtype, copy=False)


def _bce_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    p, t = xs
    g = _reduce_grad(g, p, at["reduction"])
    gp = g * (p - t) / xp.maximum((1 - p) * p, 1e-12) if n[0] else None
    gt = None
    if n[1]:
        with np.errstate(divide="ignore"):
            gt = g * (xp.maximum(xp.log(1 - p), -100) - xp.maximum(xp.log(p), -100))
    return gp, gt


BCE = row("binary_cross_entropy", _bce_fwd, _bce_vjp,
    local=("({a} − {b})/({a} · (1 − {a}))/{N}", "ln((1 − {a})/{a})/{N}"), symbol="bce({a}, {b})",
    functional=("binary_cross_entropy",))  # fmt: skip


def _bce_logits_fwd(xp: ModuleType, x: Array, t: Array, reduction: str) -> Array:
    # NOTE: max(x, 0) - x·t + log(1 + e^-|x|) is the stable form of -[t·ln σ(x) + (1-t)·ln(1-σ(x))]
    loss = xp.maximum(x, 0) - x * t + xp.log1p(xp.exp(-xp.abs(x)))
    return _reduce(xp, loss, reduction).astype(x.dtype, copy=False)


def _bce_logits_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    x, t = xs
    g = _reduce_grad(g, x, at["reduction"])
    return (g * (_sigmoid(xp, x) - t) if n[0] else None, -g * x if n[1] else None)


BCE_LOGITS = row("binary_cross_entropy_with_logits", _bce_logits_fwd, _bce_logits_vjp,
    local=("(σ({a}) − {b})/{N}", "−{a}/{N}"), symbol="bce_logits({a}, {b})",
    functional=("binary_cross_entropy_with_logits",))  # fmt: skip


def _nll_fwd(
    xp: ModuleType, logp: Array, target: Array, reduction: str, ignore_index: int
) -> Array:
    if logp.ndim == 1:
        picked = -logp[target]
        keep = target != ignore_index
        return picked * keep if reduction == "none" else (picked if keep else picked * np.nan)
    rows = xp.arange(logp.shape[0])
    keep = target != ignore_index
    if reduction == "mean" and keep.all():  # the common case, in fewer NumPy calls (same values)
        return (-logp[rows, target].sum() / xp.int64(logp.shape[0])).astype(logp.dtype)
    safe = xp.where(keep, target, 0)
    picked = -logp[rows, safe] * keep
    if reduction == "none":
        return picked
    if reduction == "sum":
        return picked.sum()
    return (picked.sum() / keep.sum()).astype(logp.dtype)


def _nll_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    logp, target = xs
    grad = xp.zeros(logp.shape, dtype=logp.dtype)
    if logp.ndim == 1:
        grad[target] = -g
        return grad, None
    rows = xp.arange(logp.shape[0])
    keep = target != at["ignore_index"]
    if at["reduction"] == "mean" and keep.all():  # the common case (same values)
        grad[rows, target] = (-g / xp.int64(logp.shape[0])).astype(logp.dtype)
        return grad, None
    safe = xp.where(keep, target, 0)
    if at["reduction"] == "none" or at["reduction"] == "sum":
        scale = -g * keep
    else:
        scale = (-g * keep / keep.sum()).astype(logp.dtype)
    grad[rows, safe] = scale
    return grad, None


def _nll_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """NLL loss: -g (scaled for the mean) scattered to each row's target class."""
    logp, target = node.inputs[0], node.inputs[1]._data
    at = node.attrs or {}
    shape = tuple(logp.shape)
    if len(shape) == 1:  # one sample: target is a class index
        attrs = {"shape": shape, "index": int(target), "advanced": False}
        return (hx.Arr(hx.apply(hx.SCATTER, (-g.t,), attrs, name="NllLossBackwardBackward0")), None)
    keep = np.asarray(target != at["ignore_index"])
    safe = np.where(keep, target, 0)
    weight = keep.astype(logp._data.dtype)
    if at["reduction"] == "mean":
        weight = weight / max(int(keep.sum()), 1)
    scale = -g.t * hx.Tensor._wrap(weight)
    attrs = {"shape": shape, "index": (np.arange(shape[0]), safe), "advanced": True}
    return (hx.Arr(hx.apply(hx.SCATTER, (scale,), attrs, name="NllLossBackwardBackward0")), None)


NLL = row("nll_loss", _nll_fwd, _nll_vjp, local=("−1/N at the target class", ""),
    symbol="nll({a}, {b})", saves="", chain=("−{g}/N at the target class of each row", ""),
    functional=("nll_loss", "cross_entropy"),
    graphed=_nll_graphed)  # fmt: skip
