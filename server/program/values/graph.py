"""An observed pass of the program's own autograd as the API's ``Graph`` (engine/graph.py's shape).

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
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

import numpy as np

from engine.graph import LABEL_MAX, summarise
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


_WORDS = {"+": "add", "*": "mul", "-": "sub", "/": "div", "**": "pow", "@": "matmul"}


def _word(op: str | None) -> str:
    """An op label as a word for ``add#6`` (a too-long expression's short label)."""
    label = (op or "").strip()
    if label.startswith("**"):
        return "pow"
    return _WORDS.get(label, label if label.isidentifier() else "op")


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


def _paren(label: str) -> str:
    return f"({label})" if " " in label or label.startswith("−") else label


def page_number(v: float) -> str:
    """A number as the page writes it (formatScalar in static/src/format.ts): integers plainly,
    else four significant digits, ``5.81e−4`` below 1e−3 and from 1e6, a true minus. Rounded as
    JavaScript rounds (half away from zero on the exact binary value; Python's format rounds an
    exact tie such as −23.625 to even), so a caption and the node box it describes agree."""
    if v != v:
        return "NaN"
    if v in (math.inf, -math.inf):
        return "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    sign = "−" if v < 0 else ""
    a = abs(v)
    if v == int(v) and a < 1e6:
        return sign + str(int(a))
    if _exact_tie(a):
        return sign + _rounded_half_up(a)
    if a < 1e-3 or a >= 1e6:
        mantissa, power = f"{a:.3e}".split("e")
        return f"{sign}{_shortest(float(mantissa))}e{int(power)}".replace("-", "−")
    text = f"{a:.4g}"  # no trailing zeros: as JavaScript writes it, unless in exponent style
    return sign + (text if "e" not in text else _shortest(float(text)))


def _shortest(x: float) -> str:
    """JavaScript's String(number) for a number of ordinary size: ``12350``, ``0.08333``."""
    return str(int(x)) if x == int(x) else repr(x)


def _exact_tie(a: float) -> bool:
    """Whether ``a`` lies exactly halfway between two four-digit numbers (``23.625``): only
    then do the two languages round differently. Such a number's shortest repr is its five
    significant digits ending in 5; the exact check is left to Decimal."""
    text = repr(a)
    if len(text) > 12:  # most numbers: a long repr is never five digits
        return False
    text = text.split("e")[0].replace(".", "").strip("0")
    return len(text) == 5 and text.endswith("5") and _rounded_half_up(a) != _shortest_4g(a)


def _shortest_4g(a: float) -> str:
    if a < 1e-3 or a >= 1e6:
        mantissa, power = f"{a:.3e}".split("e")
        return f"{_shortest(float(mantissa))}e{int(power)}".replace("-", "−")
    return _shortest(float(f"{a:.4g}"))


def _rounded_half_up(a: float) -> str:
    """Four significant digits of the exact value of ``a``, a tie rounded up (as JavaScript)."""
    exact = Decimal(a)
    exponent = exact.adjusted()
    if a < 1e-3 or a >= 1e6:
        mantissa = exact.scaleb(-exponent).quantize(Decimal("0.001"), ROUND_HALF_UP)
        if mantissa >= 10:
            mantissa, exponent = (
                (mantissa / 10).quantize(Decimal("0.001"), ROUND_HALF_UP),
                exponent + 1,
            )
        return f"{_plain(mantissa)}e{exponent}".replace("-", "−")
    return _plain(exact.quantize(Decimal(1).scaleb(exponent - 3), ROUND_HALF_UP))


def _plain(d: Decimal) -> str:
    """A decimal without trailing zeros or an exponent (JavaScript's String(Number(text)))."""
    return format(d.normalize(), "f")


class _Numbers(dict[float, str]):
    """page_number, remembered (a pass repeats the same few numbers many times)."""

    def __missing__(self, v: float) -> str:
        text = page_number(v)
        self[v] = text
        return text


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
    ``parts`` are the inputs' labels, parenthesised where needed."""
    label = (op or "").strip()
    if len(parts) == 2 and label in BINARY:
        return BINARY[label].format(a=parts[0], b=parts[1])
    if len(parts) == 1 and label in ("-", "neg"):
        return f"−{parts[0]}"
    if len(parts) == 1 and label.startswith("**"):
        return f"{parts[0]}^{label[2:]}"
    return f"{label or 'op'}({', '.join(parts)})"


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
            else:
                label = "L" if k == root else f"{_word(op)}#{k}"
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
            label = name or (fmt[f] if f is not None else f"{kind_name}#{k}")
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
    nodes[root]["kind"] = "output"
    root_label = labels[root] if names[root] else "L"
    walk = _Walk(record, ids, parens, root_label, fmt)
    return {
        "nodes": nodes,
        "edges": edges,
        "walk": [walk.step(s) for s in record.steps],
        "root": ids[root],
        "root_label": root_label,
        "pass_index": record.index,
        "value_class": kind_name,
        "complete": record.complete,
    }


