"""Export of a recorded graph and its backward walk to plain dicts (DESIGN.md's ``Graph``).

Node ids are assigned in recording order (``n0``, ``n1``, ...), so the same program always
gives the same ids. Names come from ``Tensor._name`` (set by the sandbox when the user binds
a variable). Values and gradients are numbers or nested lists, or a summary above
``FULL_LIMIT`` elements; non-finite numbers become the strings "NaN", "Infinity", "-Infinity".
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

from engine.autograd import Node, WalkStep
from engine.backend import to_numpy

FULL_LIMIT = 64
PREVIEW = 8
LABEL_MAX = 18


def _num(v: float) -> Any:
    if math.isfinite(v):
        return v
    return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


def _clean(x: Any) -> Any:
    if isinstance(x, list):
        return [_clean(y) for y in x]
    if isinstance(x, float):
        return _num(x)
    return x


def summarise(arr: Any) -> Any:
    """A JSON-ready value: full for small arrays, a summary for large ones."""
    if arr is None:
        return None
    a = to_numpy(arr) if not isinstance(arr, int | float | bool) else np.asarray(arr)
    if a.dtype.kind == "b":
        a = a.astype(np.int64)
    if a.size <= FULL_LIMIT:
        if a.dtype.kind != "f" or np.isfinite(a).all():
            return a.tolist()  # nothing to spell out: skip the per-element walk
        return _clean(a.tolist())
    af = a.astype(np.float64)
    finite = af[np.isfinite(af)]
    return {
        "shape": list(a.shape),
        "min": _num(float(finite.min())) if finite.size else None,
        "max": _num(float(finite.max())) if finite.size else None,
        "mean": _num(float(finite.mean())) if finite.size else None,
        "preview": _clean(af.reshape(-1)[:PREVIEW].tolist()),
    }


def fmt_number(v: float) -> str:
    """A number for a caption: integers plainly, else 4 significant digits; a true minus."""
    if not math.isfinite(v):
        return "NaN" if math.isnan(v) else ("∞" if v > 0 else "−∞")
    if v == int(v) and abs(v) < 1e6:
        s = str(int(v))
    else:
        s = f"{v:.4g}"
    return s.replace("-", "−")


def _scalar(arr: Any) -> float | None:
    if isinstance(arr, int | float | bool | np.number):
        return float(arr)
    if arr is not None and getattr(arr, "size", 2) == 1:
        return float(to_numpy(arr).reshape(()))
    return None


def _show(arr: Any, label: str) -> str:
    """A value inside a numeric caption: the number for scalars, the label otherwise."""
    v = _scalar(arr)
    if v is None:
        return label
    s = fmt_number(v)
    return f"({s})" if s.startswith("−") else s


_PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _fill(template: str, table: dict[str, str]) -> str:
    return _PLACEHOLDER.sub(lambda m: table.get(m.group(1), m.group(0)), template)


class _Exporter:
    def __init__(
        self, root: Any, node_grads: dict[int, Any], frozen: dict[int, Any] | None = None
    ) -> None:
        self.root = root
        self.node_grads = node_grads
        self.frozen = frozen or {}  # id(leaf) -> (value, grad) as they were at the pass
        self.input_ids: dict[int, list[str]] = {}  # id(Node) -> graph ids of its inputs
        self.nodes: list[dict[str, Any]] = []
        self.edges: list[dict[str, Any]] = []
        self.ids: dict[int, str] = {}  # id(Node) or id(leaf tensor) -> graph id
        self.labels: dict[str, str] = {}
        self.tensors: dict[str, Any] = {}

    def _new_id(self) -> str:
        return f"n{len(self.nodes)}"

    def leaf(self, x: Any) -> str:
        from engine.tensor import Tensor

        if isinstance(x, Tensor):
            key = id(x)
            if key in self.ids:
                return self.ids[key]
            gid = self._new_id()
            self.ids[key] = gid
            requires = bool(x.requires_grad)
            reason = None
            if not requires:
                reason = x._untracked or "requires_grad=False"
            value = x._data
            grad = x.grad._data if x.grad is not None else None
            if key in self.frozen:
                value, grad = self.frozen[key]
            name = x._name
            label = name or self._const_label(value) or gid
            self.nodes.append(
                {
                    "id": gid,
                    "name": name,
                    "label": label,
                    "op": "leaf",
                    "grad_fn": None,
                    "is_leaf": True,
                    "requires_grad": requires,
                    "kind": "param" if requires else "const",
                    "untracked_reason": reason,
                    "shape": list(value.shape),
                    "dtype": str(x.dtype),
                    "value": summarise(value),
                    "grad": summarise(grad) if requires else None,
                }
            )
            self.tensors[gid] = x
        else:  # a Python number used as an operand
            gid = self._new_id()
            label = fmt_number(float(x)) if isinstance(x, int | float | np.number) else str(x)
            self.nodes.append(
                {
                    "id": gid,
                    "name": None,
                    "label": label,
                    "op": "constant",
                    "grad_fn": None,
                    "is_leaf": True,
                    "requires_grad": False,
                    "kind": "const",
                    "untracked_reason": "a Python number (constants are not tracked)",
                    "shape": [],
                    "dtype": "float32" if isinstance(x, float) else "int64",
                    "value": _num(float(x)) if isinstance(x, int | float) else None,
                    "grad": None,
                }
            )
        self.labels[gid] = label
        return gid

    @staticmethod
    def _const_label(value: Any) -> str | None:
        v = _scalar(value)
        return fmt_number(v) if v is not None else None

    def op_node(self, node: Node) -> str:
        gid_inputs = [self.ref(x) for x in node.inputs]
        self.input_ids[id(node)] = gid_inputs
        attrs = node.attrs or {}
        # a scalar operand kept as an attribute (x ** 2, 2 ** x) is drawn as a constant too
        extra = []
        if node.op.name == "pow":
            extra = [(self.leaf(attrs["p"]), 1)]
        elif node.op.name == "rpow":
            extra = [(self.leaf(attrs["base"]), 0)]
        gid = self._new_id()
        self.ids[id(node)] = gid
        out = node.out() if node.out is not None else None
        name = out._name if out is not None else None
        parts = {k: self._paren(self.labels[g]) for k, g in zip("abc", gid_inputs, strict=False)}
        parts.update(
            {
                k: fmt_number(float(v))
                for k, v in (node.attrs or {}).items()
                if isinstance(v, int | float) and not isinstance(v, bool)
            }
        )
        expr = _fill(node.op.symbol, parts)
        short = expr if len(expr) <= LABEL_MAX else None
        if short is None:
            short = "L" if out is self.root else f"{node.op.name}#{gid[1:]}"
        label = name or short
        value = getattr(node, "out_value", None)
        if value is None:
            value = out._data if out is not None else None
        grad = self.node_grads.get(id(node))
        self.nodes.append(
            {
                "id": gid,
                "name": name,
                "label": label,
                "op": node.op.name,
                "grad_fn": node.name(),
                "is_leaf": False,
                "requires_grad": True,
                "kind": "op",
                "untracked_reason": None,
                "expression": expr,
                "shape": list(value.shape) if value is not None else None,
                "dtype": str(out.dtype) if out is not None else None,
                "value": summarise(value),
                "grad": summarise(grad),
                "retains_grad": bool(out._retains_grad) if out is not None else False,
            }
        )
        self.labels[gid] = label
        if out is not None:
            self.tensors[gid] = out
        for i, src in enumerate(gid_inputs):
            self.edges.append({"src": src, "dst": gid, "arg": i})
        for src, arg in extra:
            self.edges.append({"src": src, "dst": gid, "arg": arg})
        return gid

    @staticmethod
    def _paren(label: str) -> str:
        return f"({label})" if " " in label else label

    def ref(self, x: Any) -> str:
        fn = getattr(x, "grad_fn", None)
        if fn is not None and id(fn) in self.ids:
            return self.ids[id(fn)]
        return self.leaf(x)


def _topo_ascending(root_fn: Node | None) -> list[Node]:
    if root_fn is None:
        return []
    seen: set[int] = set()
    stack = [root_fn]
    found: list[Node] = []
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        found.append(node)
        for x in node.inputs:
            fn = getattr(x, "grad_fn", None)
            if fn is not None:
                stack.append(fn)
    found.sort(key=lambda n: n.seq)
    return found


def freeze_leaves(root: Any) -> dict[int, Any]:
    """Copies of the values and gradients of the leaves under ``root``, keyed by ``id``, so
    that a pass can be exported later as it was (optimizers change leaves in place)."""
    from engine.tensor import Tensor

    frozen: dict[int, Any] = {}
    for node in _topo_ascending(root.grad_fn):
        for x in node.inputs:
            if isinstance(x, Tensor) and x.grad_fn is None and id(x) not in frozen:
                grad = x.grad._data.copy() if x.grad is not None else None
                frozen[id(x)] = (x._data.copy(), grad)
    if root.grad_fn is None:
        grad = root.grad._data.copy() if root.grad is not None else None
        frozen[id(root)] = (root._data.copy(), grad)
    return frozen


def _export(
    root: Any,
    steps: list[WalkStep] | None,
    node_grads: dict[int, Any] | None,
    frozen: dict[int, Any] | None = None,
) -> tuple[dict[str, Any], _Exporter]:
    ex = _Exporter(root, node_grads or {}, frozen)
    for node in _topo_ascending(root.grad_fn):
        ex.op_node(node)
    root_id = ex.ids[id(root.grad_fn)] if root.grad_fn is not None else ex.leaf(root)
    for n in ex.nodes:
        if n["id"] == root_id:
            n["kind"] = "output"
            if n["grad"] is None and steps:
                n["grad"] = summarise(steps[0].grad_output)
    root_label = ex.labels[root_id] if root._name else "L"
    walk = [_step(ex, s, root_label) for s in steps or [] if id(s.node) in ex.ids]
    graph = {
        "nodes": ex.nodes,
        "edges": ex.edges,
        "walk": walk,
        "root": root_id,
        "root_label": root_label,
    }
    return graph, ex


def export_focus(exc: BaseException) -> tuple[dict[str, Any], str | None] | None:
    """For an autograd error carrying ``autograd_focus``: the graph of its root and the id of
    the node concerned (the freed node, the tensor changed in place, the root without grad)."""
    focus = getattr(exc, "autograd_focus", None)
    if focus is None:
        return None
    root, target = focus
    graph, ex = _export(root, None, None)
    node_id = ex.ids.get(id(target))
    if node_id is None:  # a tensor: the graph node that shows it
        node_id = next((gid for gid, t in ex.tensors.items() if t is target), None)
    return graph, node_id


def export(
    root: Any,
    steps: list[WalkStep] | None = None,
    node_grads: dict[int, Any] | None = None,
    frozen: dict[int, Any] | None = None,
) -> dict[str, Any]:
    """The graph that produced ``root``, with the recorded walk if one is given; ``frozen``
    replaces leaves' values and gradients (see :func:`freeze_leaves`)."""
    return _export(root, steps, node_grads, frozen)[0]


