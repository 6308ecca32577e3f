"""Compare with PyTorch: each node of an observed pass checked against PyTorch's own rules.

For every result ``c`` the program's op label names a PyTorch operation (``+ * - / **``, and
for one input the labels the op table's rows declare: ``tanh``, ``relu`` ...). That operation
is replayed with the engine's tensors on ``c``'s inputs (float64 leaves that require grad):
the replayed value must equal the program's ``data`` (else ``c`` is *not comparable*: the
label does not say what the program computed), and one backward of it from the gradient ``c``
received in the pass gives what PyTorch's rule sends to each input. A node *agrees* when the gradient it received in the pass (its ``grad`` after the
pass minus before: earlier passes' leftovers do not count) equals the sum of what PyTorch's
rules send it from its consumers; the root must hold PyTorch's seed, 1. Checking each node
against its own consumers' gradients, not against a whole fresh backward, puts a wrong rule's
mark exactly where it does its harm: the seed's ``=`` instead of ``+=`` in ``__mul__`` marks
``err`` (−6 where PyTorch's rule sends −12), and everything below it agrees with the (wrong)
gradient it was given.

Agreement is within √ε of the data's precision relative to the size of the numbers involved
(the values, or the contributions summed and the gradients they came from), far below any
wrong rule and far above rounding.
"""

from __future__ import annotations

import functools
import math
import re
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import engine
from engine.ops import OPS
from server.program.values.graph import json_value, page_number
from server.program.values.record import ValuePass

#: the engine as a program sees it (``torch``): its functions are the registry's, made at
#: import, which a type checker does not see
torch: Any = engine

AGREES, DIFFERS, NOT_COMPARABLE = "agrees", "differs", "not_comparable"
#: holds this pass's gradient, but got it by replacing what an earlier pass left (not adding)
REPLACED = "replaced"
_POW_LABEL = re.compile(r"^(?:\*\*|\^|pow)\s*(-?\d+(?:\.\d+)?(?:e-?\d+)?)$")


def _reduce(f: Callable[[Any, Any], Any]) -> Callable[[list[Any]], Any]:
    return lambda xs: functools.reduce(f, xs)


def replay_op(label: str | None, arity: int) -> Callable[[list[Any]], Any] | None:
    """The engine operation an op label names, for ``arity`` inputs (None when unknown)."""
    op = (label or "").strip()
    low = op.lower()
    if arity >= 2 and low in ("+", "add", "sum"):
        return _reduce(lambda a, b: a + b)
    if arity >= 2 and low in ("*", "mul", "prod"):
        return _reduce(lambda a, b: a * b)
    if arity == 2:
        binary: dict[str, Callable[[Any, Any], Any]] = {
            "-": lambda a, b: a - b,
            "sub": lambda a, b: a - b,
            "/": lambda a, b: a / b,
            "div": lambda a, b: a / b,
            "truediv": lambda a, b: a / b,
            "**": lambda a, b: a**b,
            "^": lambda a, b: a**b,
            "pow": lambda a, b: a**b,
            "@": lambda a, b: a @ b,
            "matmul": lambda a, b: a @ b,
            "dot": lambda a, b: a @ b,
        }
        f = binary.get(low)
        return (lambda xs: f(xs[0], xs[1])) if f is not None else None
    if arity != 1:
        return None
    power = _POW_LABEL.match(low)
    if power:
        p = float(power.group(1))
        k: float | int = int(p) if p.is_integer() else p
        return lambda xs: xs[0] ** k
    g = _unary_labels().get(low)
    return (lambda xs: g(xs[0])) if g is not None else None


@functools.cache
def _unary_labels() -> dict[str, Callable[[Any], Any]]:
    """Labels of one input: those the op table's rows declare (``Op.compare``: ``tanh``,
    ``exp``, ``relu``, ``-`` ...), each replayed with its row's function, and the reductions."""
    labels: dict[str, Callable[[Any], Any]] = {
        label: getattr(torch, op.function[0]) for op in OPS.values() for label in op.compare
    }
    labels["sum"] = lambda a: a.sum()
    labels["mean"] = lambda a: a.mean()
    return labels


_COMMUTATIVE = {"+", "add", "sum", "*", "mul", "prod"}


def _eps(v: Any) -> float:
    dtype = getattr(v, "dtype", None)
    if dtype is not None and dtype.kind == "f" and dtype.itemsize < 8:
        return float(np.finfo(dtype).eps)
    return float(np.finfo(np.float64).eps)


def _abs_max(v: Any) -> float:
    a = np.abs(np.asarray(v, dtype=np.float64))
    finite = a[np.isfinite(a)]
    return float(finite.max()) if finite.size else 0.0


def close(user: Any, expected: Any, scale: float, eps: float) -> bool:
    """``user`` equals ``expected`` within √ε · scale (NaN only matches NaN)."""
    try:
        u = np.asarray(user, dtype=np.float64)
        e = np.asarray(expected, dtype=np.float64)
        u, e = np.broadcast_arrays(u, e)
    except (TypeError, ValueError):
        return False
    if not np.array_equal(np.isnan(u), np.isnan(e)):
        return False
    ok = ~np.isnan(u)
    if not np.array_equal(u[ok & ~np.isfinite(u)], e[ok & ~np.isfinite(u)]):
        return False
    fin = ok & np.isfinite(u) & np.isfinite(e)
    if not fin.any():
        return True
    return bool(np.max(np.abs(u[fin] - e[fin])) <= math.sqrt(eps) * scale + 1e-300)


