"""An observed pass of the program's own autograd as the API's ``Graph`` (recorder/graph.py's shape).

Nodes are numbered in topological order (parents first), so the same program always gives the
same ids and the page's forward replay needs nothing new. Each node says which of the program's
classes it is (``value_class``) and carries the program's op label; leaves are ``param`` nodes
(every ``Value`` gets a gradient), results ``op``, the root ``output``. Each observed call of a
per-node backward function is a walk step: ``grad_output`` is the node's ``grad`` when it was
called, and each contribution is what the call added to a parent's ``grad`` (after − before),
with ``accumulated_grad`` the parent's ``grad`` after it, so a wrong rule shows its wrong number.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from recorder.caption import bracket, deriv, page_number, ref
from recorder.graph import LABEL_MAX
from recorder.summaries import summarise
from server.program.values.groups import groups
from server.program.values.record import ValuePass

#: op label -> how an unnamed result reads (the engine's own symbols)
BINARY = {
    "+": "{a} + {b}",
    "*": "{a} · {b}",
    "-": "{a} − {b}",
    "/": "{a} / {b}",
    "**": "{a}^{b}",
    "@": "{a} @ {b}",
}


def number(v: Any) -> float | None:
    """A scalar as a float (None for arrays and None)."""
    if type(v) is float:
        return v
    if v is None:
        return None
    if type(v) is np.ndarray:
        return float(v.reshape(-1)[0]) if v.size == 1 else None
    try:
        return float(v)
    except (OverflowError, TypeError, ValueError):
        if isinstance(v, int):
            return math.inf if v > 0 else -math.inf
        return None


def json_value(v: Any) -> Any:
    """A value or gradient for the JSON (numbers plainly, arrays as the engine shows them)."""
    t = type(v)
    if t is float:
        if v - v == 0:  # finite
            return v
        return "NaN" if v != v else ("Infinity" if v > 0 else "-Infinity")
    if v is None:
        return None
    if t is int:
        return v if -(2**53) < v < 2**53 else json_value(number(v))
    return summarise(np.asarray(v))


def _dtype(v: Any) -> str:
    if type(v) is np.ndarray or isinstance(v, np.generic):
        return str(v.dtype)
    return type(v).__name__


def _shape(v: Any) -> list[int]:
    return list(v.shape) if type(v) is np.ndarray else []


__all__ = ["contributions", "export_pass", "json_value", "number", "page_number"]


NumberNode = tuple[dict[str, Any], dict[str, Any], str]


class _Numbers(dict[float, str]):
    """page_number, remembered (a pass repeats the same few numbers many times), and the
    caption's number nodes, shared by every line that shows the number."""

    def __init__(self) -> None:
        super().__init__()
        self._nodes: dict[float, NumberNode] = {}

    def __missing__(self, v: float) -> str:
        text = page_number(v)
        self[v] = text
        return text

    def node(self, v: float) -> NumberNode:
        """(the number's node, the same as the right operand of · or + (a negative one in
        brackets, as recorder.caption.bracket writes it), that operand's text)."""
        found = self._nodes.get(v)
        if found is None:
            text = self[v]
            node = {"k": "num", "v": v if v - v == 0 else json_value(float(v)), "t": text}
            if text[0] == "−":
                found = (node, {"k": "paren", "a": [node]}, f"({text})")
            else:
                found = (node, node, text)
            self._nodes[v] = found
        return found


def _minus(after: Any, before: Any) -> Any:
    if before is None:
        return after
    if after is None:
        return None
    try:
        return after - before
    except Exception:
        return None


def _nonzero(v: Any) -> bool:
    if type(v) is float or type(v) is int:
        return v != 0
    if v is None:
        return False
    try:
        return bool(np.any(np.asarray(v) != 0))
    except Exception:
        return True


