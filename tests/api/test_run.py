"""POST /api/v1/run: the lessons' programs, errors, bindings, implicit backward, graphs."""

from __future__ import annotations

import re

import numpy as np
from fastapi.testclient import TestClient

from server.examples import example
from tests.api.conftest import run, validate_graphs

TINY = example("tiny-engine").source


def test_tiny_engine_rewritten_with_torch(client: TestClient) -> None:
    body = run(client, TINY)
    assert body["ok"], body["error"]
    validate_graphs(body)  # the body matches the documented contract
    lines = body["stdout"].splitlines()
    assert lines[0] == "step 0: loss=36.000  dL/dw=-24.00  dL/db=-12.00"
    assert lines[1] == "step 1: loss= 9.000  dL/dw=-12.00  dL/db=-6.00"
    assert lines[2] == "step 2: loss= 2.250  dL/dw=-6.00  dL/db=-3.00"
    assert lines[3] == "graph ops recorded for the last loss: MulBackward0, AddBackward0"
    assert len(body["passes"]) == 3
    graph = body["graph"]
    names = {n["name"] for n in graph["nodes"]}
    assert {"w", "b", "loss", "err"} <= names
    by_name = {n["name"]: n for n in graph["nodes"] if n["name"]}
    assert by_name["loss"]["grad_fn"] == "MulBackward0"
    assert graph["walk"], "the backward walk is recorded"


def test_x_squared_plus_3x(client: TestClient) -> None:
    body = run(client, example("x-squared-plus-3x").source)
    assert body["ok"], body["error"]  # what it prints: tests/api/test_gallery.py
    assert body["graph"] is not None


def test_training_loop_converges(client: TestClient) -> None:
    body = run(client, example("training-step").source)
    assert body["ok"], body["error"]
    loss_line, params_line = body["stdout"].splitlines()
    assert float(loss_line) < 0.1
    w, b = (float(v) for v in params_line.split())
    assert abs(w - 3.0) < 0.2 and abs(b - 1.0) < 0.5
    # 40 backward passes, bounded: first and last kept.
    assert 2 <= len(body["passes"]) <= 20


def test_gradient_accumulation_matches_one_big_batch(client: TestClient) -> None:
    body = run(client, example("gradient-accumulation").source)
    assert body["ok"], body["error"]
    lines = body["stdout"].splitlines()
    one = re.findall(r"-?\d+\.\d+", lines[0])
    four = re.findall(r"-?\d+\.\d+", lines[1])
    assert [round(float(a), 2) for a in one] == [round(float(a), 2) for a in four]


def test_classic_errors_have_pytorch_messages(client: TestClient) -> None:
    body = run(client, example("error-no-grad").source)
    error = body["error"]
    assert error == {
        "type": "RuntimeError",
        "message": "element 0 of tensors does not require grad and does not have a grad_fn",
        "line": 7,
        "col": 1,
        "end_line": 7,
        "end_col": 16,  # `loss.backward()`, exclusive
        "node": body["graph"]["root"],  # the root that does not require grad
        "traceback": 'Traceback (most recent call last):\n  File "<program>", line 7, in '
        "<module>\n    loss.backward()\nRuntimeError: element 0 of tensors does not require "
        "grad and does not have a grad_fn",
    }
    error = run(client, example("error-backward-twice").source)["error"]
    assert error["type"] == "RuntimeError"
    assert "Trying to backward through the graph a second time" in error["message"]
    assert error["line"] == 7
    error = run(client, example("error-shape").source)["error"]
    assert error["type"] == "RuntimeError"
    assert "3x2" in error["message"] and error["line"] == 5
    error = run(client, example("error-inplace").source)["error"]
    assert "modified by an inplace operation" in error["message"]


def test_name_error_keeps_output_before_it(client: TestClient) -> None:
    body = run(client, "import torch\nw = torch.tensor(2.0)\nprint(w)\nprint(wx)")
    assert body["ok"] is False
    assert body["stdout"] == "tensor(2.)\n"
    assert body["error"] == {
        "type": "NameError",
        "message": "name 'wx' is not defined",
        "line": 4,
        "col": 7,
        "end_line": 4,
        "end_col": 9,  # `wx`
        "traceback": 'Traceback (most recent call last):\n  File "<program>", line 4, in '
        "<module>\n    print(wx)\n           ^^\nNameError: name 'wx' is not defined",
    }


def test_expression_with_bindings_gets_implicit_backward(client: TestClient) -> None:
    bindings = {
        "w": 0.5,
        "b": 0.0,
        "x": {"value": 2.0, "requires_grad": False},
        "y": {"value": 7.0, "requires_grad": False},
    }
    body = run(client, "(w*x + b - y)**2", bindings=bindings)
    assert body["ok"], body["error"]
    assert body["notice"] and "backward" in body["notice"]
    nodes = {n["name"]: n for n in body["graph"]["nodes"] if n["name"]}
    assert nodes["w"]["grad"] == -24.0
    assert nodes["b"]["grad"] == -12.0
    assert nodes["x"]["requires_grad"] is False


