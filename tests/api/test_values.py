"""Your own autograd, drawn (issue 13), through POST /api/v1/run: the lesson's Value engine and
micrograd's get the graph and the walk their own backward() ran; Compare with PyTorch marks
the node a wrong rule harms."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from server.examples import example
from tests.api.conftest import run, validate_graphs

SEED = example("seed-tiny-autograd").source
BROKEN = example("value-broken-plus-equals").source
MICROGRAD_MLP = example("micrograd-mlp").source
MICROGRAD_LESSON = (
    Path(__file__).parents[1] / "programs" / "lessons" / "py_micrograd_value_tanh.py"
).read_text()


def by_label(graph: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["label"]: n for n in graph["nodes"]}


def labels_of(graph: dict[str, Any], ids: list[str]) -> list[str]:
    label = {n["id"]: n["label"] for n in graph["nodes"]}
    return [label[i] for i in ids]


def ok(client: TestClient, source: str, **fields: Any) -> dict[str, Any]:
    body = run(client, source, **fields)
    assert body["ok"], body["error"]
    validate_graphs(body, strict=True)
    return body


def test_the_seed_as_it_stands_draws_its_graph_and_walk(client: TestClient) -> None:
    body = ok(client, SEED)
    assert body["stdout"].splitlines()[:3] == [
        "step 0: loss=36.000  dL/dw=-24.00  dL/db=-12.00",
        "step 1: loss= 9.000  dL/dw=-12.00  dL/db=-6.00",
        "step 2: loss= 2.250  dL/dw=-6.00  dL/db=-3.00",
    ]
    assert body["passes_total"] == 3
    assert [g["pass_index"] for g in body["passes"]] == [0, 1, 2]
    assert body["graph"] == body["passes"][-1]
    first = body["passes"][0]
    assert first["value_class"] == "Value"
    nodes = by_label(first)
    # w, x, b, y, the constant, and the five results of the lesson's walk
    assert set(nodes) == {"w", "x", "b", "y", "−1", "w · x", "(w · x) + b", "(−1) · y"} | {
        "err",
        "loss",
    }
    assert {n["name"] for n in first["nodes"]} == {"w", "x", "b", "y", "err", "loss", None}
    assert sum(n["is_leaf"] for n in first["nodes"]) == 5
    assert nodes["w"]["grad"] == -24.0 and nodes["b"]["grad"] == -12.0
    assert nodes["w"]["value"] == 0.5 and nodes["loss"]["value"] == 36.0
    assert nodes["loss"]["kind"] == "output" and first["root"] == nodes["loss"]["id"]
    assert nodes["loss"]["op"] == "*" and nodes["err"]["op"] == "+"
    assert all(n["value_class"] == "Value" for n in first["nodes"])
    # ids are topological: every edge goes from a lower id to a higher one
    number = {n["id"]: int(n["id"][1:]) for n in first["nodes"]}
    assert all(number[e["src"]] < number[e["dst"]] for e in first["edges"])
    assert sorted(e["arg"] for e in first["edges"] if e["dst"] == nodes["loss"]["id"]) == [0, 1]
    # the walk, in the order the program's engine ran it (reverse topological)
    walk = first["walk"]
    assert labels_of(first, [s["node"] for s in walk]) == [
        "loss",
        "err",
        "(−1) · y",
        "(w · x) + b",
        "w · x",
    ]
    seed = walk[0]
    assert seed["grad_output"] == 1.0
    to_err = [c for c in seed["contributions"] if c["to"] == nodes["err"]["id"]]
    assert [c["grad"] for c in to_err] == [-6.0, -6.0]
    assert [c["accumulated_grad"] for c in to_err] == [-6.0, -12.0]
    assert [c["accumulates"] for c in to_err] == [False, True]
    assert [c["arg"] for c in to_err] == [0, 1]
    assert "∂loss/∂err += −6 · 1 = −6  → −6 + (−6) = −12" in seed["formula"]
    mul = walk[-1]
    assert mul["grad_output"] == -12.0
    sent = {labels_of(first, [c["to"]])[0]: c for c in mul["contributions"]}
    assert sent["w"]["grad"] == -24.0 and sent["w"]["local"] == "2"
    assert sent["x"]["grad"] == -6.0 and sent["x"]["local"] == "0.5"


def test_each_pass_is_a_snapshot_of_its_own_moment(client: TestClient) -> None:
    passes = ok(client, SEED)["passes"]
    second, third = by_label(passes[1]), by_label(passes[2])
    assert second["w"]["value"] == 1.7000000000000002 and second["w"]["grad"] == -12.0
    assert third["w"]["grad"] == -5.9999999999999964
    # x is never zeroed by the program: its grad keeps adding up, pass after pass
    assert [by_label(p)["x"]["grad"] for p in passes] == [-6.0, -16.200000000000003, -23.1]


def test_compare_with_pytorch_every_node_of_the_seed_agrees(client: TestClient) -> None:
    body = ok(client, SEED, compare=True)
    for graph in body["passes"]:
        assert graph["compare"] == {"agrees": 10, "differs": 0, "replaced": 0, "not_comparable": 0}
        assert all(n["compare"] == "agrees" for n in graph["nodes"])
    first = by_label(body["passes"][0])
    assert first["err"]["compare_grad"] == -12.0 and first["w"]["compare_grad"] == -24.0
    # without the flag, nothing is compared
    plain = ok(client, SEED)
    assert all(n.get("compare") is None for n in plain["graph"]["nodes"])


def test_compare_marks_exactly_the_node_the_broken_rule_harms(client: TestClient) -> None:
    """= instead of += in the multiply rule: err gets half its gradient, and only err is red,
    in every pass; later, x and y (never zeroed) hold this pass's gradient but lost what PyTorch
    would have kept from the earlier ones: marked apart, as replaced."""
    assert BROKEN.count("self.grad = other.data * out.grad") == 1
    body = ok(client, BROKEN, compare=True)
    assert body["stdout"].splitlines()[0] == "step 0: loss=36.000  dL/dw=-12.00  dL/db=-6.00"
    first = body["passes"][0]
    differs = [n for n in first["nodes"] if n["compare"] == "differs"]
    assert [n["label"] for n in differs] == ["err"]
    assert differs[0]["grad"] == -6.0 and differs[0]["compare_grad"] == -12.0
    assert first["compare"]["differs"] == 1 and first["compare"]["agrees"] == 9
    # the walk shows the wrong number: the second assignment to err adds nothing
    to_err = [c for c in first["walk"][0]["contributions"] if c["to"] == differs[0]["id"]]
    assert [c["grad"] for c in to_err] == [-6.0, 0.0]
    assert [c["accumulated_grad"] for c in to_err] == [-6.0, -6.0]
    assert "PyTorch's rules send −12" in differs[0]["compare_reason"]
    last = body["graph"]
    assert [n["label"] for n in last["nodes"] if n["compare"] == "differs"] == ["err"]
    assert sorted(n["label"] for n in last["nodes"] if n["compare"] == "replaced") == ["x", "y"]
    assert last["compare"]["replaced"] == 2
    x = by_label(last)["x"]  # it held −4.95; PyTorch would add this pass's −5.23 to it
    assert x["grad"] == -5.23125 and abs(x["compare_grad"] - (-4.95 - 5.23125)) < 1e-12
    assert "replaced the gradient it held (−4.95) instead of adding" in x["compare_reason"]


def test_micrograd_lesson_value_pass_then_the_torch_pass(client: TestClient) -> None:
    body = ok(client, MICROGRAD_LESSON)
    assert body["passes_total"] == 2
    value_pass, torch_pass = body["passes"]
    assert [value_pass["pass_index"], torch_pass["pass_index"]] == [0, 1]
    assert value_pass["value_class"] == "Value" and "value_class" not in torch_pass
    assert body["graph"] == torch_pass  # the last backward() was PyTorch's
    nodes = {n["name"]: n for n in value_pass["nodes"] if n["name"]}
    assert set(nodes) >= {"x1", "x2", "w1", "w2", "b", "n", "o"}
    assert "out" not in nodes  # the name inside Value.tanh gives way to the expression
    assert nodes["o"]["op"] == "tanh" and nodes["o"]["kind"] == "output"
    assert abs(nodes["x1"]["grad"] - -1.5) < 1e-12 and abs(nodes["w1"]["grad"] - 1.0) < 1e-12
    assert value_pass["walk"][0]["node"] == nodes["o"]["id"]


def test_micrograd_mlp_every_step_drawn_and_agreeing(client: TestClient) -> None:
    body = ok(client, MICROGRAD_MLP, compare=True)
    assert body["passes_total"] == 10 and len(body["passes"]) == 10
    graph = body["graph"]
    names = {n["name"] for n in graph["nodes"] if n["name"]}
    assert {"loss", "ypred[0]", "ypred[3]", "layers[0].neurons[0].w[0]"} <= names
    assert "layers[1].neurons[0].b" in names
    assert graph["compare"]["differs"] == 0 and graph["compare"]["not_comparable"] == 0
    ops = {n["op"] for n in graph["nodes"]}
    assert {"+", "*", "tanh", "**2", "leaf"} <= ops
    assert len(graph["walk"]) == sum(not n["is_leaf"] for n in graph["nodes"])


def test_gallery_value_examples_have_explanations(client: TestClient) -> None:
    gallery = {e["id"]: e for e in client.get("/api/v1/examples").json()}
    for key in ("seed-tiny-autograd", "micrograd-mlp", "value-broken-plus-equals"):
        assert len(gallery[key]["explanation"]) > 100
