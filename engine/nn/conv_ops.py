"""The op table's rows for torch.nn's convolution and pooling layers (see engine.ops: the same
builders, the same table): ``F.conv1d`` / ``conv2d``, ``max_pool*`` and ``avg_pool*``, one rule
for any number of spatial dims."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from engine.backend import index_add
from engine.ops import Array, Grads, row


def _not_recorded(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """The graphed rule of convolution and pooling: their backward (col2im, indexed additions)
    is not recorded yet (create_graph=True through them is a clear error)."""
    raise hx.Unsupported(f"{node.op.name}'s backward is not recorded yet")


def _windows(
    xp: ModuleType,
    a: Array,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    dilation: tuple[int, ...],
    out: tuple[int, ...],
) -> Array:
    """A view of shape ``(*a.shape[:-d], *out, *kernel)``: the window each output position
    reads (the last d axes of ``a`` are the spatial ones, already padded)."""
    d = len(kernel)
    lead = a.shape[:-d]
    strides = a.strides[:-d]
    spatial = a.strides[-d:]
    shape = (*lead, *out, *kernel)
    new = (
        *strides,
        *(s * st for s, st in zip(spatial, stride, strict=True)),
        *(s * dl for s, dl in zip(spatial, dilation, strict=True)),
    )
    return xp.lib.stride_tricks.as_strided(a, shape=shape, strides=new)  # fmt: skip


def _pad_spatial(xp: ModuleType, a: Array, padding: tuple[int, ...], value: float = 0.0) -> Array:
    if not any(padding):
        return a
    widths = [(0, 0)] * (a.ndim - len(padding)) + [(p, p) for p in padding]
    return xp.pad(a, widths, mode="constant", constant_values=value)


def conv_out_size(size: int, k: int, stride: int, pad: int, dil: int, ceil: bool = False) -> int:
    """Output length along one spatial dim (PyTorch's formula; ``ceil`` for pooling's
    ceil_mode, whose last window must start inside the input or its left padding)."""
    span = size + 2 * pad - dil * (k - 1) - 1
    out = (-(-span // stride) if ceil else span // stride) + 1
    if ceil and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _conv_cols(xp: ModuleType, x: Array, w: Array, at: Any) -> tuple[Array, tuple[int, ...]]:
    """im2col: ``(G, Cg·K, N·P)`` (K kernel positions, P output positions) and the output's
    spatial shape: one matrix product per group covers the whole batch. The copy runs along
    the output positions, which are contiguous in ``x`` for stride 1 (rows of the image, not
    windows of a few elements)."""
    d = w.ndim - 2
    stride, padding, dilation, groups = at["stride"], at["padding"], at["dilation"], at["groups"]
    kernel = tuple(w.shape[2:])
    xpad = _pad_spatial(xp, x, padding)
    out = tuple(
        conv_out_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i])
        for i in range(d)
    )
    win = _windows(xp, xpad, kernel, stride, dilation, out)  # (N, C, *out, *kernel)
    order = (1, *range(2 + d, 2 + 2 * d), 0, *range(2, 2 + d))  # (C, *kernel, N, *out)
    cols = xp.ascontiguousarray(win.transpose(order))
    return cols.reshape(groups, -1, x.shape[0] * int(np.prod(out))), out


def _conv_fwd(xp: ModuleType, x: Array, w: Array, b: Array | None = None, **at: Any) -> Array:
    groups = at["groups"]
    cols, out = _conv_cols(xp, x, w, at)
    cout = w.shape[0]
    wg = w.reshape(groups, cout // groups, -1)  # (G, Og, Cg·K)
    y = xp.matmul(wg, cols).reshape(cout, x.shape[0], -1)  # (Cout, N, P)
    y = xp.ascontiguousarray(y.transpose(1, 0, 2)).reshape(x.shape[0], cout, *out)
    if b is not None:
        y += b.reshape((1, cout) + (1,) * len(out))
    return y


def _col2im(xp: ModuleType, gg: Array, w: Array, shape: tuple[int, ...], at: Any) -> Array:
    """The input's gradient from the output's ``gg`` ``(N, G, Og, P)``: each kernel
    position's products added into the (padded) input in turn. The batch is the last axis
    while adding, so each addition runs along whole rows of the batch, not a few pixels."""
    d = w.ndim - 2
    groups, cout = at["groups"], w.shape[0]
    batch, channels = shape[0], shape[1]
    kernel = tuple(w.shape[2:])
    padding, stride, dilation = at["padding"], at["stride"], at["dilation"]
    outsize = tuple(
        conv_out_size(shape[2 + i], kernel[i], stride[i], padding[i], dilation[i]) for i in range(d)
    )
    wg = w.reshape(groups, cout // groups, -1)  # (G, Og, Cg·K)
    gt = xp.ascontiguousarray(gg.transpose(1, 2, 3, 0)).reshape(groups, cout // groups, -1)
    gcols = xp.matmul(wg.transpose(0, 2, 1), gt)  # (G, Cg·K, P·N)
    gcols = gcols.reshape(channels, *kernel, *outsize, batch)
    padded = tuple(shape[2 + i] + 2 * padding[i] for i in range(d))
    gpad = xp.zeros((channels, *padded, batch), dtype=gg.dtype)
    for offset in np.ndindex(*kernel):
        where = tuple(
            slice(
                offset[i] * dilation[i],
                offset[i] * dilation[i] + stride[i] * (outsize[i] - 1) + 1,
                stride[i],
            )
            for i in range(d)
        )
        gpad[(slice(None), *where)] += gcols[(slice(None), *offset)]
    crop = tuple(slice(padding[i], padding[i] + shape[2 + i]) for i in range(d))
    return xp.ascontiguousarray(xp.moveaxis(gpad[(slice(None), *crop)], -1, 0))


def _conv_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    x, w = xs[0], xs[1]
    d = w.ndim - 2
    groups, cout = at["groups"], w.shape[0]
    batch = x.shape[0]
    gg = g.reshape(batch, groups, cout // groups, -1)  # (N, G, Og, P)
    gx = gw = gb = None
    if n[1]:
        cols, _ = _conv_cols(xp, x, w, at)
        gn = xp.ascontiguousarray(gg.transpose(1, 2, 0, 3)).reshape(groups, cout // groups, -1)
        gw = xp.matmul(gn, cols.transpose(0, 2, 1)).reshape(w.shape)  # (G, Og, Cg·K)
    if n[0]:
        gx = _col2im(xp, gg, w, x.shape, at)
    if len(xs) > 2 and n[2]:
        gb = g.sum(axis=(0, *range(2, 2 + d)))
    return (gx, gw, gb) if len(xs) > 2 else (gx, gw)


# torch.nn.functional.conv1d / conv2d (nn.Conv1d / Conv2d): one row for any number of spatial
# dims, im2col and a matrix product forward, col2im backward (a fused rule: as a composite of
# indexing rows it would be far slower and its graph unreadable).
CONV = row("conv", _conv_fwd, _conv_vjp, grad_fn="ConvolutionBackward0",
    local=("{b} (each window)", "{a} (each window)", "1"), symbol="conv({a}, {b})",
    chain=("{g} convolved back through {b}", "{g} correlated with {a}", "Σ {g} per channel"),
    functional=("conv1d", "conv2d"),
    graphed=_not_recorded)  # fmt: skip


def _pool_windows(xp: ModuleType, a: Array, at: Any, fill: float) -> tuple[Array, tuple[int, ...]]:
    kernel, stride, padding = at["kernel"], at["stride"], at["padding"]
    dilation = at.get("dilation", (1,) * len(kernel))
    d = len(kernel)
    out = tuple(
        conv_out_size(a.shape[-d + i], kernel[i], stride[i], padding[i], dilation[i], at["ceil"])
        for i in range(d)
    )
    # room for ceil_mode's last window beyond the right padding
    extra = [
        max(
            0,
            (out[i] - 1) * stride[i]
            + dilation[i] * (kernel[i] - 1)
            + 1
            - (a.shape[-d + i] + 2 * padding[i]),
        )
        for i in range(d)
    ]
    widths = [(0, 0)] * (a.ndim - d) + [(padding[i], padding[i] + extra[i]) for i in range(d)]
    padded = (
        xp.pad(a, widths, mode="constant", constant_values=fill)
        if any(padding) or any(extra)
        else a
    )
    return _windows(xp, padded, kernel, stride, dilation, out), out


def _max_pool_fwd(xp: ModuleType, a: Array, **at: Any) -> Array:
    win, _ = _pool_windows(xp, a, at, -np.inf)
    return _window_reduce(xp, win, len(at["kernel"]), "max")


def _max_pool_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    kernel, stride, padding = at["kernel"], at["stride"], at["padding"]
    dilation = at.get("dilation", (1,) * len(kernel))
    d = len(kernel)
    win, outsize = _pool_windows(xp, a, at, -np.inf)
    flat = win.reshape(*win.shape[: win.ndim - d], -1)
    arg = flat.argmax(axis=-1)  # the first maximum of each window, as ATen picks it
    offs = np.unravel_index(arg, kernel) if xp is np else xp.unravel_index(arg, kernel)
    lead = a.shape[:-d]
    grid = xp.indices(outsize)
    index = [ix.reshape(ix.shape + (1,) * d) for ix in xp.indices(lead, sparse=True)]
    for i in range(d):
        index.append(grid[i] * stride[i] + offs[i] * dilation[i] - padding[i])
    grad = xp.zeros(a.shape, dtype=g.dtype)
    index_add(xp, grad, tuple(xp.broadcast_arrays(*index)), g)
    return (grad,)


# F.max_pool1d / max_pool2d (nn.MaxPool1d / MaxPool2d): each window's maximum; its gradient
# goes to the window's first maximum, as in PyTorch.
MAX_POOL = row("max_pool", _max_pool_fwd, _max_pool_vjp, grad_fn="MaxPool2DWithIndicesBackward0",
    local="1 at each window's maximum", symbol="maxpool({a})", chain="{g} to each window's maximum",
    functional=("max_pool1d", "max_pool2d"),
    graphed=_not_recorded)  # fmt: skip


def _avg_divisor(xp: ModuleType, shape: tuple[int, ...], at: Any, out: tuple[int, ...]) -> Array:
    """Each output position's divisor: the window clipped to the padded input (or, without
    ``count_include_pad``, to the input), or ``divisor_override``."""
    if at.get("divisor") is not None:
        return np.asarray(float(at["divisor"]))
    kernel, stride, padding = at["kernel"], at["stride"], at["padding"]
    d = len(kernel)
    total = np.ones(out, dtype=np.float64)
    for i in range(d):
        size = shape[-d + i]
        start = np.arange(out[i]) * stride[i] - padding[i]
        end = np.minimum(start + kernel[i], size + padding[i])
        if not at["count_include_pad"]:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        count = (end - start).astype(np.float64)
        total = total * count.reshape((-1,) + (1,) * (d - 1 - i))
    return total


def _window_reduce(xp: ModuleType, win: Array, d: int, how: str) -> Array:
    """Each window's sum (``how="sum"``) or maximum, from ``_windows``'s view
    ``(..., *out, *kernel)``: for small kernels one strided slice per kernel position,
    combined in turn, row by row (ATen's order for a sum, which NumPy's reduction over a
    strided view does not keep; and several times faster)."""
    kernel = win.shape[-d:]
    if int(np.prod(kernel)) > 16:
        axes = tuple(range(-d, 0))
        return win.sum(axis=axes) if how == "sum" else win.max(axis=axes)
    combine = xp.add if how == "sum" else xp.maximum
    result = None
    for offset in np.ndindex(*kernel):
        part = win[(..., *offset)]
        result = part.copy() if result is None else combine(result, part, out=result)
    return result


def _divide(xp: ModuleType, x: Array, divisor: Array) -> Array:
    """``x / divisor`` (window sizes: small whole numbers) in ``x``'s float32 or float64, as
    ATen's kernel divides; other dtypes through float64."""
    if x.dtype == np.float32 or x.dtype == np.float64:
        return x / xp.asarray(divisor, dtype=x.dtype)
    return (x / xp.asarray(divisor)).astype(x.dtype)


