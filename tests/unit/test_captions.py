"""The walk's captions are true: every ``=`` in a line holds, read as written (issue 19).

Table-driven: every op of ``engine.ops.OPS`` runs on one-element inputs (so its caption
substitutes numbers) and on the shapes of ``op_cases.CASES``; each caption line is read by
``tests.captions`` (a parser of the notation written apart from the engine's writer) and each
equality between numbers is evaluated in float64 within the printed precision.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from engine.ops import OPS
from recorder import caption as cap
from recorder import record_passes
from tests.captions import check_line, evaluate
from tests.unit.op_cases import CASES, _put
from tests.unit.test_op_table import _draw, stable_seed

F = engine.nn.functional
R, P, U, A = "real", "pos", "unit", "away"

#: One-element calls of every row: the caption then shows its numbers.
SCALAR: dict[str, list[tuple[Callable[..., Any], list[tuple[tuple[int, ...], str]]]]] = {
    "add": [(lambda T, a, b: a + b, [((), R), ((), R)])],
    "sub": [(lambda T, a, b: a - b, [((), R), ((), R)])],
    "rsub": [(lambda T, a: 2.5 - a, [((), R)])],
    "mul": [(lambda T, a, b: a * b, [((), R), ((), R)])],
    "div": [(lambda T, a, b: a / b, [((), R), ((), P)])],
    "neg": [(lambda T, a: -a, [((), R)])],
    "reciprocal": [(lambda T, a: a.reciprocal(), [((), P)])],
    "pow": [
        (lambda T, a: a**2, [((), R)]),
        (lambda T, a: a**3, [((), R)]),
        (lambda T, a: a**0.5, [((), P)]),
        (lambda T, a: a**-1.5, [((), P)]),
    ],
    "pow_tensor": [(lambda T, a, b: a**b, [((), P), ((), R)])],
    "rpow": [(lambda T, a: 2.0**a, [((), R)])],
    "exp": [(lambda T, a: (-a).exp(), [((), R)])],
    "log": [(lambda T, a: a.log(), [((), P)])],
    "log1p": [(lambda T, a: a.log1p(), [((), P)])],
    "sqrt": [(lambda T, a: a.sqrt(), [((), P)])],
    "rsqrt": [(lambda T, a: a.rsqrt(), [((), P)])],
    "abs": [(lambda T, a: a.abs(), [((), A)])],
    "sin": [(lambda T, a: a.sin(), [((), R)])],
    "cos": [(lambda T, a: a.cos(), [((), R)])],
    "tanh": [(lambda T, a: a.tanh(), [((), R)])],
    "sigmoid": [(lambda T, a: a.sigmoid(), [((), R)])],
    "sinh": [(lambda T, a: a.sinh(), [((), R)])],
    "cosh": [(lambda T, a: a.cosh(), [((), R)])],
    "asin": [(lambda T, a: a.asin(), [((), U)])],
    "acos": [(lambda T, a: a.acos(), [((), U)])],
    "atan": [(lambda T, a: a.atan(), [((), R)])],
    "trunc": [(lambda T, a: a.trunc() * a, [((), A)])],
    "frac": [(lambda T, a: (a * 3).frac(), [((), A)])],
    "tan": [(lambda T, a: a.tan(), [((), U)])],
    "log2": [(lambda T, a: a.log2(), [((), P)])],
    "log10": [(lambda T, a: a.log10(), [((), P)])],
    "expm1": [(lambda T, a: a.expm1(), [((), R)])],
    "erf": [(lambda T, a: a.erf(), [((), R)])],
    "gelu": [(lambda T, a: F.gelu(a), [((), R)])],
    "leaky_relu": [(lambda T, a: F.leaky_relu(a, 0.1), [((), A)])],
    "softplus": [
        (lambda T, a: F.softplus(a), [((), R)]),
        (lambda T, a: F.softplus(a, beta=2.0), [((), R)]),
    ],
    "elu": [(lambda T, a: F.elu(a, 0.7), [((), A)])],
    "silu": [(lambda T, a: F.silu(a), [((), R)])],
    "relu": [(lambda T, a: a.relu(), [((), A)])],
    "clamp": [
        (lambda T, a: a.clamp(-0.5, 0.5), [((), U)]),
        (lambda T, a: a.clamp(min=0.1), [((), A)]),
    ],
    "maximum": [(lambda T, a, b: T.maximum(a, b), [((), R), ((), R)])],
    "minimum": [(lambda T, a, b: T.minimum(a, b), [((), R), ((), R)])],
    "where": [(lambda T, a, b: T.where(a > 0, a, b), [((), A), ((), R)])],
    "round": [(lambda T, a: (a * 10.0 + 0.25).round() * a, [((), A)])],
    "floor": [(lambda T, a: a.floor() * a, [((), A)])],
    "ceil": [(lambda T, a: a.ceil() * a, [((), A)])],
    "cumsum": [(lambda T, a: a.cumsum(0), [((1,), R)])],
    "cumprod": [(lambda T, a: a.cumprod(0), [((1,), R)])],
    "prod": [(lambda T, a: a.prod(), [((1,), P)])],
    "sum": [(lambda T, a: a.sum(), [((1,), R)])],
    "mean": [(lambda T, a: a.mean(), [((1,), R)])],
    "amax": [(lambda T, a: a.max(), [((1,), R)])],
    "max_dim": [(lambda T, a: a.max(dim=0).values, [((1,), R)])],
    "softmax": [(lambda T, a: a.softmax(dim=0), [((1,), R)])],
    "log_softmax": [(lambda T, a: a.log_softmax(dim=0), [((1,), R)])],
    "matmul": [
        (lambda T, a, b: a @ b, [((1, 1), R), ((1, 1), R)]),
        (lambda T, a, b: a @ b, [((1,), R), ((1,), R)]),
    ],
    "linear": [(lambda T, x, w, b: F.linear(x, w, b), [((1, 1), R), ((1, 1), R), ((1,), R)])],
    "diag": [(lambda T, a: T.diag(a), [((1,), R)])],
    "einsum": [(lambda T, a, b: T.einsum("i,i->", a, b), [((1,), R), ((1,), R)])],
    "view": [(lambda T, a: a.reshape(1, 1), [((1,), R)])],
    "permute": [(lambda T, a: a.T, [((1, 1), R)])],
    "expand": [(lambda T, a: a.expand(1, 1), [((1,), R)])],
    "getitem": [(lambda T, a: a[0], [((1,), R)])],
    "gather": [(lambda T, a: a.gather(0, T.tensor([0])), [((1,), R)])],
    "cat": [(lambda T, a, b: T.cat([a, b]), [((1,), R), ((1,), R)])],
    "stack": [(lambda T, a, b: T.stack([a, b]), [((), R), ((), R)])],
    "clone": [(lambda T, a: a.clone(), [((), R)])],
    "to": [(lambda T, a: a.double(), [((), R)])],
    "layer_norm": [
        (lambda T, a, w, b: F.layer_norm(a, (1,), w, b), [((1,), R), ((1,), R), ((1,), R)])
    ],
    "batch_norm": [
        (
            lambda T, a, w, b: F.batch_norm(
                a, T.tensor([0.1], dtype=a.dtype), T.tensor([1.5], dtype=a.dtype), w, b
            ),
            [((1, 1), R), ((1,), R), ((1,), R)],
        )
    ],
    "huber_loss": [(lambda T, a, b: F.huber_loss(a, b, delta=0.5), [((), R), ((), R)])],
    "smooth_l1_loss": [(lambda T, a, b: F.smooth_l1_loss(a, b, beta=2.0), [((), R), ((), R)])],
    "mse_loss": [(lambda T, a, b: F.mse_loss(a, b), [((), R), ((), R)])],
    "binary_cross_entropy": [(lambda T, a, b: F.binary_cross_entropy(a, b), [((), U), ((), U)])],
    "binary_cross_entropy_with_logits": [
        (lambda T, a, b: F.binary_cross_entropy_with_logits(a, b), [((), R), ((), U)])
    ],
    "nll_loss": [(lambda T, a: F.nll_loss(a, T.tensor([1])), [((1, 2), R)])],
    "inv": [(lambda T, a: T.linalg.inv(a + 3 * T.eye(1, dtype=a.dtype)), [((1, 1), R)])],
    "det": [(lambda T, a: T.linalg.det(a + 2 * T.eye(1, dtype=a.dtype)), [((1, 1), R)])],
    "index_put": [(lambda T, a, v: _put(T, a * 1.0, 0, v), [((1,), R), ((), R)])],
    "scatter_put": [(lambda T, a, s: a.scatter_add(0, T.tensor([0]), s), [((1,), R), ((1,), R)])],
    "conv": [(lambda T, x, w: F.conv1d(x, w), [((1, 1, 1), R), ((1, 1, 1), R)])],
    "max_pool": [(lambda T, x: F.max_pool1d(x, 1), [((1, 1, 1), R)])],
    "avg_pool": [(lambda T, x: F.avg_pool1d(x, 1), [((1, 1, 1), R)])],
    "var": [(lambda T, a: a.var(0, unbiased=False), [((1,), R)])],
    "gru_cell": [
        (
            lambda T, x, h, wi, wh: T.gru_cell(x, h, wi, wh),
            [((1, 1), R), ((1, 1), R), ((3, 1), R), ((3, 1), R)],
        )
    ],
}

#: An elementwise row made from its dtype rule (engine.ops.unary) needs no entry above: its
#: op_cases sample calls, on one-element inputs of the same domains, are its one-element cases.
for _name, _cases in CASES.items():
    if OPS[_name].dtype in ("float", "float_only", "same", "whole") and _name not in SCALAR:
        SCALAR[_name] = [(fn, [((), domain) for _, domain in specs]) for fn, specs in _cases]


def _walk(fn: Callable[..., Any], arrays: list[np.ndarray]) -> tuple[dict[str, Any], set[str]]:
    """The graph of ``1.7 · Σ fn(inputs)`` (an upstream gradient that is not 1) and the ops
    its walk ran."""
    ts = [engine.tensor(a, dtype=engine.float32, requires_grad=True) for a in arrays]
    for k, t in zip("abcde", ts, strict=False):
        t._name = k
    with record_passes() as log:
        out = fn(engine, *ts)
        loss = (out * 1.7).sum()
        loss._name = "L"
        loss.backward()
    graph = log.graphs[-1]
    ops = {n["op"] for n in graph["nodes"] if any(s["node"] == n["id"] for s in graph["walk"])}
    return graph, ops


def _lines(graph: dict[str, Any]) -> list[str]:
    return [c["formula"] for s in graph["walk"] for c in s["contributions"]]


def _check(graph: dict[str, Any]) -> tuple[int, list[str]]:
    """(numeric lines, what is false) over a graph's walk; each line's text is also its tree's."""
    numeric, false = 0, []
    for step in graph["walk"]:
        for line, tree in zip(_lines_of(step), step["caption"], strict=True):
            assert cap.line_text(tree) == line, (tree, line)
            checked = check_line(line)
            numeric += checked.numeric
            false += [f"{line}: {why}" for why in checked.false]
    return numeric, false


