"""POST /api/v1/notebook/run and its stream (issue 24): cells that keep their state in one
one-shot worker, each cell's own output, the shown cell's own graph, errors that say their cell,
and the same admission control as a run."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import orjson
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.lessons import lessons
from server.program.packing import unpack_answer
from server.schemas import NotebookRunResponse
from tests.api.conftest import one_slot_server

CELLS = [
    "import torch\nx = torch.tensor(2.0, requires_grad=True)\nw = torch.tensor(3.0, requires_grad=True)\n"
    "print('cell one')",
    "h = w * x\nprint('h =', h.item())",
    "z = h * h + x\nprint('z =', z.item())",
    "z.backward()\nprint(x.grad.item(), w.grad.item())",
]


def notebook(client: TestClient, cells: list[str], cell: int, **fields: Any) -> dict[str, Any]:
    """POST /api/v1/notebook/run and return the JSON body (asserting a 200)."""
    response = client.post("/api/v1/notebook/run", json={"cells": cells, "cell": cell, **fields})
    assert response.status_code == 200, response.text
    raw = response.json()
    NotebookRunResponse.model_validate(raw, strict=True)
    body: dict[str, Any] = unpack_answer(raw)  # its passes as whole graphs
    return body


def events(client: TestClient, cells: list[str], cell: int) -> list[dict[str, Any]]:
    """The stream's events, the result's passes unpacked into whole graphs."""
    response = client.post("/api/v1/notebook/run/stream", json={"cells": cells, "cell": cell})
    assert response.status_code == 200, response.text
    assert response.headers["content-type"].startswith("application/x-ndjson")
    got = [orjson.loads(line) for line in response.text.splitlines()]
    for event in got:
        if event.get("response"):
            event["response"] = unpack_answer(event["response"])
    return got


def op_names(graph: dict[str, Any]) -> list[str]:
    return [n["op"] for n in graph["nodes"] if n["op"] not in ("leaf", "constant")]


def test_cells_run_in_order_in_one_namespace_each_with_its_output(client: TestClient) -> None:
    body = notebook(client, CELLS, 4)
    assert body["ok"], body["error"]
    assert body["cell"] == 4
    assert [(c["cell"], c["ok"], c["stdout"]) for c in body["cells"]] == [
        (1, True, "cell one\n"),
        (2, True, "h = 6.0\n"),
        (3, True, "z = 38.0\n"),
        (4, True, "37.0 24.0\n"),  # dz/dx = 2hw + 1, dz/dw = 2hx
    ]
    assert body["stdout"] == "cell one\nh = 6.0\nz = 38.0\n37.0 24.0\n"


def test_running_cell_k_runs_only_cells_up_to_k(client: TestClient) -> None:
    body = notebook(client, CELLS, 2)
    assert [c["cell"] for c in body["cells"]] == [1, 2]
    assert body["stdout"] == "cell one\nh = 6.0\n"


def test_a_cell_without_backward_shows_only_its_own_operations(client: TestClient) -> None:
    """Cell 3 multiplies h (made by cell 2) by itself and adds x: its graph is that mul and
    add, with h drawn as an input like a leaf; cell 2's mul is not in it."""
    body = notebook(client, CELLS, 3)
    graph = body["graph"]
    assert sorted(op_names(graph)) == ["add", "mul"]
    h = next(n for n in graph["nodes"] if n["name"] == "h")
    assert h["op"] == "leaf" and h["earlier"] is True and h["value"] == 6.0
    assert graph["walk"] == [] and body["passes_total"] == 0
    root = next(n for n in graph["nodes"] if n["id"] == graph["root"])
    assert root["name"] == "z"
    # the same operations run as one program draw cell 2's mul too
    whole = unpack_answer(client.post("/api/v1/run", json={"source": "\n".join(CELLS[:3])}).json())
    assert sorted(op_names(whole["graph"])) == ["add", "mul", "mul"]


