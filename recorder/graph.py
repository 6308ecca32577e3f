"""Export of a recorded graph and its backward walk to plain dicts (the API's ``Graph``: server/schemas.py).

Node ids are assigned in recording order (``n0``, ``n1``, ...), so the same program always
gives the same ids. Values and gradients are numbers or nested lists, or a summary above
``FULL_LIMIT`` elements; non-finite numbers become the strings "NaN", "Infinity", "-Infinity".

Names and labels. ``name`` is the user's variable name (``Tensor._name``, set by the sandbox)
or null; ``label`` is what the graph shows: the name, else text made from what produced the
tensor, never an id: a module call's output reads as the call (``model[0](X)``), an op as its
symbol over its inputs' labels (``err · err``, with the inner parts elided when long:
``((… + b) − y)^2``), a parameter as its module's (``model[0].weight``), a constant as its
value, another unnamed tensor as ``tensor [3, 2]``. ``ref`` is the label as it reads inside a
formula: parenthesised unless it is a plain name (``∂L/∂(x^2)``, ``((w · x) + b).grad``).

Modules. Every op node recorded inside an ``nn.Module`` call carries ``module`` (the
innermost call's name: ``model[0]``, ``fc1``, ``net.encoder[1]``), ``module_id`` and
``module_path`` (the names from the outermost call in); a parameter of that module carries
them too; the graph lists the calls in ``modules`` (``{id, name, type, parent}``). A module
is named by its ``_name`` (set by the sandbox), else from the call it ran in (``parent[0]``
for Sequential/ModuleList children, ``parent.attr`` for attributes), else by its class.

Captions. Each walk step's ``formula`` (one line per contribution) and ``caption`` (the same
lines as expression trees, which the page typesets) are built by :mod:`recorder.caption` from the
op table's ``local`` and ``chain`` templates: the symbolic rule, the same with numbers when every
operand is one, and the result, every ``=`` true.

Besides a backward pass (:func:`export`), the graph of any live tensors can be exported
(:func:`export_tensors`, a program that never called backward) and, for a forward error that
carries ``failed_op`` (engine.tensor.failed), the graph recorded up to it with one node of
kind ``"error"`` for the failing op (:func:`export_error`).
"""

from __future__ import annotations

import functools
import re
from collections import deque
from collections.abc import Iterable
from typing import Any

import numpy as np

from engine.core import ModuleCall, Node, edge
from engine.ops import OPS
from engine.tensor import Tensor
from recorder.caption import LABEL_OPS, POSTFIX, POWER, PRODUCT, label_prec
from recorder.graph_walk import walk_step
from recorder.passlog import WalkStep
from recorder.summaries import fmt_number, num, scalar, summarise

#: labels longer than this are elided from the inside (``(… + b − y)^2``)
LABEL_MAX = 24
#: the same for a node's ``expression`` (the hover card's fuller text)
EXPRESSION_MAX = 120
#: a graph too big to draw is counted up to this many times the drawing budget
COUNT_BOUND = 100


_PLACEHOLDER = re.compile(r"\{(\w+)\}")
_NAME = re.compile(r"[\w.\[\]…]+")
_OPEN, _CLOSE = "([,|⌊⌈", ")],|⌋⌉"


@functools.lru_cache(maxsize=4096)
def _needed(template: str, start: int, end: int) -> int:
    """How tightly an operand must hold together at template[start:end] to need no
    parentheses: 0 where brackets or commas delimit it (``exp(x)``, ``max(a, b)``)."""
    left, right = template[:start], template[end:]
    before, after = left.rstrip()[-1:], right.lstrip()[:1]
    if before and after and before in _OPEN and after in _CLOSE:
        return 0
    if before == "^" or (after and after in "^ᵀ.[²") or (before and before.isalnum()):
        return POSTFIX  # a power's base or exponent, a postfix, or a phrase (of x)
    need = 0
    op_left = LABEL_OPS.get(left[-3:])
    if op_left is not None:  # the right operand: a − (b + c), a / (b · c)
        need = op_left + (left[-3:] in (" − ", " / "))
    elif before and before in "·/":
        need = PRODUCT + (before == "/")
    elif before == "−" and not left[:-1].strip():
        need = POWER  # a leading minus: −(a · b), −x^2 reads as −(x^2) anyway
    elif before:
        need = POWER  # after a prefix symbol: √(x + 1), Σ (x · y), |x|
    op_right = LABEL_OPS.get(right[:3])
    if op_right is not None:
        need = max(need, op_right)
    elif after and after in "·/":
        need = max(need, PRODUCT)
    return need