def _lines_of(step: dict[str, Any]) -> list[str]:
    return [c["formula"] for c in step["contributions"]]


def _arrays(name: str, i: int, specs: list[tuple[tuple[int, ...], str]]) -> list[np.ndarray]:
    rng = np.random.default_rng(stable_seed("caption", name, i))
    return [_draw(rng, shape, domain) for shape, domain in specs]


def test_every_op_has_a_one_element_case() -> None:
    assert set(SCALAR) == set(OPS), set(OPS) ^ set(SCALAR)


def test_every_numeric_caption_line_over_the_op_table_is_true() -> None:
    """Each row on one-element inputs (several draws) and on its tensor cases: 0 false lines,
    and the walks ran every op of the table."""
    walked: set[str] = set()
    numeric_ops: set[str] = set()
    numeric, false = 0, []
    for name, cases in SCALAR.items():
        for i, (fn, specs) in enumerate(cases):
            for draw in range(3):
                graph, ops = _walk(fn, _arrays(name, 10 * i + draw, specs))
                walked |= ops
                count, wrong = _check(graph)
                numeric += count
                false += wrong
                if count and any(s["node"] for s in graph["walk"]):
                    numeric_ops |= ops
    for name, cases in CASES.items():
        for i, (fn, specs) in enumerate(cases):
            graph, ops = _walk(fn, _arrays(name, 100 + i, specs))
            walked |= ops
            false += _check(graph)[1]
    assert not false, "\n".join(false)
    assert walked >= set(OPS), set(OPS) - walked
    assert numeric >= 3 * len(OPS), numeric
    # rows whose rule is written as arithmetic show it with numbers (the rest say it in words:
    # a slice, a reshape, a normalisation over x̂)
    in_words = {"cumsum", "cumprod", "prod", "max_dim", "diag", "einsum", "view", "permute",
                "expand", "getitem", "gather", "cat", "stack", "layer_norm", "nll_loss", "gru_cell", "var"}  # fmt: skip
    assert numeric_ops >= set(OPS) - in_words, set(OPS) - in_words - numeric_ops


