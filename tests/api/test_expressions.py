"""The first expressions a learner types run, with true gradients and true captions (issue 19).

A bare expression with bindings (what the page sends) knows the table's functions and
``torch``, ``nn``, ``F``; only its other names are inputs. Each gradient the walk reports is
checked against central differences of the same function in float64, and every caption line of
these expressions and of the gallery's scalar programs is read and its arithmetic checked.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.examples import EXAMPLES
from server.program.known import KNOWN
from tests.api.conftest import run, validate_graphs
from tests.captions import check_line
from tests.tolerances import LIBRARY_FUNCTION, U32

ROOT = Path(__file__).resolve().parents[2]


def _sigmoid(v: float) -> float:
    return 1.0 / (1.0 + math.exp(-v))


#: (source as a learner types it, bindings, the same function in float64)
FIRST_EXPRESSIONS: list[tuple[str, dict[str, float], Callable[..., float]]] = [
    ("x**2 + 3*x", {"x": 2.0}, lambda x: x**2 + 3 * x),
    ("(w*x + b - y)**2", {"w": 0.5, "x": 2.0, "b": 0.0, "y": 7.0},
     lambda w, x, b, y: (w * x + b - y) ** 2),
    ("tanh(w*x + b)", {"w": 0.55, "x": 1.5, "b": 0.1}, lambda w, x, b: math.tanh(w * x + b)),
    ("exp(-x)*sin(x)", {"x": 0.7}, lambda x: math.exp(-x) * math.sin(x)),
    ("relu(x) + sigmoid(y)", {"x": 0.8, "y": -0.4}, lambda x, y: max(x, 0.0) + _sigmoid(y)),
    ("log(x) + sqrt(y)", {"x": 1.7, "y": 2.5}, lambda x, y: math.log(x) + math.sqrt(y)),
    ("torch.tanh(w*x + b)", {"w": -0.8, "x": 0.6, "b": 0.3},
     lambda w, x, b: math.tanh(w * x + b)),
    ("F.relu(w*x + b) * y", {"w": 1.2, "x": 0.5, "b": -0.1, "y": 3.0},
     lambda w, x, b, y: max(w * x + b, 0.0) * y),
    ("1 / (1 + exp(-(w*x + b)))", {"w": 2.0, "x": 0.3, "b": -0.2},
     lambda w, x, b: 1.0 / (1.0 + math.exp(-(w * x + b)))),
    ("abs(x - y) + x*y / 2", {"x": 0.9, "y": 2.2}, lambda x, y: abs(x - y) + x * y / 2),
]  # fmt: skip

#: Central differences in float64 err by h²/6·|f'''| plus the function's rounding over 2h:
#: ~1e-11 with h = 1e-5 on these smooth functions of numbers of order 1.
STEP = 1e-5
#: The engine's gradient of each expression is float32: a chain of at most ~10 roundings and
#: two library functions (exp, tanh, log ...) for the forward and as many for the backward,
#: relative to the largest term (order 1 to 10 here).
GRADIENT_ROUNDINGS = 2 * (10 + 2 * LIBRARY_FUNCTION)


def _central(f: Callable[..., float], point: dict[str, float], name: str) -> float:
    up, down = dict(point), dict(point)
    up[name] += STEP
    down[name] -= STEP
    return (f(**up) - f(**down)) / (2 * STEP)


@pytest.mark.parametrize(
    ("source", "bindings", "f"), FIRST_EXPRESSIONS, ids=[e[0] for e in FIRST_EXPRESSIONS]
)
def test_first_expressions_run_with_the_gradients_central_differences_give(
    client: TestClient, source: str, bindings: dict[str, float], f: Callable[..., float]
) -> None:
    body = run(client, source, bindings=bindings)
    assert body["ok"], body["error"]
    validate_graphs(body)
    graph = body["graph"]
    assert graph["walk"], "the expression walks"
    leaves = {n["name"]: n for n in graph["nodes"] if n["is_leaf"] and n["name"]}
    assert set(leaves) == set(bindings), "every input is a leaf, and only the inputs"
    for name in bindings:
        node = leaves[name]
        assert node["requires_grad"], name  # every input defaults to requiring grad
        expected = _central(f, bindings, name)
        # relative to the terms' scale: the value, the gradient, and the inputs themselves
        scale = max(1.0, abs(f(**bindings)), abs(expected), *map(abs, bindings.values()))
        bound = GRADIENT_ROUNDINGS * U32 * scale + 1e-9  # + the differences' own error
        assert abs(node["grad"] - expected) <= bound, (source, name, node["grad"], expected)
    assert math.isclose(float(graph_value(graph)), f(**bindings), rel_tol=1e-5, abs_tol=1e-6)


def graph_value(graph: dict[str, Any]) -> float:
    root = next(n for n in graph["nodes"] if n["id"] == graph["root"])
    return float(root["value"])


def test_a_users_definition_shadows_a_known_name(client: TestClient) -> None:
    body = run(client, "def relu(v):\n    return v * 2\nprint(relu(3), tanh(0.0).item())")
    assert body["ok"], body["error"]
    assert body["stdout"] == "6 0.0\n"
    body = run(client, "from math import exp\nprint(exp(0))")
    assert body["stdout"] == "1.0\n"
    # Python's own builtins stay Python's
    body = run(client, "print(abs(-2), max(1, 3), sum([1, 2]), round(2.6), pow(2, 3), min(4, 5))")
    assert body["stdout"] == "2 3 3 3 8 4\n"


def test_the_pages_known_names_are_the_servers() -> None:
    """The page's list is generated from KNOWN (server/page_tables.py), and freevars.ts uses it."""
    text = (ROOT / "static/src/generated/ops.gen.ts").read_text(encoding="utf-8")
    found = re.search(r"export const KNOWN_NAMES: readonly string\[\] = \[([^\]]*)\];", text)
    assert found, "KNOWN_NAMES not found in static/src/generated/ops.gen.ts"
    names = re.findall(r"\"([^\"]*)\"", found.group(1))
    assert sorted(names) == sorted(KNOWN)
    freevars = (ROOT / "static/src/playground/freevars.ts").read_text(encoding="utf-8")
    assert 'import { KNOWN_NAMES } from "../generated/ops.gen";' in freevars