class _Walk:
    """Observed calls as the walk's steps: numbers and formulas, as the engine writes them."""

    def __init__(
        self, record: ValuePass, ids: list[str], parens: list[str], root: str, fmt: _Numbers
    ) -> None:
        self.record = record
        self.ids = ids
        self.parens = parens
        self.root = root
        self.fmt = fmt

    def _num(self, v: float) -> str:
        s = self.fmt[v]
        return f"({s})" if s.startswith("−") else s

    def step(self, step: list[Any]) -> dict[str, Any]:
        if step[4] is None and not self.record.arrays and step[3] is not None:
            fast = self._numbers(step)
            if fast is not None:
                return fast
        return self._general(step)

    def _numbers(self, step: list[Any]) -> dict[str, Any] | None:
        """A step whose gradients are all plain numbers (the common case, kept lean)."""
        i, gout, before, after = step[0], step[1], step[2], step[3]
        if type(gout) is not float and type(gout) is not int:
            return None
        root, parens, fmt, ids = self.root, self.parens, self.fmt, self.ids
        out = parens[i]
        g_text = self._num(gout)
        lines: list[str] = []
        sent: list[dict[str, Any]] = []
        for arg, j in enumerate(self.record.parents[i]):
            b, a = before[arg], after[arg]
            tb, ta = type(b), type(a)
            if (tb is not float and tb is not int) or (ta is not float and ta is not int):
                return None
            delta = a - b
            to = parens[j]
            accumulates = b != 0
            if gout:
                local = fmt[delta / gout]
                shown = f"({local})" if local[0] == "−" else local
                line = f"∂{root}/∂{to} {'+=' if accumulates else '='} {shown} · {g_text} = {fmt[delta]}"
            else:
                local = "?"
                line = f"∂{root}/∂{to} {'+=' if accumulates else '='} {fmt[delta]}"
            if accumulates:
                line = f"{line}  → {fmt[a]}"
            lines.append(line)
            sent.append(
                {
                    "to": ids[j], "arg": arg, "local": local, "local_symbolic": f"∂{out}/∂{to}",
                    "grad": delta if delta - delta == 0 else json_value(float(delta)),
                    "accumulated_grad": a if a - a == 0 else json_value(float(a)),
                    "accumulates": accumulates, "formula": line,
                }
            )  # fmt: skip
        return {
            "node": ids[i],
            "grad_output": gout if gout - gout == 0 else json_value(float(gout)),
            "formula": "\n".join(lines)
            if lines
            else f"∂{root}/∂{out} reaches a node with no inputs",
            "contributions": sent,
        }

    def _general(self, step: list[Any]) -> dict[str, Any]:
        i, gout = step[0], step[1]
        root, parens, fmt = self.root, self.parens, self.fmt
        out = parens[i]
        d_out = f"∂{root}/∂{out}"
        g_num = number(gout)
        g_text = self._num(g_num) if g_num is not None else d_out
        lines: list[str] = []
        sent: list[dict[str, Any]] = []
        parents = self.record.parents[i]
        for arg, before, after in contributions(self.record, step):
            j = parents[arg]
            to = parens[j]
            delta = _minus(after, before)
            accumulates = _nonzero(before)
            d_num = number(delta)
            local = fmt[d_num / g_num] if d_num is not None and g_num else "?"
            line = f"∂{root}/∂{to} {'+=' if accumulates else '='} "
            if d_num is None:
                line += "what the rule added (see grad)"
            elif local != "?":
                shown = f"({local})" if local.startswith("−") else local
                line += f"{shown} · {g_text} = {fmt[d_num]}"
            else:
                line += fmt[d_num]
            if accumulates:
                total = number(after)
                if total is not None:
                    line += f"  → {fmt[total]}"
            lines.append(line)
            sent.append(
                {
                    "to": self.ids[j],
                    "arg": arg,
                    "local": local,
                    "local_symbolic": f"∂{out}/∂{to}",
                    "grad": json_value(delta),
                    "accumulated_grad": json_value(after),
                    "accumulates": accumulates,
                    "formula": line,
                }
            )
        return {
            "node": self.ids[i],
            "grad_output": json_value(gout),
            "formula": "\n".join(lines) if lines else f"{d_out} reaches a node with no inputs",
            "contributions": sent,
        }