def _tiny_neuron() -> dict[str, Any]:
    """The issue's program: e = exp(−tanh(w·x + b)), with a = tanh(w·x + b) = 0.8005."""
    w = engine.tensor(0.55, requires_grad=True)
    x = engine.tensor(2.0)
    b = engine.tensor(0.0)
    for t, n in ((w, "w"), (x, "x"), (b, "b")):
        t._name = n
    with record_passes() as log:
        target = math.atanh(0.8005)
        w.data.fill_(target / 2.0)
        a = (w * x + b).tanh()
        a._name = "a"
        e = (-a).exp()
        e._name = "e"
        e.backward()
    return log.graphs[-1]


def test_the_issues_tanh_and_exp_captions_are_true() -> None:
    """tanh's 1 − a² is bracketed when multiplied, and exp's line holds one equality per form."""
    graph = _tiny_neuron()
    lines = _lines(graph)
    tanh = next(line for line in lines if "a²" in line)
    assert tanh.startswith("∂e/∂(w · x + b) = (1 − a²) · ∂e/∂a = (1 − 0.8005²) · ("), tanh
    exp = next(line for line in lines if "exp(" in line)
    assert exp.startswith("∂e/∂(−a) = exp(−a) · ∂e/∂e = exp(−0.8005) · 1 = 0.449"), exp
    assert _check(graph)[1] == []
    # the lines the issue found false read false to the same checker
    assert check_line("∂e/∂(w·x + b) = 1 − a² · ∂e/∂a = 1 − 0.8005² · (−1.328) = −0.477").false
    old_exp = "e^(−a) = exp(−a) · ∂e/∂(exp(−a)) = e^(−0.8005) = 0.4491 · 1.537 = 0.6901"
    assert check_line(old_exp).false


