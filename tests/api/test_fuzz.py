"""Hypothesis-generated programs: never a 5xx; tensor expressions agree with PyTorch."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.api.differential import run_with_torch, same_output

FUZZ = settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)

_UNARY = [
    "torch.exp({})",
    "torch.tanh({})",
    "torch.sigmoid({})",
    "torch.relu({})",
    "({}).abs()",
    "-({})",
    "({}) ** 2",
    "({}).sum()",
    "({}).mean()",
]
_BINARY = ["({} + {})", "({} - {})", "({} * {})", "({} / (1.5 + ({}) ** 2))"]


def _expressions() -> st.SearchStrategy[str]:
    leaves = st.sampled_from(["x", "y", "v", "(x + 2.0)", "(0.5 * y)", "x * v"])

    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        unary = st.tuples(st.sampled_from(_UNARY), children).map(lambda t: t[0].format(t[1]))
        binary = st.tuples(st.sampled_from(_BINARY), children, children).map(
            lambda t: t[0].format(t[1], t[2])
        )
        return unary | binary

    return st.recursive(leaves, extend, max_leaves=6)


def _program(expr: str) -> str:
    return f"""import torch
x = torch.tensor(0.7, requires_grad=True)
y = torch.tensor(-1.3, requires_grad=True)
v = torch.tensor([0.5, -0.25, 1.0], requires_grad=True)
out = ({expr}).sum()
out.backward()
print(f"{{out.item():.4f}}")
for t in (x, y, v):
    print(t.grad if t.grad is None else [round(g, 4) for g in t.grad.reshape(-1).tolist()])
"""


@pytest.mark.torch
@FUZZ
@given(expr=_expressions())
def test_random_tensor_programs_agree_with_pytorch(client: TestClient, expr: str) -> None:
    pytest.importorskip("torch")
    source = _program(expr)
    expected = run_with_torch(source)
    response = client.post("/api/v1/run", json={"source": source})
    assert response.status_code == 200
    body = response.json()
    if expected["error"] is None:
        assert body["ok"], (source, body["error"])
        assert same_output(body["stdout"], expected["stdout"]), (
            source,
            body["stdout"],
            expected["stdout"],
        )
    else:
        assert body["error"]["type"] == expected["error"]["type"], (
            source,
            body["error"],
            expected["error"],
        )


_TOKENS = st.sampled_from(
    [
        "import torch\n",
        "x",
        " = ",
        "torch.tensor(",
        "[1.0, 2.0]",
        ")",
        "(",
        "**",
        "*",
        "+",
        "-",
        "@",
        ".",
        "sum()",
        "backward()",
        "grad",
        "\n",
        "    ",
        "for i in range(3):\n",
        "if x:\n",
        "print(",
        "'s'",
        "{",
        "}",
        "[",
        "]",
        ":",
        ",",
        "requires_grad=True",
        "lambda",
        "__class__",
        "9**9",
        "while True:",
        "def f(a):\n",
        "return",
        "1e308",
        "None",
        "f'{x:.2f}'",
    ]
)


@FUZZ
@given(tokens=st.lists(_TOKENS, max_size=30) | st.text(max_size=200))
def test_random_text_never_gets_a_5xx(client: TestClient, tokens: list[str] | str) -> None:
    source = tokens if isinstance(tokens, str) else "".join(tokens)
    response = client.post("/api/v1/run", json={"source": source})
    assert response.status_code == 200
    body = response.json()
    assert body["ok"] or body["error"]["type"]


@FUZZ
@given(
    payload=st.recursive(
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=20),
        lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=8), c, max_size=4),
        max_leaves=12,
    )
)
def test_random_json_bodies_are_never_5xx(client: TestClient, payload: object) -> None:
    response = client.post("/api/v1/run", json=payload)
    assert response.status_code in (200, 415, 422)