def test_a_backward_pass_is_the_cells_own_and_drawn_whole(client: TestClient) -> None:
    """Cell 4 calls backward() through what cells 2 and 3 recorded: the pass it ran is its
    graph, walked to the leaves; the nodes the earlier cells recorded say so."""
    body = notebook(client, CELLS, 4)
    graph = body["graph"]
    assert body["passes_total"] == 1 and len(body["passes"]) == 1
    assert sorted(op_names(graph)) == ["add", "mul", "mul"]
    ops = [n for n in graph["nodes"] if n["op"] not in ("leaf", "constant")]
    assert all(n["earlier"] is True for n in ops)
    assert len(graph["walk"]) == 3
    x = next(n for n in graph["nodes"] if n["name"] == "x")
    assert x["grad"] == 37.0


def test_only_the_shown_cells_backward_passes_are_recorded(client: TestClient) -> None:
    cells = [
        "import torch\nw = torch.tensor(1.0, requires_grad=True)",
        "for _ in range(3):\n    (w * 2).backward()",
        "(w ** 3).backward()\nprint(w.grad.item())",
    ]
    body = notebook(client, cells, 3)
    assert body["cells"][-1]["stdout"] == "9.0\n"  # 3 × 2 accumulated, then 3w² = 3
    assert body["passes_total"] == 1
    assert op_names(body["graph"]) == ["pow"]
    two = notebook(client, cells, 2)
    assert two["passes_total"] == 3 and two["cell"] == 2


def test_a_run_is_deterministic_from_the_requests_seed(client: TestClient) -> None:
    cells = ["import torch\na = torch.randn(3)", "print(a)\nprint(torch.rand(2))"]
    first = notebook(client, cells, 2, seed=7)
    again = notebook(client, cells, 2, seed=7)
    other = notebook(client, cells, 2, seed=8)
    assert first["stdout"] == again["stdout"]
    assert first["stdout"] != other["stdout"]
    # the same as the cells run as one program with that seed
    program = client.post("/api/v1/run", json={"source": "\n".join(cells), "seed": 7}).json()
    assert program["stdout"] == first["stdout"]


def test_an_error_says_its_cell_and_the_line_within_it(client: TestClient) -> None:
    cells = [
        "def f(v):\n    return v / undefined_name",
        "print('before')\ny = f(2)",
        "print('never')",
    ]
    body = notebook(client, cells, 3)
    assert not body["ok"]
    error = body["error"]
    assert (error["type"], error["cell"], error["line"]) == ("NameError", 1, 2)
    assert body["cell"] == 2  # the run stopped in cell 2: cell 3 did not run
    assert [(c["cell"], c["ok"]) for c in body["cells"]] == [(1, True), (2, False)]
    assert body["cells"][1]["stdout"] == "before\n"
    traceback = error["traceback"]
    assert 'File "<cell 2>", line 2, in <module>' in traceback
    assert 'File "<cell 1>", line 2, in f' in traceback
    assert traceback.index("<cell 2>") < traceback.index("<cell 1>")


def test_a_syntax_error_says_its_cell_and_nothing_runs(client: TestClient) -> None:
    body = notebook(client, ["print('one')", "x = (1 +", "print('three')"], 3)
    assert not body["ok"]
    assert body["error"]["type"] == "SyntaxError"
    assert body["error"]["cell"] == 2 and body["error"]["line"] == 1
    assert 'File "<cell 2>", line 1' in body["error"]["traceback"]
    assert body["cells"] == [] and body["stdout"] == "" and body["cell"] == 2


def test_a_warning_says_its_cell(client: TestClient) -> None:
    cells = [
        "import torch\nx = torch.tensor(1.0, requires_grad=True)",
        "y = x * 2\ny.backward()\nprint(y.grad)",
    ]
    body = notebook(client, cells, 2)
    assert body["cells"][1]["stdout"] == "None\n"
    assert body["notice"].startswith("Cell 2, line 3: UserWarning: The .grad attribute")