def test_accumulation_lines_say_the_sum_they_make() -> None:
    """``err · err`` sends −6 twice: the second line is ``+=`` and its sum −6 + (−6) = −12."""
    w = engine.tensor(0.5, requires_grad=True)
    w._name = "w"
    with record_passes() as log:
        err = w * 2.0 - 7.0
        err._name = "err"
        loss = err * err
        loss._name = "loss"
        loss.backward()
    first = log.graphs[-1]["walk"][0]
    assert [c["formula"] for c in first["contributions"]] == [
        "∂loss/∂err = err · ∂loss/∂loss = −6 · 1 = −6",
        "∂loss/∂err += err · ∂loss/∂loss = −6 · 1 = −6  → −6 + (−6) = −12",
    ]
    assert first["caption"][1]["total"][1]["v"] == -12.0
    assert check_line("∂loss/∂err += −6 · 1 = −6  → −6 + (−6) = −11").false


# ---- the writer's brackets, read back by the test's parser ---------------------------------------


def _random_tree(rng: random.Random, depth: int) -> cap.Expr:
    if depth == 0 or rng.random() < 0.25:
        return cap.num(round(rng.uniform(-3, 3), 2))
    kind = rng.choice(["+", "−", "·", "/", "neg", "^", "fn", "sqrt"])
    if kind in ("+", "−", "·", "/"):
        return cap.binary(kind, _random_tree(rng, depth - 1), _random_tree(rng, depth - 1))
    if kind == "neg":
        return {"k": "neg", "a": [_random_tree(rng, depth - 1)]}
    if kind == "^":
        return cap.binary("^", _random_tree(rng, depth - 1), cap.num(rng.choice([2, 3, 0.5, -1])))
    if kind == "sqrt":
        return {"k": "sqrt", "a": [_random_tree(rng, depth - 1)]}
    return {
        "k": "fn",
        "f": rng.choice(["tanh", "exp", "σ", "sin"]),
        "a": [_random_tree(rng, depth - 1)],
    }