def _fill(template: str, parts: dict[str, str]) -> str:
    """The template with each placeholder replaced by its part, in parentheses only where the
    part would otherwise bind differently (``w · x + b``, ``(w · x + b − y)^2``, ``exp(w · x)``).
    Remembered: a loop's passes fill the same templates with the same labels."""
    return _filled(template, tuple(sorted(parts.items())))


@functools.lru_cache(maxsize=4096)
def _filled(template: str, items: tuple[tuple[str, str], ...]) -> str:
    parts = dict(items)

    def sub(m: re.Match[str]) -> str:
        text = parts.get(m.group(1))
        if text is None:
            return m.group(0)
        return text if label_prec(text) >= _needed(template, m.start(), m.end()) else f"({text})"

    return _PLACEHOLDER.sub(sub, template)


def ref(label: str) -> str:
    """A label as it reads inside a formula: itself when a plain name, else parenthesised."""
    return label if _NAME.fullmatch(label) and not label[0].isdigit() else f"({label})"


class _Call:
    """A module call as exported: its id, name and place in the nesting."""

    __slots__ = ("call", "gid", "name", "parent", "path")

    def __init__(self, call: ModuleCall, gid: str, name: str, parent: _Call | None) -> None:
        self.call = call
        self.gid = gid
        self.name = name
        self.parent = parent
        self.path: list[str] = [*(parent.path if parent else []), name]


def owning_call(x: Tensor, scope: ModuleCall | None) -> tuple[ModuleCall | None, str]:
    """The innermost module call, from ``scope`` (the call of a node that uses x) outwards,
    whose module owns parameter x, and x's key there; (None, "") when none does."""
    call = scope
    while call is not None and x._param:
        for key, p in getattr(call.module, "_parameters", {}).items():
            if p is x:
                return call, key
        call = call.parent
    return None, ""


def _module_name(call: ModuleCall, parent: _Call | None) -> str:
    """``_name`` (the sandbox's), else derived from the calling module, else the class."""
    module = call.module
    own = getattr(module, "_name", None)
    if isinstance(own, str) and own:
        return own
    if parent is not None:  # where the calling module holds it: parent.layers[0]
        todo: list[tuple[Any, str]] = [(parent.call.module, parent.name)]
        while todo:
            holder, prefix = todo.pop(0)
            for key, child in getattr(holder, "_modules", {}).items():
                name = f"{prefix}[{key}]" if key.isdigit() else f"{prefix}.{key}"
                if child is module:
                    return name
                if child is not None:
                    todo.append((child, name))
    return type(module).__name__