def _received(record: ValuePass, k: int) -> Any:
    """What node k's gradient gained in this pass (None counts as zero)."""
    end, start = record.grads_end[k], record.grads_start[k]
    end = 0.0 if end is None else end
    if start is None:
        return end
    try:
        return end - start
    except Exception:
        return end


def _local_vjps(
    record: ValuePass, c: int, upstream: Any
) -> tuple[list[np.ndarray] | None, str | None]:
    """What PyTorch's rule for node c sends to each input, given c's gradient ``upstream``."""
    parents = record.parents[c]
    label = record.ops[c]
    fn = replay_op(label, len(parents))
    if fn is None:
        shown = repr(label) if label else "(no op label)"
        return None, f"the op {shown} with {len(parents)} input(s) has no PyTorch replay"
    orders = [list(range(len(parents)))]
    if len(parents) == 2 and record.unordered and (label or "").lower() not in _COMMUTATIVE:
        orders.append([1, 0])  # parents kept in a set: their order is lost
    data = record.datas[c]
    for order in orders:
        ins = [
            torch.tensor(
                np.asarray(record.datas[parents[a]], dtype=np.float64),
                dtype=torch.float64,
                device="cpu",
                requires_grad=True,
            )
            for a in order
        ]
        with torch.enable_grad():
            out = fn(ins)
        value = out.detach().numpy()
        scale = _abs_max(value) + sum(_abs_max(record.datas[j]) for j in parents)
        if np.shape(value) != np.shape(data) or not close(data, value, scale, _eps(data)):
            continue
        up = np.broadcast_to(np.asarray(upstream, dtype=np.float64), value.shape).copy()
        grads = torch.autograd.grad(
            out, ins, grad_outputs=torch.tensor(up, dtype=torch.float64, device="cpu"),
            allow_unused=True,
        )  # fmt: skip
        sent: list[np.ndarray] = [np.zeros(())] * len(parents)
        for a, g in zip(order, grads, strict=True):
            sent[a] = np.zeros(()) if g is None else g.detach().numpy()
        return sent, None
    return None, "its value is not what PyTorch's op gives for the same inputs"


def _why(got: Any, expected: Any, held: np.ndarray, scale: float, eps: float) -> str:
    """A differing node, in words: what it received against what PyTorch's rules send."""
    if np.any(held != 0) and close(got + held, expected, scale + _abs_max(held), eps):
        return (
            f"a rule replaced the gradient it held ({_text(held)}) instead of adding to it: "
            "PyTorch accumulates with +="
        )
    return f"received {_text(got)} in this pass; PyTorch's rules send {_text(expected)}"


def _text(v: Any) -> str:
    a = np.asarray(v, dtype=np.float64)
    return page_number(float(a)) if a.size == 1 else f"an array of shape {list(a.shape)}"


def compare_pass(record: ValuePass, graph: dict[str, Any], deadline: float) -> None:
    """Add ``compare``, ``compare_grad`` and ``compare_reason`` to each node of ``graph``, and
    the counts to ``graph["compare"]``; stop (and say so) at ``deadline`` (perf_counter)."""
    n = len(record.datas)
    expected: list[Any] = [0.0] * n
    scale = [0.0] * n
    unknown: dict[int, str] = {}  # node -> why what it should have received is unknown
    own: dict[int, str] = {}  # result -> why its own replay failed
    labels = [node["label"] for node in graph["nodes"]]
    for c in range(n):
        parents = record.parents[c]
        if not parents:
            continue
        if time.perf_counter() > deadline:
            graph["compare"] = {"skipped": "out of time (budget: wall_clock_s)"}
            return
        upstream = _received(record, c)
        try:
            sent, reason = _local_vjps(record, c, upstream)
        except Exception as exc:  # the replay itself failed (shapes PyTorch refuses ...)
            sent, reason = None, f"PyTorch could not replay it ({type(exc).__name__}: {exc})"
        if sent is None:
            own[c] = reason or "no replay"
            for j in set(parents):
                unknown.setdefault(j, f"its consumer {labels[c]} cannot be replayed")
            continue
        up = _abs_max(upstream)
        for j, g in zip(parents, sent, strict=True):
            expected[j] = expected[j] + g
            scale[j] += _abs_max(g) + up
    root = n - 1
    root_data = record.datas[root]
    if np.size(root_data) == 1:
        expected[root], scale[root] = 1.0, 1.0
    else:
        unknown[root] = "PyTorch needs an explicit gradient for a non-scalar root"
    counts = {AGREES: 0, DIFFERS: 0, REPLACED: 0, NOT_COMPARABLE: 0}
    for k, node in enumerate(graph["nodes"]):
        reason = own.get(k) or unknown.get(k)
        if reason is not None:
            status = NOT_COMPARABLE
            node["compare_grad"] = None
        else:
            got = _received(record, k)
            eps = _eps(record.datas[k])
            status = AGREES if close(got, expected[k], scale[k], eps) else DIFFERS
            start = record.grads_start[k]
            held = np.asarray(0.0 if start is None else start, dtype=np.float64)
            # what .grad would hold after this pass with PyTorch's rules (like node["grad"])
            node["compare_grad"] = json_value(held + np.asarray(expected[k], dtype=np.float64))
            if status == DIFFERS:
                reason = _why(got, expected[k], held, scale[k], eps)
                if reason.startswith("a rule replaced"):
                    # right for this pass, wrong only across passes: not the red of a wrong
                    # gradient (the lesson's `=` shows in red exactly where it halves one)
                    status = REPLACED
        node["compare"] = status
        node["compare_reason"] = reason
        counts[status] += 1
    graph["compare"] = counts