def _value(e: cap.Expr) -> float:
    k, a = e["k"], e.get("a", [])
    if k == "num":
        return float(e["v"])
    xs = [_value(x) for x in a]
    ops: dict[str, Callable[..., float]] = {
        "+": lambda p, q: p + q,
        "−": lambda p, q: p - q,
        "·": lambda p, q: p * q,
        "/": lambda p, q: p / q,
        "neg": lambda p: -p,
        "^": lambda p, q: p**q,
        "sqrt": math.sqrt,
    }
    if k == "fn":
        return {"tanh": math.tanh, "exp": math.exp, "sin": math.sin,
                "σ": lambda v: 1 / (1 + math.exp(-v))}[e["f"]](*xs)  # fmt: skip
    return ops[k](*xs)


def test_the_written_form_reads_back_as_the_tree() -> None:
    """Random trees, written out and read back by the test's own parser, keep their value:
    the brackets are where precedence needs them."""
    rng = random.Random(19)
    checked = 0
    for _ in range(3000):
        tree = _random_tree(rng, 4)
        try:
            expected = _value(tree)
        except (ValueError, ZeroDivisionError, OverflowError, TypeError):
            continue
        if not isinstance(expected, float) or not math.isfinite(expected):
            continue
        written = cap.text(tree)
        got = evaluate(written).value
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12), (written, got, expected)
        checked += 1
    assert checked > 1000


# ---- one reading of a label's precedence, for captions and the graph's formulas ------------
# The caption and the graph each had their own reader, which differed on bars, a compact @ and
# a derivative; each case below shows which reading is right, in both places.


@pytest.mark.parametrize(
    ("label", "level"),
    [
        ("w", cap.ATOM),
        ("exp(w · x)", cap.ATOM),
        ("w · x + b", cap.SUM),
        ("(w · x)^2", cap.POWER),
        ("Wᵀ", cap.POSTFIX),
        ("−x", cap.NEGATION),
        ("Σ x", cap.PRODUCT),
        # bars pair up: what is inside them is bracketed, what follows them is not
        ("|a − b|", cap.ATOM),
        ("|x| + 1", cap.SUM),
        ("|a| · |b|", cap.PRODUCT),
        # floor and ceiling brackets hold their inside together as parentheses do
        ("⌊x + 1⌋", cap.ATOM),
        # a compact @ is a product, as a spaced one is
        ("x@W", cap.PRODUCT),
        # a derivative reads as one symbol, as a derivative node does (prec of deriv)
        ("∂L/∂(w · x)", cap.POWER),
    ],
)
def test_a_labels_precedence_is_read_once(label: str, level: int) -> None:
    assert cap.label_prec(label) == level


def test_a_derivative_label_reads_as_its_derivative_node() -> None:
    """``−∂L/∂w`` whether the derivative is a node of the tree or a graph's label."""
    for outer in ("neg", "sum"):
        as_node = cap.text({"k": outer, "a": [cap.deriv("L", "w")]})
        as_label = cap.text({"k": outer, "a": [cap.name("∂L/∂w")]})
        assert as_label == as_node
    assert cap.text({"k": "neg", "a": [cap.name("∂L/∂w")]}) == "−∂L/∂w"


def test_the_graphs_formulas_and_the_captions_bracket_labels_alike() -> None:
    """The graph fills its templates with labels by the same reading: a label with bars keeps
    no needless brackets, a sum after bars gets the ones it needs, a compact matrix product is
    bracketed before ᵀ."""
    from recorder.graph import _fill

    assert _fill("{a} · 2", {"a": "|a − b|"}) == "|a − b| · 2"
    assert _fill("{a}^2", {"a": "|x| + 1"}) == "(|x| + 1)^2"
    assert _fill("{a}ᵀ", {"a": "x@W"}) == "(x@W)ᵀ"
    assert _fill("{a} · 2", {"a": "⌊x + 1⌋"}) == "⌊x + 1⌋ · 2"
    square = {"k": "^", "a": [cap.name("|x| + 1"), cap.num(2)]}
    assert cap.text(square) == "(|x| + 1)²"
    assert cap.text({"k": "T", "a": [cap.name("x@W")]}) == "(x@W)ᵀ"
    assert cap.text(cap.binary("·", cap.name("|a − b|"), cap.num(2))) == "|a − b| · 2"