def test_the_shown_cell_alone_gets_the_implicit_backward(client: TestClient) -> None:
    """A cell ending with a scalar that requires grad is walked when it is the one shown (the
    playground's rule for a program's last statement), never when a later cell runs after it,
    which would change what the later cells see."""
    cells = [
        "import torch\nw = torch.tensor(3.0, requires_grad=True)\nloss = w * w\nloss",
        "print(w.grad)",
    ]
    shown = notebook(client, cells, 1)
    assert shown["notice"].startswith("The program did not call backward()")
    assert len(shown["graph"]["walk"]) == 1
    assert shown["cells"][0]["result"] == "tensor(9., grad_fn=<MulBackward0>)"
    later = notebook(client, cells, 2)
    assert later["cells"][1]["stdout"] == "None\n"


def test_a_class_of_your_own_autograd_carries_over_cells(client: TestClient) -> None:
    """A micrograd-style Value defined in cell 1, used in cell 2, walked in cell 3."""
    lesson = next(x for x in lessons() if x.id == "lesson-3.9-pytorch-internals")
    engine = lesson.code[0]
    head = engine.partition("# Forward pass builds the graph")[0]
    cells = [head, "w, b = Value(0.5), Value(0.0)\nx, y = Value(2.0), Value(7.0)\n"
             "err = w * x + b + Value(-1.0) * y\nloss = err * err",
             "loss.backward()\nprint(w.grad, b.grad)"]  # fmt: skip
    body = notebook(client, cells, 3)
    assert body["ok"], body["error"]
    assert body["cells"][2]["stdout"] == "-24.0 -12.0\n"
    assert body["graph"]["value_class"] == "Value"
    assert body["passes_total"] == 1


def test_the_stream_says_each_cell_as_it_starts(client: TestClient) -> None:
    got = events(client, CELLS, 4)
    kinds = [e["event"] for e in got]
    assert kinds[0] == "start" and kinds[-1] == "result"
    order: list[tuple[str, Any]] = []
    for e in got[1:-1]:
        if e["event"] == "cell":
            order.append(("cell", e["cell"]))
        elif e["event"] == "stdout":
            order.append(("stdout", e["text"]))
    # each cell's output follows its own cell event
    text: dict[int, str] = {}
    cell = 0
    for kind, value in order:
        if kind == "cell":
            cell = value
            text.setdefault(cell, "")
        else:
            text[cell] += value
    assert text == {1: "cell one\n", 2: "h = 6.0\n", 3: "z = 38.0\n", 4: "37.0 24.0\n"}
    response = got[-1]["response"]
    plain = notebook(client, CELLS, 4)
    for body in (response, plain):
        body.pop("timing_ms")
    assert response == plain


def test_a_cell_stopped_by_the_wall_clock_keeps_what_each_cell_printed(
    client: TestClient,
) -> None:
    body = notebook(client, ["print('one')", "print('two')\nwhile True:\n    pass"], 2)
    assert not body["ok"] and body["error"]["type"] == "TimeoutError"
    assert body["error"]["cell"] == 2
    assert [(c["cell"], c["stdout"]) for c in body["cells"]] == [(1, "one\n"), (2, "two\n")]


def test_a_hard_kill_says_its_cell_and_line(client: TestClient) -> None:
    body = notebook(client, ["print('one')", "x = 1\ny = sum(range(10**14))"], 2)
    assert body["error"]["type"] == "TimeoutError"
    assert (body["error"]["cell"], body["error"]["line"]) == (2, 2)
    assert "cell 2, line 2" in body["error"]["message"]
    assert [(c["cell"], c["ok"], c["stdout"]) for c in body["cells"]] == [
        (1, True, "one\n"),
        (2, False, ""),
    ]


