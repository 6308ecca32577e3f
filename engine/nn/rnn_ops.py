"""The op table's row for a GRU step's gates (see engine.ops: the same builders, the same
table): ``nn.GRU`` and ``nn.GRUCell`` run each step as two nodes, the hidden projection
(``F.linear``) and this one, instead of sixteen (chunks, sums, sigmoids, tanh, products).

The forward is ATen's CPU GRU cell operation for operation, and the rule is the chain of
those operations' own rules in the order the backward loop ran them, so a step's numbers
and its gradients are bit for bit what the sixteen-node composite gave (and PyTorch gives).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from engine.ops import Array, Grads, _sigmoid, row


def _gru_gates(xp: ModuleType, igates: Array, hgates: Array, h: Array) -> tuple[Array, ...]:
    """The step's gates from the input and hidden projections ``(..., 3H)`` (r, z, n):
    r, z, n and ``h − n``, each ``(..., H)``."""
    size = h.shape[-1]
    ir, iz, in_ = igates[..., :size], igates[..., size : 2 * size], igates[..., 2 * size :]
    hr, hz, hn = hgates[..., :size], hgates[..., size : 2 * size], hgates[..., 2 * size :]
    r = _sigmoid(xp, hr + ir)
    z = _sigmoid(xp, hz + iz)
    n = xp.tanh(in_ + hn * r)
    return r, z, n, h - n


def _gru_cell_fwd(xp: ModuleType, igates: Array, hgates: Array, h: Array) -> Array:
    """h' = (h − n)·z + n: ATen's ``GRUCell`` from the projections (its order of operations)."""
    _, z, n, d = _gru_gates(xp, igates, hgates, h)
    return d * z + n


def _gru_cell_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    """The gradients of the projections and of h: the composite's rules, in its order."""
    igates, hgates, h = xs
    r, z, new, d = _gru_gates(xp, igates, hgates, h)
    size = h.shape[-1]
    hn = hgates[..., 2 * size :]
    gd = g * z  # (h − n)·z: to h − n; the sum passes g on unchanged
    gz = g * d
    gn = g + -gd  # n: from the sum and from h − n
    gn_pre = gn * (1 - new * new)  # tanh
    gr = gn_pre * hn  # hn·r
    ghn = gn_pre * r
    gz_pre = gz * z * (1 - z)  # sigmoids
    gr_pre = gr * r * (1 - r)
    gi = xp.concatenate((gr_pre, gz_pre, gn_pre), axis=-1) if n[0] else None
    gh_gates = xp.concatenate((gr_pre, gz_pre, ghn), axis=-1) if n[1] else None
    return gi, gh_gates, (gd if n[2] else None)


# NOTE: one node (named as PyTorch names the step's last one) for what its CPU kernel records
# as sixteen (its CUDA kernel fuses it too: _thnn_fused_gru_cell); the same gradients.
GRU_CELL = row("gru_cell", _gru_cell_fwd, _gru_cell_vjp, grad_fn="AddBackward0",
    local=("each gate's derivative", "each gate's derivative", "z"),
    chain=("{g} back through the gates r z n of the input projection",
           "{g} back through the gates r z n of the hidden projection", "{g} · z"),
    symbol="gru({a}, {b}, {c})", function=("gru_cell",))  # fmt: skip
