"""Practice the walk: what the learner is asked at each backward step, the right answer, and
the answers each likely mistake would give, all from the recorded walk.

At each step of a pass's walk, for each input the step sends a gradient to, the learner types
that input's gradient as it stands after the step (``answer``: the accumulated gradient; for a
node fed by several consumers, the sum so far). The page compares what they typed with the
answer and with ``mistakes``, each the value one wrong move gives, named by ``kind``:

- ``local_forgotten``: the upstream gradient passed on as it is (×local left out);
- ``local_inverted``: divided by the local derivative instead of multiplied;
- ``upstream_forgotten``: the local derivative alone (×upstream left out);
- ``accumulation``: this step's contribution alone, the earlier ones not added (``+=``);
- ``broadcast``: the gradient at the output's shape, not summed back to the input's;
- ``sign``: the answer with its sign flipped;
- ``transpose``: the answer transposed.

Every value here is the engine's (a gradient the walk recorded, its ratio to the upstream
gradient, their sums): the page only compares numbers; it never computes a gradient. A step
whose values are summarised (too large to type) or not finite asks nothing.
"""

from __future__ import annotations

import math
import re
from typing import Any

import numpy as np

#: the most numbers a learner is asked to type for one gradient
MAX_ASKED = 16
#: the order in which a wrong answer is matched: the most telling diagnosis first
KINDS = (
    "accumulation",
    "local_forgotten",
    "upstream_forgotten",
    "local_inverted",
    "broadcast",
    "transpose",
    "sign",
)


def exercises(graph: dict[str, Any]) -> list[dict[str, Any]]:
    """Per walk step (in order): ``{"step": i, "asks": [...]}``; each ask is
    ``{"to", "answer", "shape", "mistakes": [{"kind", "value"}]}``. Steps that ask nothing
    are left out."""
    out: list[dict[str, Any]] = []
    for index, step in enumerate(graph.get("walk") or []):
        asks = step_asks(step)
        if asks:
            out.append({"step": index, "asks": asks})
    return out


def step_asks(step: dict[str, Any]) -> list[dict[str, Any]]:
    """What one step asks: one question per input it sends to (two contributions to the same
    input, as in ``err * err``, are one question: the gradient after both)."""
    upstream = _array(step.get("grad_output"))
    grouped: dict[str, list[dict[str, Any]]] = {}
    for c in step.get("contributions") or []:
        grouped.setdefault(str(c.get("to")), []).append(c)
    asks = []
    for to, contributions in grouped.items():
        ask = _ask(to, contributions, upstream)
        if ask is not None:
            asks.append(ask)
    return asks


def _ask(
    to: str, contributions: list[dict[str, Any]], upstream: np.ndarray | None
) -> dict[str, Any] | None:
    answer = _array(contributions[-1].get("accumulated_grad"))
    maybe_sent = [_array(c.get("grad")) for c in contributions]
    sent = [s for s in maybe_sent if s is not None]
    if answer is None or upstream is None or len(sent) < len(maybe_sent):
        return None
    if answer.size > MAX_ASKED or upstream.size > 4 * MAX_ASKED:
        return None
    added = np.sum(sent, axis=0) if len(sent) > 1 else sent[0]
    before = answer - added  # what the earlier steps had accumulated
    mistakes: dict[str, np.ndarray] = {}

    def offer(kind: str, value: np.ndarray | None) -> None:
        if value is None or not np.all(np.isfinite(value)) or value.size > 4 * MAX_ASKED:
            return
        # the learner types the numbers in order: a mistake that types as the answer (or as
        # another mistake) teaches nothing here
        if _same(value.ravel(), answer.ravel()) or any(
            _same(value.ravel(), v.ravel()) for v in mistakes.values()
        ):
            return
        mistakes.setdefault(kind, value)

    if np.any(before != 0):
        offer("accumulation", added)
    if len(sent) > 1:  # `err * err`: one of the two contributions only
        offer("accumulation", before + sent[-1])
    fits = upstream.shape == answer.shape or upstream.ndim == 0
    local = _local(sent[-1], upstream) if fits else None
    if fits:
        offer("local_forgotten", before + len(sent) * np.broadcast_to(upstream, answer.shape))
    if local is not None:
        offer("upstream_forgotten", before + len(sent) * local)
        if np.all(local != 0):
            offer("local_inverted", before + len(sent) * upstream / local)
    if upstream.shape != answer.shape and upstream.ndim > 0:
        signed = _unsummed(added, upstream, answer.shape)
        if signed is not None:
            offer("broadcast", signed)
    if answer.ndim == 2 and answer.shape[0] * answer.shape[1] > 1:
        offer("transpose", answer.T)
    offer("sign", -answer)
    return {
        "to": to,
        "answer": answer.tolist(),
        "shape": list(answer.shape),
        "mistakes": [{"kind": k, "value": mistakes[k].tolist()} for k in KINDS if k in mistakes],
    }