def _step(ex: _Exporter, step: WalkStep, root: str) -> dict[str, Any]:
    node = step.node
    gid = ex.ids[id(node)]
    out_label = ex.labels[gid]
    out = node.out() if node.out is not None else None
    input_ids = ex.input_ids[id(node)]
    sym: dict[str, str] = {}
    num: dict[str, str] = {}
    for k, x, iid in zip("abc", node.inputs, input_ids, strict=False):
        lbl = ex._paren(ex.labels[iid])
        sym[k] = lbl
        num[k] = _show(getattr(x, "_data", x), lbl)
    for k, v in (node.attrs or {}).items():
        if isinstance(v, int | float) and not isinstance(v, bool):
            sym[k] = num[k] = fmt_number(float(v))
        elif v is None and k in ("lo", "hi"):
            sym[k] = num[k] = "−∞" if k == "lo" else "∞"
    if "p" in sym:
        p = (node.attrs or {})["p"]
        sym["pm1"] = num["pm1"] = fmt_number(float(p) - 1)
    if "base" in sym:
        sym["base"] = num["base"] = fmt_number(float((node.attrs or {})["base"]))
    out_data = out._data if out is not None else None
    sym["out"] = ex._paren(out_label)
    num["out"] = _show(out_data, sym["out"])
    d_out = f"∂{root}/∂{ex._paren(out_label)}" if out_label != root else f"∂{root}/∂{root}"
    sym["g"] = d_out
    num["g"] = _show(step.grad_output, d_out)
    contributions = []
    lines = []
    for i, _x, g_sent, acc in step.contributions:
        to = input_ids[i]
        to_label = ex.labels[to]
        local_t = node.op.local[i] if i < len(node.op.local) else "?"
        chain_t = node.op.chain[i] if node.op.chain and i < len(node.op.chain) else "{local} · {g}"
        chain_t = chain_t.replace("{local}", local_t)
        s_txt, n_txt = _fill(chain_t, sym), _fill(chain_t, num)
        res = _scalar(g_sent)
        accumulates = not np.array_equal(np.asarray(to_numpy(acc)), np.asarray(to_numpy(g_sent)))
        line = f"∂{root}/∂{ex._paren(to_label)} {'+=' if accumulates else '='} {s_txt}"
        if n_txt != s_txt:
            line += f" = {n_txt}"
        if res is not None and (n_txt != s_txt or _scalar(step.grad_output) is not None):
            line += f" = {fmt_number(res)}"
        total = _scalar(acc)
        if accumulates and total is not None:
            line += f"  → {fmt_number(total)}"
        lines.append(line)
        contributions.append(
            {
                "to": to,
                "arg": i,
                "local": _fill(local_t, num)
                if _fill(local_t, num) != _fill(local_t, sym)
                else _fill(local_t, sym),
                "local_symbolic": _fill(local_t, sym),
                "grad": summarise(g_sent),
                "accumulated_grad": summarise(acc),
                "accumulates": bool(accumulates),
                "formula": line,
            }
        )
    return {
        "node": gid,
        "grad_output": summarise(step.grad_output),
        "formula": "\n".join(lines) if lines else f"{d_out} reaches a node with no tracked inputs",
        "contributions": contributions,
    }
