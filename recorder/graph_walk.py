"""A backward pass's walk as exported: each step's contributions and their captions.

Each walk step's ``formula`` (one line per contribution) and ``caption`` (the same lines as
expression trees, which the page typesets) are built by :mod:`recorder.caption` from the op
table's ``local`` and ``chain`` templates: the symbolic rule, the same with numbers when every
operand is one, and the result, every ``=`` true. ``ex`` is recorder.graph's exporter of the
pass (its labels and the graph ids of each node's inputs).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.backend import to_numpy
from engine.core import Node
from recorder import caption as cap
from recorder.passlog import WalkStep
from recorder.summaries import number, scalar, summarise_seen


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


def _symbols(
    ex: Any, node: Node, gid: str, root: str, root_id: str, count: float
) -> tuple[dict[str, cap.Expr | None], dict[str, cap.Expr | None], cap.Expr]:
    """What a step's captions say of its node whatever the numbers: (the symbols, the numbers
    they share with the numeric form (attributes, N), ∂root/∂node)."""
    out_label = root if gid == root_id else ex.labels[gid]
    sym: dict[str, cap.Expr | None] = {}
    shared: dict[str, cap.Expr | None] = {}
    for k, iid in zip("abc", ex.input_ids[id(node)], strict=False):
        sym[k] = cap.name(ex.labels[iid])
    for k, v in (node.attrs or {}).items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            sym[k] = shared[k] = cap.num(float(v))
        elif v is None and k in ("lo", "hi"):
            sym[k] = shared[k] = cap.num(-math.inf if k == "lo" else math.inf)
    if "p" in sym:
        sym["pm1"] = shared["pm1"] = cap.num(float((node.attrs or {})["p"]) - 1)
    sym["N"] = shared["N"] = cap.num(count)
    sym["out"] = cap.name(out_label)
    return sym, shared, cap.deriv(root, out_label)


def _rule(
    ex: Any, node: Node, i: int, sym: dict[str, cap.Expr | None], root: str, summed: bool
) -> tuple[str, cap.Expr, cap.Expr, tuple[cap.Expr, cap.Expr, str], str, cap.Expr, str]:
    """Contribution i's rule whatever the numbers: (the receiver's id, the local derivative's
    and the chain's templates, the chain in symbols (see _form), the local derivative's text,
    ∂root/∂receiver bracketed and its text)."""
    to = ex.input_ids[id(node)][i]
    local_text = _local_template(node, i)
    local_tree = cap.template(local_text) if local_text else {"k": "text", "t": "?"}
    chains = node.op.chain
    chain = chains[min(i, len(chains) - 1)] if chains else None  # cat: one for every input
    chain_tree = (
        cap.template(chain) if chain else cap.binary("·", local_tree, {"k": "slot", "t": "g"})
    )
    sym_local = cap.fill(local_tree, sym)
    s_tree = cap.fill(chain_tree, {**sym, "local": sym_local}) or {"k": "text", "t": "?"}
    if summed:
        s_tree = {"k": "sum", "a": [s_tree]}
    local_sym = cap.text(sym_local) if sym_local is not None else "?"
    lhs = cap.bracket(cap.deriv(root, ex.labels[to]))
    return to, local_tree, chain_tree, _form(s_tree), local_sym, lhs, cap.write(lhs)


def _form(tree: cap.Expr) -> tuple[cap.Expr, cap.Expr, str]:
    """A caption's form as cap.line and cap.line_text make it: (the tree, bracketed, written)."""
    bracketed = cap.bracket(tree)
    return tree, bracketed, cap.write(bracketed)


#: the slots of a step's numbers that are None for a tensor (the others are the node's attributes)
_NUMBERED = ("a", "b", "c", "out", "g")


def _fill(
    memo: dict[Any, Any] | None, key: Any, tree: cap.Expr, slots: dict[str, cap.Expr | None]
) -> cap.Expr | None:
    """``cap.fill(tree, slots)``, remembering under ``key`` (which says which slots are None)
    when it comes out None, so that the same rule with the same absent numbers is not filled
    again (a tensor operand's fill is None in every pass of a loop)."""
    if memo is not None and key in memo:
        return None
    filled = cap.fill(tree, slots)
    if filled is None and memo is not None:
        memo[key] = None
    return filled