# ---- captions over the scalar programs ----------------------------------------------------------

#: The gallery's programs whose graphs are of numbers (their captions substitute them).
SCALAR_EXAMPLES = ["tiny-engine", "seed-tiny-autograd", "micrograd-mlp", "value-broken-plus-equals",
                   "x-squared-plus-3x", "second-derivative", "expression"]  # fmt: skip

NEURON = """import torch
w = torch.tensor(0.55, requires_grad=True)
x = torch.tensor(2.0)
b = torch.tensor(0.0, requires_grad=True)
a = torch.tanh(w*x + b)
e = torch.exp(-a)
e.backward()
"""


def _programs() -> list[tuple[str, str, dict[str, Any]]]:
    examples = {e.id: e for e in EXAMPLES}
    found = [(i, examples[i].source, dict(examples[i].bindings or {})) for i in SCALAR_EXAMPLES]
    found += [(source, source, dict(bindings)) for source, bindings, _ in FIRST_EXPRESSIONS]
    return [*found, ("neuron", NEURON, {})]


def test_every_numeric_caption_line_of_the_scalar_programs_is_true(client: TestClient) -> None:
    """The gallery's scalar programs, the first expressions and the issue's neuron: every pass
    kept, every line read; at least 40 state equalities between numbers, none false."""
    numeric, false, per_program = 0, [], {}
    for key, source, bindings in _programs():
        body = run(client, source, bindings=bindings)
        assert body["ok"], (key, body["error"])
        count = 0
        for graph in body["passes"] or [body["graph"]]:
            for step in graph["walk"]:
                trees = step.get("caption") or []
                assert len(trees) == len(step["contributions"]), key
                for contribution in step["contributions"]:
                    checked = check_line(contribution["formula"])
                    count += checked.numeric
                    false += [f"{key}: {contribution['formula']}: {w}" for w in checked.false]
        per_program[key] = count
        numeric += count
    assert not false, "\n".join(false)
    assert numeric >= 40, per_program
    assert all(per_program[k] for k in ("tiny-engine", "micrograd-mlp", "neuron")), per_program
