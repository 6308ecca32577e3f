"""The op table's shape and indexing rows (see engine.ops: the same builders, the same table):
view, permute, expand, indexing and its backward, index assignment, gather and scatter, cat,
stack, clone and dtype/device copies, each with its graphed rule where the array rule cannot
run on recorded tensors (``create_graph=True``). engine.shapes parses their arguments."""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from engine.backend import device_of, index_add, move
from engine.ops import Array, Grads, row


def _view_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (g.reshape(xs[0].shape),)


VIEW = row("view", lambda xp, a, shape: a.reshape(shape), _view_vjp, local="1", symbol="{a}.view",
    saves="", chain="{g} reshaped to the shape of {a}",
    names=("reshape", "flatten", "squeeze", "unsqueeze"),
    method=("view", "view_as", "reshape_as"))  # fmt: skip


def _permute_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (xp.transpose(g, np.argsort(at["dims"])),)


PERMUTE = row("permute", lambda xp, a, dims: xp.transpose(a, dims), _permute_vjp, local="1",
    symbol="{a}ᵀ", saves="", chain="{g} permuted back",
    names=("permute", "transpose", "swapaxes", "t"), method=("T", "mT"))  # fmt: skip


def _expand_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (g,)  # the backward loop sums the broadcast dimensions away


EXPAND = row("expand", lambda xp, a, shape: xp.broadcast_to(a, shape), _expand_vjp, local="1",
    symbol="{a}.expand", saves="", chain="{g} summed over the expanded dims",
    names=("broadcast_to",), method=("expand", "expand_as"))  # fmt: skip


def _getitem_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    grad = xp.zeros(xs[0].shape, dtype=g.dtype)
    index = at["index"]
    if at["advanced"]:
        index_add(xp, grad, index, g)
    else:
        grad[index] = g
    return (grad,)


def _scatter_fwd(xp: ModuleType, g: Array, shape: Any, index: Any, advanced: bool) -> Array:
    """Zeros of ``shape`` with g placed at ``index`` (summed where advanced indices repeat)."""
    return _getitem_vjp(xp, g, None, [xp.empty(shape, dtype=g.dtype)], {"index": index,
                        "advanced": advanced}, [True])[0]  # fmt: skip


# fmt: off
# The backward of indexing, as an op of its own: higher-order gradients (create_graph=True)
# record it, and its own backward is indexing again. PyTorch names it per kind of index
# (SliceBackwardBackward0, SelectBackwardBackward0, IndexPutImplBackward0); see higher.py.
# Not in OPS: no user call reaches it directly; tests/unit/test_higher_order.py checks it.
SCATTER = row("scatter", _scatter_fwd, lambda xp, g, out, xs, at, n: (g[at["index"]],),
    grad_fn="IndexPutImplBackward0", local="1 from the indexed place", symbol="{a} placed at […]",
    saves="", chain="{g} at the indexed positions", table=False)

def _getitem_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """Indexing: g scattered into zeros by the SCATTER op, whose own backward indexes again."""
    x = xs[0].t
    at = node.attrs or {}
    attrs = {"shape": tuple(x.shape), "index": at["index"], "advanced": at["advanced"]}
    name = {
        "SliceBackward0": "SliceBackwardBackward0",
        "SelectBackward0": "SelectBackwardBackward0",
    }
    return (hx.Arr(hx.apply(SCATTER, (g.t,), attrs, name=name.get(node.name()))),)


GETITEM = row("getitem", lambda xp, a, index, advanced: a[index], _getitem_vjp,
    grad_fn="SelectBackward0", local="1 at the indexed place", symbol="{a}[…]", saves="",
    chain="{g} placed back at the indexed positions of {a}",
    names=("index_select", "narrow", "split", "chunk", "unbind"), method=("__getitem__",),
    graphed=_getitem_graphed)
# fmt: on


def _index_put_fwd(xp: ModuleType, a: Array, value: Array, index: Any, advanced: bool) -> Array:
    out = a.copy()
    out[index] = value
    return out


def _index_put_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    ga = gv = None
    if n[0]:  # what was overwritten receives nothing
        ga = g.copy()
        ga[at["index"]] = 0
    if n[1]:  # the value receives what reached the places it was written to
        gv = g[at["index"]]
    return (ga, gv)


def _index_put_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """y[index] = value: zeros written into g where the value went; g read there for it."""
    at = node.attrs or {}
    ga = gv = None
    if node.needs[0]:
        zero = hx.Tensor._wrap(np.zeros((), dtype=g.dtype))
        ga = hx.Arr(hx.apply(INDEX_PUT, (g.t, zero), at, name=node.name()))
    if node.needs[1]:
        gv = hx.Arr(g.t[at["index"]])
    return (ga, gv)


# ``y[index] = value`` on a tensor in a graph (``dlogits[range(n), Yb] -= 1``): PyTorch's
# IndexPutBackward0 (advanced index) or CopySlices (basic index); functions.py names it.
INDEX_PUT = row("index_put", _index_put_fwd, _index_put_vjp,
    local=("1 where not overwritten", "1 at the written places"), symbol="{a}[…] = {b}", saves="",
    chain=("{g} with 0 at the written places", "{g} at the written places"),
    graphed=_index_put_graphed)  # fmt: skip


def _gather_index(xp: ModuleType, index: Array, dim: int) -> tuple[Array, ...]:
    idx = list(xp.indices(index.shape, sparse=True))
    idx[dim] = index
    return tuple(idx)