def _local(sent: np.ndarray, upstream: np.ndarray) -> np.ndarray | None:
    """The local derivative of an elementwise step, as the engine's numbers give it: what it
    sent over what it received (None where that is not defined: a zero upstream gradient)."""
    if np.any(upstream == 0) or sent.shape != np.broadcast(sent, upstream).shape:
        return None
    with np.errstate(all="ignore"):
        local = sent / upstream
    return local if np.all(np.isfinite(local)) else None


def _unsummed(added: np.ndarray, upstream: np.ndarray, shape: tuple[int, ...]) -> np.ndarray | None:
    """The upstream gradient at the output's shape when summing it back over the broadcast
    axes gives what the step sent (an added bias: ±upstream): the gradient not summed."""
    lead = upstream.ndim - len(shape)
    if lead < 0 or any(
        n not in (1, upstream.shape[lead + i]) for i, n in enumerate(shape)
    ):  # not a broadcast (a matrix product's weight, say)
        return None
    axes = tuple(range(lead)) + tuple(
        lead + i for i, n in enumerate(shape) if n == 1 and upstream.shape[lead + i] != 1
    )
    summed = upstream.sum(axis=axes).reshape(shape)
    for sign in (1.0, -1.0):
        if _same(sign * summed, added):
            return sign * upstream
    return None


def _array(value: Any) -> np.ndarray | None:
    """A recorded value as float64, or None (summarised, missing, not finite)."""
    if value is None or isinstance(value, dict | str):
        return None
    try:
        a = np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    return a if np.all(np.isfinite(a)) else None


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal shapes and values to within float32 rounding (what the engine computed in)."""
    if a.shape != b.shape:
        return False
    scale = np.maximum(np.abs(a), np.abs(b))
    return bool(np.all(np.abs(a - b) <= EPS32 * scale + 1e-30))


# ---- checking a guess (the page does the same; tests/unit/practice_cases.json holds both) ----


#: a number as a learner types it (the page's minus sign "−" is read as "-")
NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
#: float32's rounding: a typed number this close (relatively) to a value is that value
EPS32 = 4 * 2.0**-23


def parse_number(text: str) -> float | None:
    """The number ``text`` spells, or None (the page parses exactly the same way)."""
    cleaned = text.strip().replace("−", "-")
    return float(cleaned) if NUMBER.match(cleaned) else None


def significant_digits(text: str) -> int:
    """How many significant digits a typed number has (``-0.00963`` has 3, ``-12`` 2,
    ``0.004000`` 4: trailing zeros count, as the learner wrote them)."""
    mantissa = text.strip().lstrip("+-−").lower().split("e")[0]
    digits = mantissa.replace(".", "").lstrip("0")
    return max(1, len(digits))


def rounds_to(typed: str, value: float) -> bool:
    """``value`` rounded to the significant digits typed is what was typed (any count)."""
    guess = parse_number(typed)
    if guess is None:
        return False
    if guess == 0:
        return value == 0
    unit = 10.0 ** (math.floor(math.log10(abs(guess))) - significant_digits(typed) + 1)
    return abs(guess - value) <= unit / 2 * (1 + 1e-9)


def matches(typed: str, value: float) -> bool:
    """``typed`` is ``value`` as far as its digits go: equal after rounding ``value`` to the
    significant digits typed (at least 3 of them, unless the value is exactly what was typed:
    ``-12`` for −12, not ``-1`` for −1.2)."""
    guess = parse_number(typed)
    if guess is None:
        return False
    if abs(guess - value) <= EPS32 * abs(value):
        return True
    return significant_digits(typed) >= 3 and rounds_to(typed, value)


def diagnose(typed: list[str], ask: dict[str, Any]) -> str:
    """``right``, a mistake's kind, ``digits`` (right as far as it goes, but fewer than 3
    significant digits: ask for more), ``shape`` (not as many numbers as the gradient has, nor
    as any mistake gives) or ``wrong`` (none of them)."""

    def fits(value: Any, check: Any = matches) -> bool:
        flat = np.asarray(value, dtype=np.float64).reshape(-1)
        return len(flat) == len(typed) and all(
            check(t, float(v)) for t, v in zip(typed, flat, strict=True)
        )

    if fits(ask["answer"]):
        return "right"
    for mistake in ask["mistakes"]:
        if fits(mistake["value"]):
            return str(mistake["kind"])
    if fits(ask["answer"], rounds_to):
        return "digits"
    if len(typed) != np.asarray(ask["answer"]).size:
        return "shape"
    return "wrong"