class Exporter:
    """One graph's export as it is made: its nodes' ids, labels and dicts, its edges and module
    calls (recorder.pass_export keeps one to reuse what a pass like it would make again)."""

    def __init__(
        self, root: Any, node_grads: dict[int, Any], frozen: dict[int, Any] | None = None
    ) -> None:
        self.root = root
        self.node_grads = node_grads
        self.frozen = frozen or {}  # id(leaf) -> (value, grad) as they were at the pass
        self.input_ids: dict[int, list[str]] = {}  # id(Node) -> graph ids of its inputs
        self.nodes: list[dict[str, Any]] = []
        self.by_id: dict[str, dict[str, Any]] = {}
        self.edges: list[dict[str, Any]] = []
        self.ids: dict[int, str] = {}  # id(Node) or id(leaf tensor) -> graph id
        self.labels: dict[str, str] = {}
        self.tensors: dict[str, Any] = {}
        # how each label is made: a fixed text, or a template over other nodes' labels
        self.terms: dict[str, tuple[str, list[str], dict[str, str]]] = {}
        #: (gid, depth) -> its text inside another label: shared subexpressions (an unrolled
        #: RNN's hidden state) are rendered once per depth, not once per path to them
        self._inner: dict[tuple[str, int], str | None] = {}
        self.calls: dict[int, _Call] = {}  # id(ModuleCall) -> its export
        self.call_of_output: dict[int, _Call] = {}  # id(Node) -> outermost call returning it
        self._consumed: set[int] = set()
        # set when the drawing budget left part of the graph out: how many nodes it has in all
        # (counted up to a bound) and the budget, for ``truncated``
        self.cut: tuple[int, int, int] | None = None

    # --- modules ---------------------------------------------------------------------------
    def call(self, call: ModuleCall) -> _Call:
        """The exported call (and its enclosing calls, outermost first)."""
        found = self.calls.get(id(call))
        if found is None:
            parent = self.call(call.parent) if call.parent is not None else None
            name = _module_name(call, parent)
            # the id is the name (a readable, stable selector), numbered when a module is
            # called more than once in the graph: fc1, fc1#2
            used = {c.gid for c in self.calls.values()}
            gid, n = name, 1
            while gid in used:
                n += 1
                gid = f"{name}#{n}"
            found = _Call(call, gid, name, parent)
            self.calls[id(call)] = found
        return found

    def outputs(self, nodes: list[Node]) -> None:
        """Which module call each node is the output of: the outermost call it leaves (a
        consumer outside it, or none: the root, a tensor the program kept)."""
        paths = {id(n): self._path(n) for n in nodes}
        leaves: dict[int, int] = {}  # id(node) -> how many calls deep its outermost exit is
        for n in nodes:
            leaves.setdefault(id(n), 0)
            for x in n.inputs:
                fn = edge(x, n.seq)
                if fn is None or id(fn) not in paths:
                    continue
                inner, outer = paths[id(fn)], paths[id(n)]
                shared = 0
                while shared < min(len(inner), len(outer)) and inner[shared] is outer[shared]:
                    shared += 1
                if id(fn) not in self._consumed:
                    self._consumed.add(id(fn))
                    leaves[id(fn)] = shared
                else:
                    leaves[id(fn)] = min(leaves[id(fn)], shared)
        for n in nodes:
            path = paths[id(n)]
            depth = leaves[id(n)] if id(n) in self._consumed else 0
            if depth < len(path):
                self.call_of_output[id(n)] = self.call(path[depth])

    def _path(self, node: Node) -> list[ModuleCall]:
        scope = getattr(node, "module", None)
        return scope.path() if scope is not None else []

    def modules(self) -> list[dict[str, Any]]:
        return [
            {
                "id": c.gid,
                "name": c.name,
                "type": type(c.call.module).__name__,
                "parent": c.parent.gid if c.parent else None,
            }
            for c in self.calls.values()
        ]

    @staticmethod
    def _in_module(node: dict[str, Any], call: _Call | None) -> None:
        node["module"] = call.name if call else None
        node["module_id"] = call.gid if call else None
        node["module_path"] = list(call.path) if call else []

    # --- labels ----------------------------------------------------------------------------
    def _term(self, gid: str, template: str, children: list[str], attrs: dict[str, str]) -> None:
        self.terms[gid] = (template, children, attrs)
        self.labels[gid] = self.render(gid)

    def render(self, gid: str, limit: int = LABEL_MAX) -> str:
        """The label of gid: its expression at the greatest depth that fits in ``limit``
        (inner parts elided as ``…``; the outermost operation is always shown). Each step
        deeper only lengthens the text, so this stops within ``limit`` characters' work."""
        key = (gid, -limit)  # (depths are positive: the same memo holds whole labels)
        known = self._inner.get(key)
        if known is not None:
            return known
        text = self._render(gid, limit)
        self._inner[key] = text
        return text

    def _render(self, gid: str, limit: int) -> str:
        text = self._at_depth(gid, 1, top=True) or ""
        for depth in range(2, 64):
            if "…" not in text:
                break  # nothing left to expand
            deeper = self._at_depth(gid, depth, top=True)
            if deeper is None or len(deeper) > limit:
                break
            text = deeper
        return text

    def _at_depth(self, gid: str, depth: int, top: bool = False) -> str | None:
        """gid's text with ``depth`` levels of operations shown; inside another label (not
        ``top``), None once it is longer than any label may be (EXPRESSION_MAX): the label
        holding it would be too, so no one reads it, and a shared subexpression (an unrolled
        RNN's hidden state) is not written out once per path to it. Memoised per depth."""
        if not top:
            key = (gid, depth)
            if key in self._inner:
                return self._inner[key]
            text = self._inner[key] = self._expand(gid, depth, False)
            return text
        return self._expand(gid, depth, True)

    def _expand(self, gid: str, depth: int, top: bool) -> str | None:
        template, children, attrs = self.terms[gid]
        if not children:
            return template
        parts = dict(attrs)
        for key, child in zip("abc", children, strict=False):
            if child not in self.terms or not self.terms[child][1]:
                parts[key] = self.labels[child]  # a name, a constant: never elided
            else:
                part = self._at_depth(child, depth - 1) if depth > 1 else "…"
                if part is None:
                    return None  # too long to be read: so is this
                parts[key] = part
        if not top and all(parts.get(k) == "…" for k in "abc"[: len(children)]):
            return "…"  # nothing of it would be shown but its operator: … · … is …
        text = _fill(template, parts)
        return None if not top and len(text) > EXPRESSION_MAX else text

    # --- nodes -----------------------------------------------------------------------------
    def _add(self, node: dict[str, Any]) -> str:
        self.nodes.append(node)
        self.by_id[node["id"]] = node
        return str(node["id"])

    def _new_id(self) -> str:
        return f"n{len(self.nodes)}"

    def leaf(self, x: Any, call: _Call | None = None) -> str:
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
            owner, key_name = self._owner(x, call)
            if name:
                label = name
            elif owner is not None:
                label = f"{owner.name}.{key_name}"
            else:
                label = self._const_label(value) or f"tensor {list(value.shape)}"
            node = {
                "id": gid,
                "name": name,
                "label": label,
                "ref": ref(label),
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
            self._in_module(node, owner)
            self._add(node)
            self.tensors[gid] = x
        else:  # a Python number used as an operand
            gid = self._new_id()
            label = fmt_number(float(x)) if isinstance(x, int | float | np.number) else str(x)
            node = {
                "id": gid,
                "name": None,
                "label": label,
                "ref": ref(label),
                "op": "constant",
                "grad_fn": None,
                "is_leaf": True,
                "requires_grad": False,
                "kind": "const",
                "untracked_reason": "a Python number (constants are not tracked)",
                "shape": [],
                "dtype": "float32" if isinstance(x, float) else "int64",
                "value": num(float(x)) if isinstance(x, int | float) else None,
                "grad": None,
            }
            self._in_module(node, None)
            self._add(node)
        self._term(gid, label, [], {})
        return gid

    def _owner(self, x: Tensor, call: _Call | None) -> tuple[_Call | None, str]:
        """The exported call of :func:`owning_call` (the call x is labelled by), and x's key."""
        found, key = owning_call(x, call.call if call is not None else None)
        return (self.call(found) if found is not None else None), key

    @staticmethod
    def _const_label(value: Any) -> str | None:
        v = scalar(value)
        return fmt_number(v) if v is not None else None

    def op_node(self, node: Node) -> str:
        scope = getattr(node, "module", None)
        call = self.call(scope) if scope is not None else None
        gid_inputs = [self.ref(x, call, node.seq) for x in node.inputs]
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
        numbers = {
            k: fmt_number(float(v))
            for k, v in attrs.items()
            if isinstance(v, int | float) and not isinstance(v, bool)
        }
        self.terms[gid] = (node.op.symbol, gid_inputs, numbers)
        expr = _fill(
            node.op.symbol, {**numbers, **dict(zip("abc", self._full(gid_inputs), strict=False))}
        )
        produced_by = self.call_of_output.get(id(node))
        if produced_by is not None:  # the output of a module call reads as the call
            known = [g for g in map(self._graph_id, produced_by.call.inputs) if g is not None]
            slots = ", ".join(f"{{{k}}}" for k in "abc"[: len(known)])
            template = f"{produced_by.name}({slots})"
            if len(known) > 3:
                known, template = known[:1], f"{produced_by.name}({{a}}, …)"
            self.terms[gid] = (template, known, {})
        label = name or self.render(gid)
        self.labels[gid] = label
        if name:
            self.terms[gid] = (name, [], {})
            for limit in (LABEL_MAX, EXPRESSION_MAX):  # inside others, it reads as its name
                self._inner.pop((gid, -limit), None)
        value = getattr(node, "out_value", None)
        if value is None:
            value = out._data if out is not None else None
        grad = self.node_grads.get(id(node))
        entry = {
            "id": gid,
            "name": name,
            "label": label,
            "ref": ref(label),
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
            "retains_grad": bool(out.retains_grad) if out is not None else False,
        }
        self._in_module(entry, call)
        self._add(entry)
        if out is not None:
            self.tensors[gid] = out
        for i, src in enumerate(gid_inputs):
            self.edges.append({"src": src, "dst": gid, "arg": i})
        for src, arg in extra:
            self.edges.append({"src": src, "dst": gid, "arg": arg})
        return gid

    def _graph_id(self, x: Any) -> str | None:
        """The id of the node that shows tensor x, if it is in the graph."""
        if not isinstance(x, Tensor):
            return None
        if x.grad_fn is not None:
            return self.ids.get(id(x.grad_fn))
        return self.ids.get(id(x))

    def _full(self, gids: list[str]) -> list[str]:
        """Each node's expression as ``expression`` shows it (elided only beyond
        EXPRESSION_MAX characters)."""
        return [self.render(g, limit=EXPRESSION_MAX) for g in gids]

    def ref(self, x: Any, call: _Call | None = None, seq: int | None = None) -> str:
        """The graph id of input x (as the node numbered ``seq`` recorded it)."""
        fn = edge(x, seq) if seq is not None else getattr(x, "grad_fn", None)
        if fn is not None:
            gid = self.ids.get(id(fn))
            if gid is not None:
                return gid
            if self.cut is not None:
                return self.omitted(x, fn)
        return self.leaf(x, call)

    def omitted(self, x: Tensor, fn: Node) -> str:
        """A tensor whose history the drawing budget left out: drawn with its value and
        gradient, as the end of what is drawn (one node however many drawn nodes use it)."""
        gid = self._new_id()
        self.ids[id(fn)] = gid
        label = x._name or "⋯"
        node = {
            "id": gid,
            "name": x._name,
            "label": label,
            "ref": ref(label),
            "op": "omitted",
            "grad_fn": fn.name(),
            "is_leaf": False,
            "requires_grad": True,
            "kind": "omitted",
            "untracked_reason": None,
            "expression": "its history is not drawn (budget: max_graph_nodes)",
            "shape": list(x._data.shape),
            "dtype": str(x.dtype),
            "value": summarise(x._data),
            "grad": summarise(self.node_grads.get(id(fn))),
        }
        self._in_module(node, None)
        self._add(node)
        self._term(gid, label, [], {})
        return gid

    def error_node(self, op: str, inputs: tuple[Any, ...], scope: ModuleCall | None) -> str:
        """The failing op of a forward error: its operands' nodes, and one node for it (in
        the module call it ran in, if any)."""
        call = self.call(scope) if scope is not None else None
        gid_inputs = [self.ref(x, call) for x in inputs]
        gid = self._new_id()
        row = OPS.get(op)
        operands = ", ".join("{" + k + "}" for k in "abc"[: len(gid_inputs)])
        template = row.symbol if row is not None else f"{op}({operands})"
        self.terms[gid] = (template, gid_inputs, {})
        label = self.render(gid)
        self.labels[gid] = label
        full = dict(zip("abc", self._full(gid_inputs), strict=False))
        node = {
            "id": gid,
            "name": None,
            "label": label,
            "ref": ref(label),
            "op": op,
            "grad_fn": None,
            "is_leaf": False,
            "requires_grad": False,
            "kind": "error",
            "untracked_reason": None,
            "expression": _fill(template, full),
            "shape": [],
            "dtype": "",
            "value": None,
            "grad": None,
            "operand_shapes": [list(np.shape(getattr(x, "_data", x))) for x in inputs],
        }
        self._in_module(node, call)
        self._add(node)
        for i, src in enumerate(gid_inputs):
            self.edges.append({"src": src, "dst": gid, "arg": i})
        return gid

    def graph(
        self, root_id: str | None, walk: list[dict[str, Any]], root_label: str
    ) -> dict[str, Any]:
        graph: dict[str, Any] = {
            "nodes": self.nodes,
            "edges": self.edges,
            "walk": walk,
            "root": root_id,
            "root_label": root_label,
            "modules": self.modules(),
        }
        if self.cut is not None:
            total, counted_to, budget = self.cut
            graph["truncated"] = {
                "drawn_nodes": len(self.nodes),
                "total_nodes": total,
                "more_than": total >= counted_to,  # counting stopped there
                "max_graph_nodes": budget,
            }
        return graph


def topo_ascending(
    roots: Iterable[Node | None], max_nodes: int | None = None, ordered: bool = True
) -> tuple[list[Node], bool]:
    """The nodes that produced ``roots``, in recording order, and whether some were left out.

    With ``max_nodes`` (the drawing budget), the nodes nearest the roots are taken, breadth
    first, while they and the leaves and constants feeding them number at most ``max_nodes``;
    the inputs of the drawn nodes whose history is left out are drawn as ``omitted`` nodes
    (:meth:`Exporter.ref`)."""
    seen: set[int] = set()
    found: list[Node] = []
    if max_nodes is None:
        stack = [r for r in roots if r is not None]
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            found.append(node)
            for x in node.inputs:
                fn = edge(x, node.seq)
                if fn is not None:
                    stack.append(fn)
        found.sort(key=lambda n: n.seq)
        return found, False
    queue = deque(r for r in roots if r is not None)
    drawn = 0
    cut = False
    others: set[int] = set()  # leaves and constants already counted
    while queue:
        node = queue.popleft()
        if id(node) in seen:
            continue
        inputs = node.inputs
        new_others = 1 if node.op.name in ("pow", "rpow") else 0  # its constant is drawn too
        for x in inputs:
            if not isinstance(x, Tensor):
                new_others += 1  # each Python number is a node of its own
            elif edge(x, node.seq) is None and id(x) not in others:
                new_others += 1
        if drawn + 1 + new_others > max_nodes and found:  # the root is always drawn
            cut = True
            break
        seen.add(id(node))
        found.append(node)
        drawn += 1 + new_others
        for x in inputs:
            fn = edge(x, node.seq)
            if fn is None:
                others.add(id(x))
            elif id(fn) not in seen:
                queue.append(fn)
    if ordered:
        found.sort(key=lambda n: n.seq)
    return found, cut


def count_nodes(roots: Iterable[Node | None], limit: int) -> int:
    """How many nodes (ops, leaves and constants) produced ``roots``, counted up to ``limit``
    (a graph too big to draw is counted to say what was left out, not walked without end)."""
    seen: set[int] = set()
    stack = [r for r in roots if r is not None]
    count = 0
    while stack and count < limit:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        count += 1
        for x in node.inputs:
            fn = edge(x, node.seq)
            if fn is not None:
                stack.append(fn)
            elif id(x) not in seen:
                seen.add(id(x))
                count += 1
    return min(count, limit)


def _exporter(
    root: Any,
    tensors: Iterable[Any],
    node_grads: dict[int, Any] | None,
    frozen: dict[int, Any] | None = None,
    max_nodes: int | None = None,
    since: int = -1,
    topo: tuple[list[Node], bool] | None = None,
) -> Exporter:
    """Every node that produced these tensors (or, with ``max_nodes``, those nearest them), in
    recording order (module calls first); with ``since``, only those recorded from that
    sequence number on (the earlier ones' tensors become inputs, drawn like leaves). ``topo``:
    ``topo_ascending`` of the tensors' nodes, when the caller has it already."""
    ex = Exporter(root, node_grads or {}, frozen)
    roots = [getattr(t, "grad_fn", None) for t in tensors]
    nodes, cut = topo if topo is not None else topo_ascending(roots, max_nodes)
    if cut and max_nodes is not None:
        bound = COUNT_BOUND * max_nodes
        ex.cut = (count_nodes(roots, bound), bound, max_nodes)
    if since >= 0:
        nodes = [n for n in nodes if n.seq >= since]
    for node in nodes:  # name the module calls before any label refers to them
        scope = getattr(node, "module", None)
        if scope is not None:
            ex.call(scope)
    ex.outputs(nodes)
    for node in nodes:
        ex.op_node(node)
    return ex


def reachable(root: Node) -> list[Node]:
    """Every node a backward from ``root`` reaches (a plain walk, in no particular order)."""
    nodes = []
    seen = {id(root)}
    stack = [root]
    while stack:
        node = stack.pop()
        nodes.append(node)
        for x in node.inputs:
            up = edge(x, node.seq)
            if up is not None and id(up) not in seen:
                seen.add(id(up))
                stack.append(up)
    return nodes


def _copies(x: Tensor, grads: dict[int, Any]) -> tuple[Any, Any]:
    grad = x.grad
    if grad is not None:
        held = grads.get(id(x))
        grad = held if held is not None else grad._data.copy()
    return x._data.copy(), grad


def _freeze_walked(steps: list[WalkStep], grads: dict[int, Any]) -> dict[int, Any] | None:
    """:func:`freeze_leaves` from a pass's walk: the leaves its steps' nodes read, when the
    walk holds every node they lead to (None otherwise: then the graph is walked)."""
    walked = {id(step.node) for step in steps}
    frozen: dict[int, Any] = {}
    for step in steps:
        node = step.node
        seq = node.seq
        for x in node.inputs:
            if x.__class__ is not Tensor and not isinstance(x, Tensor):
                continue
            fn = x.grad_fn if x._fn_history is None else edge(x, seq)
            if fn is None:
                if id(x) not in frozen:
                    frozen[id(x)] = _copies(x, grads)
            elif id(fn) not in walked:
                return None  # a node the backward did not reach: walk the graph instead
    return frozen


def freeze_leaves(
    root: Any,
    steps: list[WalkStep] | None = None,
    max_nodes: int | None = None,
    grads: dict[int, Any] | None = None,
    leaves: dict[int, Any] | None = None,
) -> dict[int, Any]:
    """Copies of the values and gradients of the leaves under ``root`` (those a graph drawn
    within ``max_nodes`` shows, or more), keyed by ``id``, so that a pass can be exported later
    as it was (optimizers change leaves in place). Runs once per backward pass of a long loop:
    with the pass's walk ``steps`` (every node of a pass that fits the drawing budget), the
    leaves are read off the walk, without walking the graph again. ``grads``: arrays that the
    walk holds (no one writes into them) equal to leaves' gradients now, kept instead of
    copies. ``leaves``: every leaf the pass's nodes read, by ``id`` (collected by a backward
    that ran unwalked and cannot be replayed, recorder.replay), copied all, without walking the
    graph. (A pass that can be replayed keeps copies of its leaves' values only: the backward
    loop's recorder, recorder.passlog's ``PassLog.ran_light``, makes them.)"""
    grads = grads or {}
    if leaves is not None:
        return {k: _copies(x, grads) for k, x in leaves.items()}
    fn = root.grad_fn
    if fn is None:
        return {id(root): _copies(root, grads)}
    if steps and steps[0].node is fn and (max_nodes is None or len(steps) <= max_nodes):
        walked = _freeze_walked(steps, grads)
        if walked is not None:
            return walked
    frozen: dict[int, Any] = {}
    if max_nodes is not None:
        nodes, _ = topo_ascending([fn], max_nodes, ordered=False)
    else:
        nodes = reachable(fn)
    for node in nodes:
        for x in node.inputs:
            if edge(x, node.seq) is None and isinstance(x, Tensor) and id(x) not in frozen:
                frozen[id(x)] = _copies(x, grads)
    return frozen


def export_with_exporter(
    root: Any,
    steps: list[WalkStep] | None,
    node_grads: dict[int, Any] | None,
    frozen: dict[int, Any] | None = None,
    max_nodes: int | None = None,
    topo: tuple[list[Node], bool] | None = None,
    memo: dict[Any, Any] | None = None,
) -> tuple[dict[str, Any], Exporter]:
    """:func:`export`, with the exporter that numbered and labelled the graph (recorder.pass_export
    reuses its structure for a pass like this one)."""
    ex = _exporter(root, [root], node_grads, frozen, max_nodes, topo=topo)
    root_id = ex.ids[id(root.grad_fn)] if root.grad_fn is not None else ex.leaf(root)
    node = ex.by_id[root_id]
    node["kind"] = "output"
    if node["grad"] is None and steps:
        node["grad"] = summarise(steps[0].grad_output)
    root_label = ex.labels[root_id] if root._name else "L"
    drawn = ex.input_ids  # the op nodes drawn (an omitted node's step is not)
    walk = [walk_step(ex, s, root_label, root_id, memo) for s in steps or [] if id(s.node) in drawn]
    return ex.graph(root_id, walk, root_label), ex


def export_focus(
    exc: BaseException, max_nodes: int | None = None
) -> tuple[dict[str, Any], str | None] | None:
    """For an autograd error carrying ``autograd_focus``: the graph of its root and the id of
    the node concerned (the freed node, the tensor changed in place, the root without grad)."""
    focus = getattr(exc, "autograd_focus", None)
    if focus is None:
        return None
    root, target = focus
    graph, ex = export_with_exporter(root, None, None, None, max_nodes)
    node_id = ex.ids.get(id(target))
    if node_id is None:  # a tensor: the graph node that shows it
        node_id = next((gid for gid, t in ex.tensors.items() if t is target), None)
    return graph, node_id


def export(
    root: Any,
    steps: list[WalkStep] | None = None,
    node_grads: dict[int, Any] | None = None,
    frozen: dict[int, Any] | None = None,
    max_nodes: int | None = None,
) -> dict[str, Any]:
    """The graph that produced ``root``, with the recorded walk if one is given; ``frozen``
    replaces leaves' values and gradients (see :func:`freeze_leaves`); with ``max_nodes``, only
    the nodes nearest ``root`` (the graph then says what was left out in ``truncated``)."""
    return export_with_exporter(root, steps, node_grads, frozen, max_nodes)[0]


def _union(tensors: Iterable[Any], max_nodes: int | None = None) -> tuple[Exporter, str | None]:
    """The graphs of these tensors together (leaves included), and the id of the one recorded
    last (the root the page centres on), or None when there is none."""
    live = [t for t in tensors if isinstance(t, Tensor)]
    ex = _exporter(None, live, None, None, max_nodes)
    last: tuple[int, str] | None = None
    for t in live:
        gid = ex.ref(t)
        seq = t.grad_fn.seq if t.grad_fn is not None else -1
        if last is None or seq >= last[0]:
            last = (seq, gid)
    return ex, last[1] if last is not None else None


def export_tensors(tensors: Iterable[Any], max_nodes: int | None = None) -> dict[str, Any]:
    """The graph of these tensors (a program that ends without backward): no walk."""
    ex, root_id = _union(tensors, max_nodes)
    return ex.graph(root_id, [], ex.labels[root_id] if root_id is not None else "L")


def export_error(
    tensors: Iterable[Any], failed_op: tuple[str, tuple[Any, ...]], max_nodes: int | None = None
) -> tuple[dict[str, Any], str]:
    """The graph recorded up to a forward error: these tensors' graphs, the failing op's
    operands, and one node of kind ``"error"`` for the op (``exc.failed_op``, see
    engine.tensor.failed) with edges from its operands. Returns the graph and that node's id."""
    op, inputs = failed_op
    recorded = [x for x in inputs if isinstance(x, Tensor) and x.grad_fn is not None]
    ex, _ = _union([*tensors, *recorded], max_nodes)  # (leaf operands join their modules' names)
    gid = ex.error_node(op, tuple(inputs), getattr(failed_op, "module", None))
    return ex.graph(gid, [], ex.labels[gid]), gid


# ---- a notebook cell's graph: what was recorded from a sequence number on ----------------------


def _mark_earlier(ex: Exporter, nodes: Iterable[Node], since: int) -> None:
    """``"earlier": true`` on each node recorded before ``since``, and on each tensor made
    before it that is drawn as an input (a leaf-like box for a tensor that has a grad_fn)."""
    for node in nodes:
        gid = ex.ids.get(id(node))
        if node.seq < since and gid is not None:
            ex.by_id[gid]["earlier"] = True
    for gid, t in ex.tensors.items():
        fn = t.grad_fn
        if fn is not None and fn.seq < since and ex.by_id[gid]["op"] == "leaf":
            ex.by_id[gid]["earlier"] = True


def export_since(
    tensors: Iterable[Any], since: int, max_nodes: int | None = None
) -> dict[str, Any]:
    """The graph of the operations recorded from sequence number ``since`` on (a notebook
    cell's) that made these tensors, no walk: an operation recorded before ``since`` is not
    drawn, and the tensor it made is an input, like a leaf, marked ``"earlier": true``. The
    root is the tensor recorded last. Tensors recorded before ``since`` are left out."""
    live = [
        t
        for t in tensors
        if isinstance(t, Tensor) and t.grad_fn is not None and t.grad_fn.seq >= since
    ]
    ex = _exporter(None, live, None, None, max_nodes, since=since)
    root_id = None
    if live:
        root_id = ex.ref(max(live, key=lambda t: t.grad_fn.seq if t.grad_fn is not None else -1))
    _mark_earlier(ex, [], since)
    return ex.graph(root_id, [], ex.labels[root_id] if root_id is not None else "L")


def export_pass_since(
    root: Any,
    steps: list[WalkStep] | None = None,
    node_grads: dict[int, Any] | None = None,
    frozen: dict[int, Any] | None = None,
    *,
    since: int,
    max_nodes: int | None = None,
) -> dict[str, Any]:
    """:func:`export` of a backward pass, whole (its walk is what ran), with the nodes
    recorded before ``since`` (by an earlier notebook cell) marked ``"earlier": true``."""
    graph, ex = export_with_exporter(root, steps, node_grads, frozen, max_nodes)
    _mark_earlier(ex, topo_ascending([root.grad_fn], max_nodes)[0], since)
    return graph