def _gather_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    grad = xp.zeros(xs[0].shape, dtype=g.dtype)
    index_add(xp, grad, _gather_index(xp, at["index"], at["dim"]), g)
    return (grad,)


def _gather_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """gather, sort, topk: g added back at the gathered places (ScatterAdd in PyTorch; for
    sort and topk, whose places are distinct, PyTorch records Scatter)."""
    at = node.attrs or {}
    index = _gather_index(np, np.asarray(at["index"]), at["dim"])  # sparse grids
    name = "ScatterAddBackward0" if node.name() == "GatherBackward0" else "ScatterBackward0"
    return (hx.scatter(g, tuple(xs[0].shape), index, name),)


GATHER = row("gather", lambda xp, a, dim, index: a[_gather_index(xp, index, dim)], _gather_vjp,
    local="1 at the gathered places", saves="", chain="{g} scattered back into {a}",
    names=("gather", "sort", "topk"),
    graphed=_gather_graphed)  # fmt: skip


def _scatter_put_fwd(
    xp: ModuleType, a: Array, src: Array, dim: int, index: Array, reduce: str
) -> Array:
    out = a.copy()
    where = _gather_index(xp, index, dim)
    if reduce == "add":
        index_add(xp, out, where, src[tuple(slice(0, s) for s in index.shape)])
    else:
        out[where] = src[tuple(slice(0, s) for s in index.shape)]
    return out


def _scatter_put_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    where = _gather_index(xp, at["index"], at["dim"])
    ga = gs = None
    if n[0]:
        ga = g.copy()
        if at["reduce"] != "add":
            ga[where] = 0  # overwritten
    if n[1]:
        gs = xp.zeros(xs[1].shape, dtype=g.dtype)
        gs[tuple(slice(0, s) for s in at["index"].shape)] = g[where]
    return (ga, gs)


def _scatter_put_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """scatter / scatter_add: g itself (zeros where scatter overwrote), and g gathered at the
    index for the source (placed in a source-shaped tensor when the index is smaller)."""
    at = node.attrs or {}
    index, dim = np.asarray(at["index"]), at["dim"]
    ga = gs = None
    if node.needs[0]:
        if at["reduce"] == "add":
            ga = g
        else:
            zeros = hx.Tensor._wrap(np.zeros(index.shape, dtype=g.dtype))
            ga = hx.Arr(hx.apply(SCATTER_PUT, (g.t, zeros), {**at, "reduce": "set"}))
    if node.needs[1]:
        gathered = g.t.gather(dim, hx.Tensor._wrap(index))
        src_shape = tuple(xs[1].shape)
        if tuple(index.shape) == src_shape:
            gs = hx.Arr(gathered)
        else:
            where = tuple(slice(0, s) for s in index.shape)
            attrs = {"shape": src_shape, "index": where, "advanced": False}
            gs = hx.Arr(hx.apply(SCATTER, (gathered,), attrs))
    return (ga, gs)


# Tensor.scatter / scatter_add (and their in-place forms): src's values written, or added, into
# a copy of the input at index along dim (ScatterBackward0 / ScatterAddBackward0).
SCATTER_PUT = row("scatter_put", _scatter_put_fwd, _scatter_put_vjp, grad_fn="ScatterAddBackward0",
    local=("1 (0 where overwritten)", "1 at the scattered places"), symbol="scatter({a}, {b})",
    saves="", chain=("{g} (0 where overwritten)", "{g} gathered at the index"),
    graphed=_scatter_put_graphed)  # fmt: skip


def _cat_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    dim = at["dim"]
    bounds = np.cumsum([x.shape[dim] for x in xs])[:-1]
    parts = xp.split(g, bounds, axis=dim)
    return tuple(p if need else None for p, need in zip(parts, n, strict=True))


CAT = row("cat", lambda xp, *arrays, dim: xp.concatenate(arrays, axis=dim), _cat_vjp, local="1",
    symbol="cat(…)", saves="", chain="the slice of {g} for this input",
    function=("cat", "concat", "concatenate", "hstack", "vstack", "row_stack"),
    out=("cat", "concat", "concatenate"))  # fmt: skip


def _stack_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    dim = at["dim"]
    return tuple(xp.take(g, i, axis=dim) if need else None for i, need in enumerate(n))


# fmt: off
STACK = row("stack", lambda xp, *arrays, dim: xp.stack(arrays, axis=dim), _stack_vjp, local="1",
    symbol="stack(…)", saves="", chain="the slice of {g} for this input", function=("stack",),
    out=True)
CLONE = row("clone", lambda xp, a: a.copy(), lambda xp, g, out, xs, at, n: (g,), local="1",
    symbol="{a}.clone()", saves="", names=("clone",), method=("contiguous",), dtype="same")
# fmt: on


def _to_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (move(g, device_of(xs[0])).astype(xs[0].dtype, copy=False),)


def _to_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """TO_COPY (dtype and device casts): the gradient goes back to the input's dtype and
    device (the array rule moves host/device arrays, which a tensor does with .to)."""
    x = xs[0].t
    return (hx.Arr(g.t.to(device=x.device, dtype=x.dtype)),)


TO_COPY = row("to", lambda xp, a, dtype: a.astype(dtype), _to_vjp, grad_fn="ToCopyBackward0",
    local="1", symbol="{a}.to(…)", saves="",
    method=("to", "float", "double", "half", "type", "type_as", "cpu", "cuda"),
    graphed=_to_graphed)  # fmt: skip
