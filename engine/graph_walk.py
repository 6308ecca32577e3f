"""A backward pass's walk as exported: each step's contributions and their captions.

Each walk step's ``formula`` (one line per contribution) and ``caption`` (the same lines as
expression trees, which the page typesets) are built by :mod:`engine.caption` from the op
table's ``local`` and ``chain`` templates: the symbolic rule, the same with numbers when every
operand is one, and the result, every ``=`` true. ``ex`` is engine.graph's exporter of the
pass (its labels and the graph ids of each node's inputs).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine import caption as cap
from engine.backend import to_numpy
from engine.core import Node, WalkStep
from engine.summaries import number, scalar, summarise


def _count(node: Node, out: Any) -> float:
    """N of a rule that divides by a count: the elements averaged over (mean, a loss with
    reduction="mean"), or how many elements tie for the maximum (amax); 1 otherwise."""
    attrs = node.attrs or {}
    a = getattr(node.inputs[0], "_data", None) if node.inputs else None
    size = int(getattr(a, "size", 1))
    if node.op.name == "mean":
        return size / max(int(getattr(out, "size", 1)), 1)
    if node.op.name == "amax" and a is not None and out is not None:
        o = to_numpy(out)
        axis = attrs.get("axis")
        if axis is not None and not attrs.get("keepdim"):
            o = np.expand_dims(o, axis)
        ties = (to_numpy(a) == o).sum(axis=axis, keepdims=True)
        return float(ties.reshape(-1)[0]) if ties.size == 1 else 1.0
    if attrs.get("reduction") == "mean":
        return float(size)
    return 1.0


def _local_template(node: Node, i: int) -> str:
    """The row's local derivative for input i (a choice of form where attributes make one
    simpler: softplus with β = 1 is σ(a))."""
    local = node.op.local
    text = local[min(i, len(local) - 1)] if local else ""  # einsum: one rule for every operand
    if node.op.name == "softplus" and float((node.attrs or {}).get("beta", 1)) == 1:
        return "σ({a})"
    return text


def walk_step(ex: Any, step: WalkStep, root: str, root_id: str) -> dict[str, Any]:
    """One recorded backward step: for each contribution, its caption line as a tree (the
    symbolic form, the same with numbers when every operand is one, the result) and as text."""
    node = step.node
    gid = ex.ids[id(node)]
    out_label = root if gid == root_id else ex.labels[gid]
    out = node.out() if node.out is not None else None
    input_ids = ex.input_ids[id(node)]
    sym: dict[str, cap.Expr | None] = {}
    num: dict[str, cap.Expr | None] = {}
    for k, x, iid in zip("abc", node.inputs, input_ids, strict=False):
        sym[k] = cap.name(ex.labels[iid])
        num[k] = number(getattr(x, "_data", x))
    for k, v in (node.attrs or {}).items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            sym[k] = num[k] = cap.num(float(v))
        elif v is None and k in ("lo", "hi"):
            sym[k] = num[k] = cap.num(-math.inf if k == "lo" else math.inf)
    if "p" in sym:
        sym["pm1"] = num["pm1"] = cap.num(float((node.attrs or {})["p"]) - 1)
    out_data = out._data if out is not None else None
    sym["N"] = num["N"] = cap.num(_count(node, out_data))
    sym["out"] = cap.name(out_label)
    num["out"] = number(out_data)
    top = root
    d_out = cap.deriv(top, out_label)
    sym["g"] = d_out
    num["g"] = number(step.grad_output)
    contributions = []
    lines = []
    caption = []
    for i, _x, g_sent, acc in step.contributions:
        to = input_ids[i]
        to_label = ex.labels[to]
        local_text = _local_template(node, i)
        local_tree = cap.template(local_text) if local_text else {"k": "text", "t": "?"}
        chains = node.op.chain
        chain = chains[min(i, len(chains) - 1)] if chains else None  # cat: one for every input
        chain_tree = (
            cap.template(chain) if chain else cap.binary("·", local_tree, {"k": "slot", "t": "g"})
        )
        sym["local"] = cap.fill(local_tree, sym)
        num["local"] = cap.fill(local_tree, num)
        s_tree = cap.fill(chain_tree, sym) or {"k": "text", "t": "?"}
        n_tree = cap.fill(chain_tree, num)
        res = scalar(g_sent)
        upstream = getattr(step.grad_output, "size", 1)
        # an elementwise rule whose input was broadcast: the loop summed the gradient back to
        # the input's shape (the one place that un-broadcasts); say so, and show the sum
        summed = node.op.chain is None and getattr(g_sent, "size", 1) < upstream
        if summed:
            s_tree = {"k": "sum", "a": [s_tree]}
            n_tree = None  # the numbers summed are a tensor's: the symbolic form says it
        forms = [s_tree]
        if n_tree is not None and cap.numeric(n_tree) and cap.text(n_tree) != cap.text(s_tree):
            forms.append(n_tree)
        if res is not None and (len(forms) > 1 or summed or num["g"] is not None):
            result = cap.num(res)
            if cap.text(result) != cap.text(forms[-1]):
                forms.append(result)
        accumulates = not np.array_equal(np.asarray(to_numpy(acc)), np.asarray(to_numpy(g_sent)))
        total = scalar(acc)
        before = after = None
        if accumulates and total is not None and res is not None:
            before, after = cap.num(total - res), cap.num(total)
            if len(forms) == 1 or forms[-1]["k"] != "num":
                forms.append(cap.num(res))
        cap_line = cap.line(cap.deriv(top, to_label), bool(accumulates), forms, before, after)
        cap_line["to"] = to
        text_line = cap.line_text(cap_line)
        caption.append(cap_line)
        lines.append(text_line)
        local_sym = cap.text(sym["local"]) if sym["local"] is not None else "?"
        local_num = (
            cap.text(num["local"])
            if num["local"] is not None and cap.numeric(num["local"])
            else local_sym
        )
        contributions.append(
            {
                "to": to,
                "arg": i,
                "local": local_num,
                "local_symbolic": local_sym,
                "grad": summarise(g_sent),
                "accumulated_grad": summarise(acc),
                "accumulates": bool(accumulates),
                "formula": text_line,
            }
        )
    return {
        "node": gid,
        "grad_output": summarise(step.grad_output),
        "formula": "\n".join(lines)
        if lines
        else f"{cap.text(d_out)} reaches a node with no tracked inputs",
        "caption": caption,
        "contributions": contributions,
    }
