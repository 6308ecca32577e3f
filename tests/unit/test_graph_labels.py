"""Graph data for a class to read (issue 15): module scopes, labels made from the source,
formulas that cannot be misread, and the graph recorded up to a forward error."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

import engine as torch
from recorder import record_passes
from recorder.graph import LABEL_MAX, export, export_error, export_tensors


def _named(t: Any, name: str) -> Any:
    t._name = name
    return t


def _by_label(graph: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {n["label"]: n for n in graph["nodes"]}


def _mlp_graph() -> dict[str, Any]:
    torch.manual_seed(0)
    model = _named(
        torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1)),
        "model",
    )
    X = _named(torch.randn(4, 2), "X")
    Y = _named(torch.randn(4, 1), "Y")
    with record_passes() as log:
        torch.nn.MSELoss()(model(X), Y).backward()
    return log.graphs[0]


# --- modules ---------------------------------------------------------------------------------


def test_a_sequentials_nodes_carry_their_module_call() -> None:
    g = _mlp_graph()
    nodes = _by_label(g)
    assert nodes["model[0](X)"]["module"] == "model[0]"
    assert nodes["model[0](X)"]["module_path"] == ["model", "model[0]"]
    assert nodes["model[0](X)"]["grad_fn"] == "AddmmBackward0"
    assert nodes["model[1](model[0](X))"]["module"] == "model[1]"
    # the last layer's output is the whole model's: it reads as the outermost call
    assert nodes["model(X)"]["module"] == "model[2]"
    # a layer's parameters belong to its box, named after it
    for layer in ("model[0]", "model[2]"):
        for p in ("weight", "bias"):
            leaf = nodes[f"{layer}.{p}"]
            assert leaf["module"] == layer and leaf["kind"] == "param" and leaf["name"] is None
    assert nodes["X"]["module"] is None and nodes["X"]["module_path"] == []
    mods = {m["name"]: m for m in g["modules"]}
    assert mods["model"] == {"id": mods["model"]["id"], "name": "model", "type": "Sequential",
                             "parent": None}  # fmt: skip
    assert mods["model[1]"]["type"] == "ReLU" and mods["model[1]"]["parent"] == mods["model"]["id"]
    loss = next(n for n in g["nodes"] if n["kind"] == "output")
    assert loss["module"] == "MSELoss" and loss["label"] == "MSELoss(model(X), Y)"
    assert {n["module_id"] for n in g["nodes"] if n["module_id"]} <= {m["id"] for m in g["modules"]}


class _Encoder(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 4), torch.nn.Linear(4, 2)])

    def forward(self, x: Any) -> Any:
        for layer in self.layers:
            x = torch.tanh(layer(x))
        return x


class _Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.encoder = _Encoder()
        self.fc1 = torch.nn.Linear(2, 1)

    def forward(self, x: Any) -> Any:
        return self.fc1(self.encoder(x))


def test_module_names_from_the_sandbox_from_the_parent_or_the_class() -> None:
    torch.manual_seed(0)
    net = _named(_Net(), "net")
    _named(net.fc1, "fc1")  # what the sandbox sets for self.fc1 = ...
    x = _named(torch.randn(5, 3), "x")
    g = export(net(x).sum())
    names = {m["name"]: m for m in g["modules"]}
    assert set(names) == {
        "net",
        "net.encoder",
        "net.encoder.layers[0]",
        "net.encoder.layers[1]",
        "fc1",
    }
    assert names["fc1"]["parent"] == names["net"]["id"]
    nodes = _by_label(g)
    assert nodes["net.encoder.layers[0](x)"]["module_path"] == [
        "net",
        "net.encoder",
        "net.encoder.layers[0]",
    ]
    assert nodes["fc1.weight"]["module"] == "fc1" and nodes["net(x)"]["module"] == "fc1"
    # tanh is a function called inside the encoder: its node is the encoder's
    tanh_nodes = [n for n in g["nodes"] if n["op"] == "tanh"]
    assert {n["module"] for n in tanh_nodes} == {"net.encoder"}
    # without any name, a module is named by its class
    lone = torch.nn.Linear(3, 1)
    g2 = export(lone(x).sum())
    assert [m["name"] for m in g2["modules"]] == ["Linear"]
    assert "Linear(x)" in _by_label(g2) and "Linear.weight" in _by_label(g2)


def test_module_calls_unwind_on_errors_and_record_nothing_under_no_grad() -> None:
    from engine.core import _mode

    lin = torch.nn.Linear(2, 2)
    with torch.no_grad():
        assert lin(torch.ones(1, 2)).grad_fn is None
    with pytest.raises(RuntimeError):
        lin(torch.ones(1, 3))
    assert _mode.module is None
    y = torch.tensor([1.0], requires_grad=True) * 2  # recorded outside any module
    assert getattr(y.grad_fn, "module", None) is None


# --- labels ----------------------------------------------------------------------------------


def _tiny() -> dict[str, Any]:
    w = _named(torch.tensor(0.5, requires_grad=True), "w")
    b = _named(torch.tensor(0.0, requires_grad=True), "b")
    x, y = _named(torch.tensor(2.0), "x"), _named(torch.tensor(7.0), "y")
    with record_passes() as log:
        ((w * x + b - y) ** 2).backward()
    return log.graphs[0]


def test_unnamed_results_are_labelled_from_what_made_them() -> None:
    g = _tiny()
    labels = [n["label"] for n in g["nodes"] if n["kind"] in ("op", "output")]
    assert labels == ["w · x", "w · x + b", "w · x + b − y", "(w · x + b − y)^2"]
    assert all(n["name"] is None for n in g["nodes"] if n["kind"] in ("op", "output"))
    for n in _mlp_graph()["nodes"] + g["nodes"]:
        assert not re.search(r"#\d|^n\d+$", n["label"]), n["label"]


def test_long_labels_keep_the_outermost_operator_and_elide_inside() -> None:
    x = _named(torch.tensor([0.5, 1.0], requires_grad=True), "x")
    y = ((x.exp() + x.sin() * x.cos() - 3) ** 2).sum()
    g = export(y)
    labels = {n["label"]: n for n in g["nodes"]}
    assert "exp(x) + sin(x) · cos(x)" in labels  # fits: shown whole
    long = [n for n in g["nodes"] if "…" in n["label"]]
    assert long, "nothing was elided"
    for n in long:
        assert len(n["label"]) <= LABEL_MAX
        assert "…" not in n["expression"]  # the whole expression stays available
    assert [n["label"] for n in long] == [
        "exp(x) + … − 3",
        "(exp(x) + … − 3)^2",
        "Σ ((exp(x) + … − 3)^2)",
    ]
    assert g["nodes"][-1]["expression"] == "Σ ((exp(x) + sin(x) · cos(x) − 3)^2)"


def test_leaves_without_names_read_as_their_value_or_shape() -> None:
    a = torch.ones(3, 2, requires_grad=True)
    g = export((a * 2.5).sum())
    labels = [n["label"] for n in g["nodes"]]
    assert labels[:2] == ["tensor [3, 2]", "2.5"]


def test_ref_and_formulas_bracket_labels_with_operators() -> None:
    x = _named(torch.tensor(3.0, requires_grad=True), "x")
    with record_passes() as log:
        dy = _named((x**2) * 3, "dy_dx")
        dy.backward()
    g = log.graphs[0]
    nodes = _by_label(g)
    assert nodes["x^2"]["ref"] == "(x^2)" and nodes["x"]["ref"] == "x"
    text = "\n".join(s["formula"] for s in g["walk"])
    assert "∂dy_dx/∂(x^2)" in text and "∂dy_dx/∂x^2" not in text
    tiny = _tiny()
    assert _by_label(tiny)["w · x + b"]["ref"] == "(w · x + b)"  # (w · x + b).grad, not b.grad
    assert any("∂L/∂(w · x + b)" in s["formula"] for s in tiny["walk"])


def _number(text: str) -> float:
    return float(text.replace("−", "-"))


def test_each_contribution_line_agrees_with_its_accumulated_grad() -> None:
    """The number a line ends with is that contribution's accumulated_grad, and a leaf's last
    contribution is the gradient on its node, over several accumulating passes."""
    w = _named(torch.tensor(1.5, requires_grad=True), "w")
    with record_passes() as log:
        for k in range(3):
            x = torch.tensor(float(k + 1))
            (w * x * w + w).backward()  # w used three times per pass, .grad accumulates
    for g in log.graphs:
        leaf = next(n for n in g["nodes"] if n["name"] == "w")
        last = None
        for step in g["walk"]:
            for c in step["contributions"]:
                shown = _number(re.split(r"→|=", c["formula"])[-1].strip())
                assert shown == pytest.approx(c["accumulated_grad"], rel=1e-3), c["formula"]
                if c["to"] == leaf["id"]:
                    last = c["accumulated_grad"]
        assert last == pytest.approx(leaf["grad"])


# --- the graph up to a forward error, and the graph of live tensors ---------------------------


def test_a_shape_error_keeps_the_graph_recorded_up_to_it() -> None:
    x = _named(torch.randn(3, 4), "x")
    w = _named(torch.randn(5, 2, requires_grad=True), "w")
    h = _named(w * 2 + 1, "h")
    with pytest.raises(RuntimeError, match="cannot be multiplied") as info:
        x @ h
    op, inputs = info.value.failed_op
    assert op == "matmul" and inputs[0] is x and inputs[1] is h
    g, error_id = export_error([x, w, h], info.value.failed_op)
    json.dumps(g)
    err = next(n for n in g["nodes"] if n["id"] == error_id)
    assert err["kind"] == "error" and err["label"] == "x @ h" and err["op"] == "matmul"
    assert err["operand_shapes"] == [[3, 4], [5, 2]] and g["root"] == error_id
    ids = {n["label"]: n["id"] for n in g["nodes"]}
    assert {(e["src"], e["arg"]) for e in g["edges"] if e["dst"] == error_id} == {
        (ids["x"], 0),
        (ids["h"], 1),
    }
    assert {"w", "w · 2"} <= set(ids)  # h's own history is there


def test_dtype_and_broadcast_errors_and_errors_inside_a_module() -> None:
    a, b = torch.ones(2, 3), torch.ones(3, 2, dtype=torch.float64)
    with pytest.raises(RuntimeError, match="same dtype") as info:
        a @ b
    assert info.value.failed_op[0] == "matmul"
    with pytest.raises(RuntimeError, match="must match the size") as info:
        torch.ones(2, requires_grad=True) + torch.ones(3)
    assert info.value.failed_op[0] == "add"
    model = _named(torch.nn.Sequential(torch.nn.Linear(3, 2)), "model")
    X = _named(torch.ones(4, 5), "X")
    with pytest.raises(RuntimeError) as info:
        model(X)
    g, error_id = export_error([X], info.value.failed_op)
    err = next(n for n in g["nodes"] if n["id"] == error_id)
    assert err["module"] == "model[0]" and err["operand_shapes"] == [[4, 5], [2, 3], [2]]
    assert "model[0].weight" in _by_label(g)


def test_the_graph_of_live_tensors_without_backward() -> None:
    w = _named(torch.tensor([1.0, 2.0], requires_grad=True), "w")
    u = _named(torch.tensor([3.0]), "u")
    first = _named(w * 3, "first")
    second = _named(first.sum() + 1, "second")
    g = export_tensors([w, u, first, second])
    json.dumps(g)
    assert g["walk"] == [] and g["root"] == _by_label(g)["second"]["id"]
    assert {"w", "u", "first", "second"} <= set(_by_label(g))
    assert np.isclose(_by_label(g)["second"]["value"], 10.0)
    assert export_tensors([])["root"] is None