def walk_step(
    ex: Any,
    step: WalkStep,
    root: str,
    root_id: str,
    memo: dict[Any, Any] | None = None,
    seen: dict[int, tuple[Any, Any]] | None = None,
) -> dict[str, Any]:
    """One recorded backward step: for each contribution, its caption line as a tree (the
    symbolic form, the same with numbers when every operand is one, the result) and as text.
    ``memo`` (kept across passes of one structure, see recorder.pass_export) holds what the
    captions say whatever the numbers, so a pass like the one before only computes numbers;
    ``seen`` the pass's summaries so far (summaries.summarise_seen)."""
    node = step.node
    gid = ex.ids[id(node)]
    out = node.out() if node.out is not None else None
    out_data = out._data if out is not None else None
    count = _count(node, out_data)
    key = (gid, root, count)
    known = memo.get(key) if memo is not None else None
    if known is None:
        known = _symbols(ex, node, gid, root, root_id, count)
        if memo is not None:
            memo[key] = known
    sym, shared, d_out = known
    num: dict[str, cap.Expr | None] = dict(shared)
    for k, x in zip("abc", node.inputs, strict=False):
        num[k] = number(getattr(x, "_data", x))
    num["out"] = number(out_data)
    num["g"] = number(step.grad_output)
    contributions = []
    lines = []
    caption = []
    upstream = getattr(step.grad_output, "size", 1)
    # A fill is None when a slot it reads holds no number (a tensor's): which slots those are
    # is the structure's, so a pass like the one before knows it without filling.
    absent = tuple([k for k in _NUMBERED if num.get(k, 0) is None])
    for i, _x, g_sent, acc in step.contributions:
        # an elementwise rule whose input was broadcast: the loop summed the gradient back to
        # the input's shape (the one place that un-broadcasts); say so, and show the sum
        summed = node.op.chain is None and getattr(g_sent, "size", 1) < upstream
        rule_key = (gid, root, count, i, summed)
        rule = memo.get(rule_key) if memo is not None else None
        if rule is None:
            rule = _rule(ex, node, i, {**sym, "g": d_out}, root, summed)
            if memo is not None:
                memo[rule_key] = rule
        to, local_tree, chain_tree, s_form, local_sym, lhs, lhs_text = rule
        num["local"] = num_local = _fill(memo, (rule_key, "local", absent), local_tree, num)
        # the numbers summed are a tensor's: the symbolic form says it
        n_tree = None
        if not summed:
            absent_local = (absent, num_local is None)
            n_tree = _fill(memo, (rule_key, "chain", absent_local), chain_tree, num)
        res = scalar(g_sent)
        forms = [s_form]  # each as cap.line brackets it and cap.line_text writes it
        if n_tree is not None and cap.numeric(n_tree):
            n_form = _form(n_tree)
            if n_form[2] != s_form[2]:
                forms.append(n_form)
        if res is not None and (len(forms) > 1 or summed or num["g"] is not None):
            result = _form(cap.num(res))
            if result[2] != forms[-1][2]:
                forms.append(result)
        same = acc is g_sent  # (the walk keeps one array when nothing was added)
        cap_line, text_line, accumulates = _sum_line(lhs, lhs_text, to, forms, res, acc, g_sent)
        caption.append(cap_line)
        lines.append(text_line)
        local_num = (
            cap.text(num_local) if num_local is not None and cap.numeric(num_local) else local_sym
        )
        sent_summary = summarise_seen(g_sent, seen)
        contributions.append(
            {
                "to": to,
                "arg": i,
                "local": local_num,
                "local_symbolic": local_sym,
                "grad": sent_summary,
                "accumulated_grad": sent_summary if same else summarise_seen(acc, seen),
                "accumulates": bool(accumulates),
                "formula": text_line,
            }
        )
    return {
        "node": gid,
        "grad_output": summarise_seen(step.grad_output, seen),
        "formula": "\n".join(lines)
        if lines
        else f"{cap.text(d_out)} reaches a node with no tracked inputs",
        "caption": caption,
        "contributions": contributions,
    }


def _sum_line(
    lhs: Any, lhs_text: str, to: str, forms: list[Any], res: Any, acc: Any, g_sent: Any
) -> tuple[dict[str, Any], str, bool]:
    """A contribution's caption line (its forms, and when the receiver already held a
    gradient, the sum it makes: ``+=`` then ``→ before + sent = after``), its text, and
    whether it accumulates."""
    same = acc is g_sent  # (the walk keeps one array when nothing was added)
    accumulates = not same and not np.array_equal(
        np.asarray(to_numpy(acc)), np.asarray(to_numpy(g_sent))
    )
    total = res if same else scalar(acc)
    cap_line: dict[str, Any] = {"lhs": lhs, "op": "+=" if accumulates else "=", "forms": None}
    text_line = ""
    if accumulates and total is not None and res is not None:
        if len(forms) == 1 or forms[-1][0]["k"] != "num":
            forms.append(_form(cap.num(res)))
        sum_form = _form(cap.binary("+", cap.num(total - res), forms[-1][0]))
        after = _form(cap.num(total))
        cap_line["total"] = [sum_form[1], after[1]]
        text_line = f"  → {sum_form[2]} = {after[2]}"
    cap_line["forms"] = [f[1] for f in forms]
    cap_line["to"] = to
    written = forms[0][2] if len(forms) == 1 else " = ".join([f[2] for f in forms])
    return cap_line, f"{lhs_text} {cap_line['op']} {written}{text_line}", bool(accumulates)
