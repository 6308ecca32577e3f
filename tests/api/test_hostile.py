"""Hostile programs: each is a user error within its budget; no 5xx, no side effect, server healthy."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tests.api.conftest import TEST_SETTINGS

SENTINEL = Path("/tmp/agp-hostile-sentinel")

# (id, source, acceptable error types, fragment expected in the message or None)
HOSTILE: list[tuple[str, str, set[str], str | None]] = [
    (
        "subclasses-walk",
        "().__class__.__bases__[0].__subclasses__()",
        {"AttributeError"},
        "not accessible",
    ),
    ("getattr", "getattr(1, '__class__')", {"NameError"}, "getattr"),
    (
        "import-os",
        "import os\nos.system('touch /tmp/agp-hostile-sentinel')",
        {"ModuleNotFoundError"},
        "os",
    ),
    ("import-subprocess", "import subprocess", {"ModuleNotFoundError"}, None),
    ("import-sys", "import sys\nsys.exit(0)", {"ModuleNotFoundError"}, None),
    ("from-os", "from os import system", {"ModuleNotFoundError"}, None),
    ("import-numpy", "import numpy as np", {"ModuleNotFoundError"}, None),
    ("relative-import", "from . import server", {"SyntaxError"}, "relative"),
    ("dunder-import", "__import__('os')", {"NameError"}, None),
    (
        "fullwidth-dunder-import",
        "\uff3f\uff3fimport\uff3f\uff3f('os')",
        {"NameError", "SyntaxError"},
        None,
    ),
    ("fullwidth-eval", "\uff45\uff56\uff41\uff4c('1')", {"NameError"}, "eval"),
    ("open", "open('/etc/passwd').read()", {"NameError"}, "open"),
    ("open-write", "open('/tmp/agp-hostile-sentinel', 'w')", {"NameError"}, "open"),
    ("eval", "eval('1+1')", {"NameError"}, "eval"),
    ("exec", "exec('x = 1')", {"NameError"}, "exec"),
    ("compile", "compile('1', 'f', 'eval')", {"NameError"}, None),
    ("globals", "globals()['__builtins__']", {"NameError"}, None),
    ("vars-type-dir", "type(1).mro()", {"NameError"}, None),
    ("format-attribute-field", "'{0.__class__}'.format(1)", {"ValueError"}, "not supported"),
    ("format-index-field", "'{0[0]}'.format([1])", {"ValueError"}, "not supported"),
    ("format-globals", "def f():\n    pass\n'{0.__globals__}'.format(f)", {"ValueError"}, None),
    ("fstring-dunder", "f'{(1).__class__}'", {"AttributeError"}, None),
    ("percent-format", "'%s' % ((),)", {"TypeError"}, None),
    ("generator-frame", "g = (i for i in range(3))\ng.gi_frame", {"AttributeError"}, None),
    ("generator-def", "def g():\n    yield 1", {"SyntaxError"}, "generators"),
    ("lambda", "f = lambda: 0", {"SyntaxError"}, "lambda"),
    (
        "class",
        "class A:\n    pass",
        {"SyntaxError"},
        "class definitions are not supported in the playground",
    ),
    (
        "try-except",
        "try:\n    1/0\nexcept Exception as e:\n    e.__traceback__",
        {"SyntaxError"},
        "try",
    ),
    ("function-globals", "def f():\n    pass\nf.__globals__", {"AttributeError"}, None),
    ("function-code", "def f():\n    pass\nf.func_code", {"AttributeError"}, None),
    ("bound-method-self", "print.__self__", {"AttributeError"}, None),
    ("builtin-method-attr", "x = [1]\nx.append.im_self", {"AttributeError"}, None),
    ("power-tower", "9**9**9", {"BudgetExceeded"}, "max_int_bits"),
    (
        "squaring-loop",
        "x = 3\nfor i in range(100):\n    x = x * x",
        {"BudgetExceeded"},
        "max_int_bits",
    ),
    ("shift-bomb", "1 << 10**9", {"BudgetExceeded"}, "max_int_bits"),
    ("pow-builtin", "pow(10, 10**8)", {"BudgetExceeded"}, "max_int_bits"),
    ("huge-string", "s = 'a' * 10**9", {"BudgetExceeded"}, "max_str_len"),
    ("doubling-string", "s = 'ab'\nwhile True:\n    s = s + s", {"BudgetExceeded"}, "max_str_len"),
    ("join-bomb", "s = 'x' * 1000\n','.join([s] * 10000)", {"BudgetExceeded"}, None),
    ("format-width", "f'{1:{10**9}}'", {"BudgetExceeded"}, "max_str_len"),
    ("format-method-width", "'{:99999999999}'.format(1)", {"BudgetExceeded"}, "max_str_len"),
    ("huge-list", "x = [0] * 10**9", {"BudgetExceeded"}, "max_list_len"),
    ("append-forever", "x = []\nwhile True:\n    x.append(1)", {"BudgetExceeded"}, None),
    ("list-of-range", "list(range(10**12))", {"BudgetExceeded"}, None),
    ("sorted-range", "sorted(range(10**9))", {"BudgetExceeded"}, None),
    (
        "exponential-structure-print",
        "x = [1]\nfor i in range(40):\n    x = [x, x]\nprint(x)",
        {"BudgetExceeded"},
        None,
    ),
    ("infinite-while", "while True:\n    pass", {"BudgetExceeded"}, None),
    ("huge-for", "for i in range(10**12):\n    pass", {"BudgetExceeded"}, None),
    (
        "comprehension-bomb",
        "[[i for i in range(10**6)] for j in range(10**6)]",
        {"BudgetExceeded"},
        None,
    ),
    ("deep-recursion", "def f(n):\n    return f(n + 1)\nf(0)", {"RecursionError"}, None),
    (
        "mutual-recursion",
        "def a(n):\n    return b(n)\ndef b(n):\n    return a(n)\na(0)",
        {"RecursionError"},
        None,
    ),
    ("deep-parens", "x = " + "(" * 300 + "1" + ")" * 300, {"SyntaxError", "BudgetExceeded"}, None),
    ("deep-unary", "x = " + "-" * 5000 + "1", {"SyntaxError", "BudgetExceeded"}, None),
    ("deep-lists", "x = " + "[" * 150 + "]" * 150, {"SyntaxError", "BudgetExceeded"}, None),
    ("many-nodes", "x=1\n" * 12000, {"BudgetExceeded"}, "max_ast_nodes"),
    (
        "print-flood",
        "while True:\n    print('spam' * 1000)",
        {"BudgetExceeded"},
        "max_output_chars",
    ),
    ("one-huge-print", "print('x' * 40000)", {"BudgetExceeded"}, "max_output_chars"),
    ("cyrillic-lookalike", "\u0440rint(1)", {"SyntaxError"}, "non-ASCII"),
    ("cyrillic-attribute", "x = [1]\nx.\u0430ppend(2)", {"SyntaxError"}, "non-ASCII"),
    ("null-byte", "print(1)\x00", {"SyntaxError"}, None),
    ("with-non-manager", "with open('x') as f:\n    pass", {"NameError"}, None),
    ("with-list", "with [1]:\n    pass", {"TypeError"}, None),
    ("torch-private-module", "import torch\ntorch.os", {"AttributeError"}, None),
    ("torch-load", "import torch\ntorch.load('/etc/passwd')", {"AttributeError"}, None),
    ("torch-numpy-escape", "import torch\ntorch.ones(2).numpy()", {"AttributeError"}, None),
    (
        "torch-register-hook",
        "import torch\nx = torch.ones(2, requires_grad=True)\nx.register_hook(print)",
        {"AttributeError"},
        None,
    ),
    ("torch-class-walk", "import torch\ntorch.Tensor.mro", {"AttributeError"}, None),
    (
        "grad-fn-walk",
        "import torch\nx = torch.ones(2, requires_grad=True)\n(x * 2).grad_fn.__class__",
        {"AttributeError"},
        None,
    ),
    ("huge-tensor", "import torch\nx = torch.zeros(10**9)", {"BudgetExceeded"}, None),
    ("huge-tensor-2d", "import torch\nx = torch.randn(100000, 100000)", {"BudgetExceeded"}, None),
    (
        "total-elements",
        "import torch\nxs = [torch.ones(100000) for i in range(100)]",
        {"BudgetExceeded"},
        None,
    ),
    (
        "flop-bomb",
        "import torch\nx = torch.ones(400, 400)\nfor i in range(100):\n    y = x @ x",
        {"BudgetExceeded"},
        None,
    ),
    (
        "graph-bomb",
        "import torch\nx = torch.tensor(1.0, requires_grad=True)\nfor i in range(50000):\n    x = x * 1.0",
        {"BudgetExceeded"},
        None,
    ),
    (
        "backward-flood",
        "import torch\nx = torch.tensor(1.0, requires_grad=True)\nwhile True:\n    (x * 2).backward()",
        {"BudgetExceeded"},
        None,
    ),
]


@pytest.fixture(scope="module", autouse=True)
def _no_sentinel() -> None:
    SENTINEL.unlink(missing_ok=True)


@pytest.mark.parametrize(
    ("source", "kinds", "fragment"), [h[1:] for h in HOSTILE], ids=[h[0] for h in HOSTILE]
)
def test_hostile_program_is_a_user_error_within_budget(
    client: TestClient, source: str, kinds: set[str], fragment: str | None
) -> None:
    started = time.monotonic()
    response = client.post("/api/v1/run", json={"source": source})
    elapsed = time.monotonic() - started
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["ok"] is False
    assert body["error"]["type"] in kinds, body["error"]
    if fragment is not None:
        assert fragment in body["error"]["message"], body["error"]
    budget = float(TEST_SETTINGS["wall_clock_s"]) + float(TEST_SETTINGS["hard_kill_grace_s"]) + 1.0  # type: ignore[arg-type]
    assert elapsed < budget
    assert len(body["stdout"]) <= int(TEST_SETTINGS["max_output_chars"])  # type: ignore[call-overload]


def test_corpus_is_large_enough() -> None:
    assert len(HOSTILE) >= 40


def test_server_healthy_and_no_side_effects_after_the_corpus(client: TestClient) -> None:
    assert not SENTINEL.exists()
    assert client.get("/healthz").json() == {"status": "ok"}
    body = client.post("/api/v1/run", json={"source": "print(6 * 7)"}).json()
    assert body["ok"] and body["stdout"] == "42\n"


def test_hard_kill_of_a_stuck_worker_then_replacement() -> None:
    """A worker that does not answer by wall-clock + grace is killed and replaced."""
    from server.sandbox.pool import WorkerPool

    pool = WorkerPool(1, 0, grace_s=0.2)
    try:
        # The interpreter's own deadline is far away, so only the hard kill can stop it.
        job = {
            "source": "while True:\n    pass",
            "budgets": {"wall_clock_s": 60.0, "max_steps": 10**12, "max_loop_iterations": 10**12},
        }
        started = time.monotonic()
        body = pool.run(job, timeout_s=0.3)
        assert time.monotonic() - started < 2.0
        assert b"BudgetExceeded" in body and b"wall_clock_s" in body
        assert pool.kills == 1
        assert b'"stdout":"ok\\n"' in pool.run(
            {"source": "print('ok')", "budgets": {}}, timeout_s=2.0
        )
    finally:
        pool.close()