def _expression(op: str | None, parts: list[str]) -> str:
    """How an unnamed result reads: ``w · x``, ``tanh(n)``, ``a^2`` (micrograd's ``**2``);
    ``parts`` are the inputs' labels, parenthesised where needed (not inside a call's own
    brackets: ``tanh(… + b)``)."""
    label = (op or "").strip()
    if len(parts) == 2 and label in BINARY:
        return BINARY[label].format(a=parts[0], b=parts[1])
    if len(parts) == 1 and label in BINARY:  # a set of parents keeps one of o * o
        return BINARY[label].format(a=parts[0], b=parts[0])
    if len(parts) == 1 and label in ("-", "neg"):
        return f"−{parts[0]}"
    if len(parts) == 1 and label.startswith("**"):
        return f"{parts[0]}^{label[2:]}"
    bare = [p[1:-1] if len(parts) == 1 and _wrapped(p) else p for p in parts]
    return f"{label or 'op'}({', '.join(bare)})"


def _wrapped(text: str) -> bool:
    """Whether ``text`` is one bracketed group, ``(a + b)`` (not ``(a) + (b)``)."""
    if not (text.startswith("(") and text.endswith(")")):
        return False
    depth = 0
    for i, c in enumerate(text):
        depth += c == "("
        depth -= c == ")"
        if depth == 0 and i < len(text) - 1:
            return False
    return True


def contributions(record: ValuePass, step: list[Any]) -> list[tuple[int, Any, Any]]:
    """(argument position, parent's grad before, after) for each thing a step sent."""
    i, _gout, before, after, writes = step
    parents = record.parents[i]
    if after is None:  # the call raised before it finished
        after = before
    if writes is None:
        return [(a, before[a], after[a]) for a in range(len(parents))]
    distinct = list(dict.fromkeys(parents))
    positions = [[a for a, j in enumerate(parents) if j == p] for p in distinct]
    used = [0] * len(distinct)
    last = list(before)
    out: list[tuple[int, Any, Any]] = []
    for slot, old, new in writes:
        at = positions[slot]
        out.append((at[min(used[slot], len(at) - 1)], old, new))
        used[slot] += 1
        last[slot] = new
    for slot, at in enumerate(positions):
        changed = not _same(after[slot], last[slot])
        if changed or used[slot] == 0:  # a change no write showed (in place), or none at all
            out.append((at[min(used[slot], len(at) - 1)], last[slot], after[slot]))
    return out


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True))
    except Exception:
        return False


def export_pass(record: ValuePass) -> dict[str, Any]:
    """The pass as a ``Graph`` dict, walk included."""
    n = len(record.datas)
    ids = [f"n{k}" for k in range(n)]
    root = record.root
    labels: list[str] = []
    parens: list[str] = []
    nodes: list[dict[str, Any]] = []
    edges: list[dict[str, Any]] = []
    kind_name = record.kind_name
    names = record.names or [None] * n
    fmt = _Numbers()
    datas, grads, ops, all_parents = record.datas, record.grads_end, record.ops, record.parents
    atoms: list[bool] = []  # a name or a number: never elided from a label
    for k in range(n):
        data = datas[k]
        parents = all_parents[k]
        name = names[k]
        if type(data) is float:
            value, shape, dtype = json_value(data), [], "float"
        else:
            value, shape, dtype = json_value(data), _shape(data), _dtype(data)
        grad = grads[k]
        grad = grad if type(grad) is float and grad - grad == 0 else json_value(grad)
        gid = ids[k]
        if parents:
            op = ops[k]
            expr = _expression(op, [parens[j] for j in parents])
            if name:
                label = name
            elif len(expr) <= LABEL_MAX:
                label = expr
            else:  # the outermost operation over its inputs' names, the rest elided
                label = _expression(op, [parens[j] if atoms[j] else "…" for j in parents])
            nodes.append(
                {
                    "id": gid, "name": name, "label": label, "op": op or None,
                    "expression": expr, "kind": "op", "grad_fn": None, "is_leaf": False,
                    "requires_grad": True, "untracked_reason": None, "shape": shape,
                    "dtype": dtype, "value": value, "grad": grad, "value_class": kind_name,
                }
            )  # fmt: skip
            for a, j in enumerate(parents):
                edges.append({"src": ids[j], "dst": gid, "arg": a})
        else:
            f = number(data)
            label = name or (fmt[f] if f is not None else f"{kind_name} {shape}")
            nodes.append(
                {
                    "id": gid, "name": name, "label": label, "op": "leaf", "kind": "param",
                    "grad_fn": None, "is_leaf": True, "requires_grad": True,
                    "untracked_reason": None, "shape": shape, "dtype": dtype, "value": value,
                    "grad": grad, "value_class": kind_name,
                }
            )  # fmt: skip
        labels.append(label)
        parens.append(f"({label})" if " " in label or label[:1] == "−" else label)
        atoms.append(bool(name) or not parents)
    nodes[root]["kind"] = "output"
    graph_modules = _groups(record, nodes)
    root_label = labels[root] if names[root] else "L"
    walk = _Walk(record, ids, labels, parens, root_label, fmt)
    graph: dict[str, Any] = {
        "nodes": nodes,
        "edges": edges,
        "walk": [walk.step(s) for s in record.steps],
        "root": ids[root],
        "root_label": root_label,
        "pass_index": record.index,
        "value_class": kind_name,
        "complete": record.complete,
    }
    if graph_modules:
        graph["modules"] = graph_modules
    return graph