@pytest.mark.parametrize(
    ("payload", "what"),
    [
        ({"cells": ["print(1)"], "cell": 2}, "cell 2 asked for"),
        ({"cells": [], "cell": 1}, "at least 1"),
        ({"cells": ["x = 1\n" * 12_000], "cell": 1}, "bytes of code"),
        ({"cells": ["print(1)"], "cell": 0}, "greater than or equal to 1"),
        ({"cells": ["print(1)"], "cell": 1, "source": "print(2)"}, "Extra inputs"),
    ],
)
def test_bad_requests_are_422_with_a_reason(
    client: TestClient, payload: dict[str, Any], what: str
) -> None:
    response = client.post("/api/v1/notebook/run", json=payload)
    assert response.status_code == 422
    assert what in response.text


def test_an_unavailable_device_is_an_answer_not_a_failure(client: TestClient) -> None:
    body = notebook(client, ["print(1)"], 1, device="cuda:7")
    assert not body["ok"] and "not available" in body["error"]["message"]
    assert body["cells"] == []


def test_the_lessons_are_in_the_gallery_as_notebooks(client: TestClient) -> None:
    gallery = client.get("/api/v1/examples").json()
    notebooks = {e["id"]: e for e in gallery if e.get("cells")}
    assert set(notebooks) == {lesson.id for lesson in lessons()}
    assert len(notebooks) == 4
    for example in notebooks.values():
        kinds = {c["kind"] for c in example["cells"]}
        assert "markdown" in kinds
        code = [c["source"] for c in example["cells"] if c["kind"] == "code"]
        assert example["source"] == "\n\n".join(code)


def test_the_notebook_api_is_documented(client: TestClient) -> None:
    spec = client.get("/openapi.json").json()
    post = spec["paths"]["/api/v1/notebook/run"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/NotebookRunRequest"
    )
    assert post["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].endswith(
        "/NotebookRunResponse"
    )
    assert {"503", "422", "413"} <= set(post["responses"])
    stream = spec["paths"]["/api/v1/notebook/run/stream"]["post"]
    content = stream["responses"]["200"]["content"]
    assert content["application/x-ndjson"]["schema"]["$ref"].endswith("/NotebookStreamEvent")
    request = spec["components"]["schemas"]["NotebookRunRequest"]
    assert set(request["required"]) == {"cells", "cell"}
    assert "cell" in spec["components"]["schemas"]["UserErrorInfo"]["properties"]


# ---- over a real socket: the same admission control, and Stop ----------------------------------


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, FastAPI]]:
    """One slot, a short wait for it, a long wall clock (conftest.one_slot_server)."""
    with one_slot_server() as server:
        yield server


def test_closing_a_notebooks_stream_stops_it_and_runs_share_admission(
    served: tuple[str, FastAPI],
) -> None:
    url, app = served
    cells = ["print('ready')", "while True:\n    pass"]
    with httpx.Client(base_url=url, timeout=30) as http:
        with http.stream(
            "POST", "/api/v1/notebook/run/stream", json={"cells": cells, "cell": 2}
        ) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            seen = [orjson.loads(next(lines)) for _ in range(4)]
            assert [e["event"] for e in seen] == ["start", "cell", "stdout", "cell"]
            assert seen[3]["cell"] == 2
            # the one slot is held by the notebook: a program's run is refused, and so is a
            # notebook's
            refused = http.post("/api/v1/run", json={"source": "print(1)"})
            assert refused.status_code == 503 and int(refused.headers["retry-after"]) >= 1
            refused = http.post("/api/v1/notebook/run", json={"cells": ["1"], "cell": 1})
            assert refused.status_code == 503
        started = time.monotonic()
        while app.state.admission.running or app.state.sandbox._busy:
            assert time.monotonic() - started < 1.5, "the stopped notebook still runs"
            time.sleep(0.01)
        body = http.post("/api/v1/notebook/run", json={"cells": ["print(2)"], "cell": 1}).json()
    assert body["stdout"] == "2\n"
