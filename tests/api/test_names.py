"""Names from the program's own structure, and groups for its own classes (issue 19).

A Value inside lists of lists, dicts and attributes is named by its path; the calls of the
program's Neuron, Layer, MLP classes come back as ``modules``, each node marked with the
innermost; a tensor bound by a ``for`` loop is named by its target, an indexed one by its text.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

from tests.api.conftest import run, validate_graphs

ROOT = Path(__file__).resolve().parents[2]
MLP = (ROOT / "tests/e2e/fixtures/mlp_list_of_lists.txt").read_text()
VALUE = MLP[: MLP.index("class Neuron:")]


def graph_of(client: TestClient, source: str) -> dict[str, Any]:
    body = run(client, source)
    assert body["ok"], body["error"]
    validate_graphs(body, strict=True)
    return dict(body["graph"])


def test_a_list_of_lists_model_names_every_weight_by_its_place(client: TestClient) -> None:
    graph = graph_of(client, MLP)
    assert len(graph["nodes"]) == 398
    names = {n["name"] for n in graph["nodes"] if n["name"]}
    assert {"layers[0][1].w[2]", "layers[2][0].b", "layers[1][3].w[0]", "loss"} <= names
    assert "b" not in names
    leaves = [n for n in graph["nodes"] if n["is_leaf"]]
    params = [n for n in leaves if n["name"] and re.fullmatch(r"layers\[\d\]\[\d\]\..*", n["name"])]
    assert len(params) == 4 * 4 + 4 * 5 + 5  # 3-4-4-1: weights and biases
    # no internal id in a label (add#317): an unnamed long result keeps its outermost operation
    assert not [n["label"] for n in graph["nodes"] if re.search(r"#\d", n["label"])]


def test_the_calls_of_the_programs_own_classes_are_groups(client: TestClient) -> None:
    graph = graph_of(client, MLP)
    modules = {m["id"]: m for m in graph["modules"]}
    neurons = [m for m in modules.values() if m["type"] == "Neuron"]
    mlps = [m for m in modules.values() if m["type"] == "MLP"]
    assert len(neurons) == 9 * 4 and len(mlps) == 4  # each call: one neuron on one point
    assert all(m["parent"] in modules and modules[m["parent"]]["type"] == "MLP" for m in neurons)
    assert {m["name"] for m in neurons} == {
        f"layers[{i}][{j}]" for i, n in enumerate((4, 4, 1)) for j in range(n)
    }
    assert {m["name"] for m in mlps} == {"model"}
    by_id = {n["id"]: n for n in graph["nodes"]}
    tanh = [n for n in graph["nodes"] if n["op"] == "tanh"]
    assert len(tanh) == 36
    for node in tanh:  # each neuron's tanh is its call's
        module = modules[node["module"]]
        assert module["type"] == "Neuron"
        assert node["module_path"] == ["model", module["name"]]
    # leaves are left to the page: a weight used by four calls stays outside them
    assert all("module" not in n for n in graph["nodes"] if n["is_leaf"])
    # the loss is outside every call
    assert "module" not in by_id[graph["root"]]


def test_dicts_and_nested_attributes_name_values(client: TestClient) -> None:
    source = (
        VALUE
        + "params = {'w1': [Value(0.5), Value(-1.0)], 'b1': Value(0.1)}\n"
        + "class Holder:\n"
        + "    def __init__(self):\n"
        + "        self.pair = (Value(2.0), [Value(3.0)])\n"
        + "h = Holder()\n"
        + "out = params['w1'][0] * h.pair[0] + params['w1'][1] * h.pair[1][0] + params['b1']\n"
        + "out.backward()\n"
    )
    graph = graph_of(client, source)
    names = {n["name"] for n in graph["nodes"] if n["name"]}
    assert {"params['w1'][0]", "params['w1'][1]", "params['b1']", "pair[0]", "pair[1][0]"} <= names
    assert "out" in names


def test_loop_bound_and_indexed_tensors_are_named_by_their_expression(client: TestClient) -> None:
    source = (
        "import torch\n"
        "torch.manual_seed(0)\n"
        "X, Y = torch.randn(6, 2), torch.randn(6, 1)\n"
        "model = torch.nn.Linear(2, 1)\n"
        "batches = [(X[i:i + 2], Y[i:i + 2]) for i in range(0, 6, 2)]\n"
        "for xb, yb in batches:\n"
        "    loss = ((model(xb) - yb) ** 2).mean()\n"
        "    loss.backward()\n"
        "train = torch.tensor([True, False, True, True, False, True])\n"
        "held = ((model(X[train]) - Y[train]) ** 2).mean()\n"
        "held.backward()\n"
    )
    body = run(client, source)
    assert body["ok"], body["error"]
    first, last = body["passes"][0], body["passes"][-1]
    labels = {n["label"] for n in first["nodes"]}
    assert {"xb", "yb", "model(xb)", "loss"} <= labels
    assert not [lb for lb in labels if lb.startswith("tensor [")]
    labels = {n["label"] for n in last["nodes"]}
    assert {"X[train]", "Y[train]", "model(X[train])", "held"} <= labels