def test_no_implicit_backward_when_the_program_calls_it(client: TestClient) -> None:
    body = run(
        client,
        "import torch\nx = torch.tensor(2.0, requires_grad=True)\ny = x * x\ny.backward()\ny",
    )
    assert body["notice"] is None
    assert len(body["passes"]) == 1


def test_nested_list_binding_is_a_float32_tensor(client: TestClient) -> None:
    body = run(
        client,
        "print(v.dtype, v.requires_grad, v.shape)\n(v * v).sum()",
        bindings={"v": [[1, 2], [3, 4]]},
    )
    assert body["stdout"] == "torch.float32 True torch.Size([2, 2])\n"
    nodes = {n["name"]: n for n in body["graph"]["nodes"] if n["name"]}
    assert nodes["v"]["grad"] == [[2.0, 4.0], [6.0, 8.0]]


def test_program_without_tensors_has_no_graph(client: TestClient) -> None:
    body = run(client, "print(sum(range(10)))")
    assert body == {
        **body,
        "ok": True,
        "stdout": "45\n",
        "graph": None,
        "passes": [],
        "error": None,
    }
    assert "total" in body["timing_ms"]


def test_unavailable_device_is_a_user_error(client: TestClient) -> None:
    devices = {d["name"]: d for d in client.get("/api/v1/devices").json()}
    if devices["cuda"]["available"]:
        return
    body = run(client, "print(1)", device="cuda")
    assert body["ok"] is False and "cuda" in body["error"]["message"]


def test_autograd_errors_point_at_their_node(client: TestClient) -> None:
    """The error carries the node concerned; the response's graph contains it."""
    cases = {
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x.exp()\n"
        "y.add_(1)\ny.sum().backward()\n": "ExpBackward0",
        "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\nz = (x * x).sum()\n"
        "z.backward()\nz.backward()\n": "MulBackward0",
        "import torch\nt = torch.tensor(2.0)\nt.backward()\n": None,
    }
    for source, grad_fn in cases.items():
        body = client.post("/api/v1/run", json={"source": source}).json()
        assert body["ok"] is False and body["error"]["type"] == "RuntimeError"
        node_id = body["error"]["node"]
        nodes = {n["id"]: n for n in body["graph"]["nodes"]}
        assert node_id in nodes, (source, body["error"])
        assert nodes[node_id]["grad_fn"] == grad_fn


def test_second_derivative_example_records_the_first_backward(client: TestClient) -> None:
    body = run(client, example("second-derivative").source)
    assert body["ok"], body["error"]
    assert body["stdout"] == "dy/dx = tensor(12., grad_fn=<MulBackward0>)\nd2y/dx2 = tensor(12.)\n"
    ops = [n["op"] for n in body["graph"]["nodes"]]
    assert "pow" in ops and ops.count("mul") >= 2  # 3 · x² · 1, recorded by the first backward
    x = next(n for n in body["graph"]["nodes"] if n["name"] == "x")
    assert x["grad"] == 12.0


def test_a_long_loops_latest_pass_is_walked_with_the_numbers_it_had(client: TestClient) -> None:
    """The passes after the kept ones run unwalked in the worker; the latest is walked when
    the answer is made, by its replay: its walk ends at the leaf with the gradient the program
    printed for that pass (before the update that followed it)."""
    source = (
        "import torch\n"
        "w = torch.tensor(2.0, requires_grad=True)\n"
        "for step in range(60):\n"
        "    loss = (w * 3.0 - 1.0) ** 2\n"
        "    loss.backward()\n"
        "    if step == 59:\n"
        "        print(w.item(), w.grad.item())\n"
        "    with torch.no_grad():\n"
        "        w -= 0.01 * w.grad\n"
        "    w.grad = None\n"
    )
    body = run(client, source)
    assert body["ok"], body["error"]
    assert body["notice"] is None
    latest = body["passes"][-1]
    assert latest["pass_index"] == 59
    value, grad = (float(v) for v in body["stdout"].split())
    leaf = next(n for n in latest["nodes"] if n["name"] == "w")
    # (float32 numbers travel in their shortest form: read back as float32, they are the same)
    assert np.float32(leaf["value"]) == np.float32(value)  # not the value after the update
    assert np.float32(leaf["grad"]) == np.float32(grad)
    last_step = latest["walk"][-1]
    assert [c["to"] for c in last_step["contributions"]] == [leaf["id"]]


def test_a_pass_whose_tensor_changed_after_it_says_why_its_walk_is_missing(
    client: TestClient,
) -> None:
    source = (
        "import torch\n"
        "w = torch.tensor([0.5, -1.0], requires_grad=True)\n"
        "for step in range(30):\n"
        "    h = (w * 2.0).exp()\n"
        "    h.sum().backward()\n"
        "    w.grad = None\n"
        "h.add_(1.0)  # exp saved its output: the latest pass cannot be run again\n"
    )
    body = run(client, source)
    assert body["ok"], body["error"]
    assert body["passes"][-1]["walk"] == []
    assert body["notice"] == (
        "The playground could not draw the backward walk of pass 30, nor its leaves' "
        "gradients: a tensor it read was changed in place after it ran"
    )