def _groups(record: ValuePass, nodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The calls of the program's own classes that made nodes of this pass (values/groups.py),
    each node marked with the innermost; the program's objects are let go of afterwards."""
    if not record.calls or not record.objs:
        return []
    try:
        calls, owner = groups(record.objs, record.parents, record.calls, record.name_of or _no_name)
    finally:
        record.objs, record.calls = [], []
    by_id = {c["id"]: c for c in calls}
    for node, k in zip(nodes, owner, strict=True):
        if k is None:
            continue
        call = calls[k]
        path = [call["name"]]
        parent = call["parent"]
        while parent is not None:
            path.append(by_id[parent]["name"])
            parent = by_id[parent]["parent"]
        node["module"] = call["id"]
        node["module_id"] = call["id"]
        node["module_path"] = path[::-1]
    return calls


def _no_name(obj: Any) -> str | None:
    return None


class _Walk:
    """Observed calls as the walk's steps: numbers and formulas, as the engine writes them.

    A line reads ``∂L/∂w = 2 · (−12) = −24``: the local derivative the program's rule applied
    (what it added over the gradient it was given: the rule's own number, right or wrong),
    times that gradient, and what it added. A parent that already held a gradient gets ``+=``
    and the sum it now holds (``→ 4 + 6 = 10``). ``caption`` holds the same lines as trees
    (recorder.caption's shape) for the page to typeset."""

    def __init__(
        self,
        record: ValuePass,
        ids: list[str],
        labels: list[str],
        parens: list[str],
        root: str,
        fmt: _Numbers,
    ) -> None:
        self.record = record
        self.ids = ids
        self.labels = labels
        self.parens = parens
        self.root = root
        self.root_ref = ref(root)
        self.fmt = fmt
        self._lhs: dict[int, tuple[str, dict[str, Any]]] = {}

    def _d(self, j: int) -> tuple[str, dict[str, Any]]:
        """``∂L/∂(parent j)`` as text and as a tree (shared by every line that names it)."""
        found = self._lhs.get(j)
        if found is None:
            label = self.labels[j]
            tree = bracket(deriv(self.root, label))
            found = self._lhs[j] = (f"∂{self.root_ref}/∂{ref(label)}", tree)
        return found

    def step(self, step: list[Any]) -> dict[str, Any]:
        if step[4] is None and not self.record.arrays and step[3] is not None:
            fast = self._numbers(step)
            if fast is not None:
                return fast
        return self._general(step)

    def _line(
        self, j: int, gout: float | None, delta: float | None, before: Any, after: Any
    ) -> tuple[str, dict[str, Any], str]:
        """(text, tree, local) of one contribution to parent j."""
        fmt = self.fmt
        accumulates = before != 0 if type(before) is float else _nonzero(before)
        lhs, lhs_tree = self._d(j)
        op = "+=" if accumulates else "="
        forms: list[dict[str, Any]] = []
        local = "?"
        if delta is None:
            text = f"{lhs} {op} what the rule added (see grad)"
            words = {"k": "text", "t": "what the rule added (see grad)"}
            return text, {"lhs": lhs_tree, "op": op, "forms": [words]}, local
        sent, sent_factor, sent_text = fmt.node(delta)
        if gout:
            local_node = fmt.node(delta / gout)[0]
            local = local_node["t"]
            _, g_factor, g_text = fmt.node(gout)
            forms = [{"k": "·", "a": [local_node, g_factor]}, sent]
            text = f"{lhs} {op} {local} · {g_text} = {sent['t']}"
        else:
            forms = [sent]
            text = f"{lhs} {op} {sent['t']}"
        tree: dict[str, Any] = {"lhs": lhs_tree, "op": op, "forms": forms}
        if accumulates:
            total = number(after)
            held = number(before)
            if total is not None and held is not None:
                before_node, after_node = fmt.node(held)[0], fmt.node(total)[0]
                tree["total"] = [{"k": "+", "a": [before_node, sent_factor]}, after_node]
                text += f"  → {before_node['t']} + {sent_text} = {after_node['t']}"
        return text, tree, local

    def _numbers(self, step: list[Any]) -> dict[str, Any] | None:
        """A step whose gradients are all plain numbers (the common case, kept lean)."""
        i, gout, before, after = step[0], step[1], step[2], step[3]
        if type(gout) is not float and type(gout) is not int:
            return None
        parens, ids = self.parens, self.ids
        out = parens[i]
        lines: list[str] = []
        caption: list[dict[str, Any]] = []
        sent: list[dict[str, Any]] = []
        for arg, j in enumerate(self.record.parents[i]):
            b, a = before[arg], after[arg]
            tb, ta = type(b), type(a)
            if (tb is not float and tb is not int) or (ta is not float and ta is not int):
                return None
            delta = a - b
            text, tree, local = self._line(j, gout, delta, b, a)
            tree["to"] = ids[j]
            lines.append(text)
            caption.append(tree)
            sent.append(
                {
                    "to": ids[j], "arg": arg, "local": local, "local_symbolic": f"∂{out}/∂{parens[j]}",
                    "grad": delta if delta - delta == 0 else json_value(float(delta)),
                    "accumulated_grad": a if a - a == 0 else json_value(float(a)),
                    "accumulates": b != 0, "formula": text,
                }
            )  # fmt: skip
        return {
            "node": ids[i],
            "grad_output": gout if gout - gout == 0 else json_value(float(gout)),
            "formula": "\n".join(lines)
            if lines
            else f"∂{self.root_ref}/∂{out} reaches a node with no inputs",
            "caption": caption,
            "contributions": sent,
        }

    def _general(self, step: list[Any]) -> dict[str, Any]:
        i, gout = step[0], step[1]
        parens = self.parens
        out = parens[i]
        g_num = number(gout)
        lines: list[str] = []
        caption: list[dict[str, Any]] = []
        sent: list[dict[str, Any]] = []
        parents = self.record.parents[i]
        for arg, before, after in contributions(self.record, step):
            j = parents[arg]
            delta = _minus(after, before)
            text, tree, local = self._line(j, g_num, number(delta), before, after)
            tree["to"] = self.ids[j]
            lines.append(text)
            caption.append(tree)
            sent.append(
                {
                    "to": self.ids[j],
                    "arg": arg,
                    "local": local,
                    "local_symbolic": f"∂{out}/∂{parens[j]}",
                    "grad": json_value(delta),
                    "accumulated_grad": json_value(after),
                    "accumulates": _nonzero(before),
                    "formula": text,
                }
            )
        return {
            "node": self.ids[i],
            "grad_output": json_value(gout),
            "formula": "\n".join(lines)
            if lines
            else f"∂{self.root_ref}/∂{out} reaches a node with no inputs",
            "caption": caption,
            "contributions": sent,
        }