def _avg_pool_fwd(xp: ModuleType, a: Array, **at: Any) -> Array:
    win, out = _pool_windows(xp, a, at, 0.0)
    d = len(at["kernel"])
    summed = _window_reduce(xp, win, d, "sum")
    return _divide(xp, summed, _avg_divisor(xp, a.shape, at, out))


def _tile_windows(xp: ModuleType, share: Array, shape: tuple[int, ...], kernel: Any) -> Array:
    """Non-overlapping windows' gradient: each window's ``share`` written over the window,
    one strided assignment per kernel position (not an addition onto zeros), zeros where no
    window reaches. ``+ 0.0`` first, as in the sum onto zeros it stands for (−0.0 → +0.0)."""
    d = len(kernel)
    share = share + share.dtype.type(0.0)
    outsize = share.shape[-d:]
    covered = tuple(o * k for o, k in zip(outsize, kernel, strict=True))
    full = covered == tuple(shape[-d:])
    grad = (xp.empty if full else xp.zeros)(shape, dtype=share.dtype)
    for offset in np.ndindex(*kernel):
        where = tuple(slice(offset[i], covered[i], kernel[i]) for i in range(d))
        grad[(..., *where)] = share
    return grad


def _avg_pool_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    kernel, stride, padding = at["kernel"], at["stride"], at["padding"]
    d = len(kernel)
    outsize = g.shape[-d:]
    share = _divide(xp, g, _avg_divisor(xp, a.shape, at, outsize))
    if (
        tuple(stride) == tuple(kernel)
        and not any(padding)
        and all(outsize[i] * kernel[i] <= a.shape[-d + i] for i in range(d))
    ):  # windows side by side inside the input (not ceil_mode's last one past its end)
        return (_tile_windows(xp, share, a.shape, kernel),)
    padded = tuple(
        max(a.shape[-d + i] + 2 * padding[i], (outsize[i] - 1) * stride[i] + kernel[i])
        for i in range(d)
    )
    gpad = xp.zeros((*a.shape[:-d], *padded), dtype=g.dtype)
    lead = (slice(None),) * (a.ndim - d)
    for offset in np.ndindex(*kernel):
        where = tuple(
            slice(offset[i], offset[i] + stride[i] * (outsize[i] - 1) + 1, stride[i])
            for i in range(d)
        )
        gpad[(*lead, *where)] += share
    crop = tuple(slice(padding[i], padding[i] + a.shape[-d + i]) for i in range(d))
    return (gpad[(*lead, *crop)],)


# F.avg_pool1d / avg_pool2d (nn.AvgPool1d / AvgPool2d): each window's mean.
AVG_POOL = row("avg_pool", _avg_pool_fwd, _avg_pool_vjp, grad_fn="AvgPool2DBackward0",
    local="1/(window size) in each window", symbol="avgpool({a})", saves="",
    chain="{g} shared out over each window", functional=("avg_pool1d", "avg_pool2d"),
    graphed=_not_recorded)  # fmt: skip
