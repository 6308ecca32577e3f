"""The answer's passes packed (server/program/packing.py): one structure for the passes that
share it, per-pass values as arrays, float32 numbers as float32; unpacked, exactly the graphs
the engine exported."""

from __future__ import annotations

import copy
import gzip
from pathlib import Path
from typing import Any

import numpy as np
import orjson
from fastapi.testclient import TestClient

from recorder.pass_export import structure_of
from server.program.imports import preload
from server.program.output import StringSink
from server.program.packing import pack_answer, unpack_answer
from server.program.runner import run_program
from server.sandbox.worker import encode
from server.schemas import RunResponse
from tests import lesson_programs
from tests.api.packed_fixture import loop_then_scalar

FIXTURES = Path(__file__).parents[1] / "e2e" / "fixtures"
ADAM_30 = lesson_programs.source("class_net_adam_30")

LOOP_THEN_SCALAR = loop_then_scalar(5, "float64")

_MODULES: dict[str, Any] = {}


def _answer(source: str) -> dict[str, Any]:
    """run_program's answer, in this process (whole graphs)."""
    if not _MODULES:
        _MODULES.update(preload())
    result = run_program({"source": source}, StringSink(), _MODULES, timed=False)
    assert result["ok"], result["error"]
    return result


def _numbers(x: Any) -> list[float]:
    """Every float in a JSON-like value, in order (keys sorted)."""
    if isinstance(x, float):
        return [x]
    if isinstance(x, dict):
        return [v for k in sorted(x) for v in _numbers(x[k])]
    if isinstance(x, list):
        return [v for item in x for v in _numbers(item)]
    return []


def test_packing_without_shortening_is_undone_exactly() -> None:
    whole = _answer(LOOP_THEN_SCALAR)
    packed = pack_answer(copy.deepcopy(whole), shorten=False)
    assert len(packed["structures"]) == 2  # the loop's, the scalar pass's
    assert [p["structure"] for p in packed["passes"]] == [0, 0, 0, 0, 0, 1]
    assert packed["graph"] is None and packed["graph_pass"] == 5
    assert all("value" not in n and "grad" not in n for n in packed["structures"][0]["nodes"])
    unpacked = unpack_answer(orjson.loads(encode(packed)))
    assert unpacked["passes"] == orjson.loads(orjson.dumps(whole["passes"]))
    assert unpacked["graph"] == unpacked["passes"][-1] == orjson.loads(orjson.dumps(whole["graph"]))


def test_float32_numbers_travel_shorter_and_read_back_as_the_same_float32() -> None:
    whole = _answer(LOOP_THEN_SCALAR)
    wire = orjson.loads(encode(pack_answer(copy.deepcopy(whole))))
    unpacked = unpack_answer(wire)
    for before, after in zip(whole["passes"], unpacked["passes"], strict=True):
        for a, b in zip(before["nodes"], after["nodes"], strict=True):
            assert a.keys() == b.keys()
            for key in ("value", "grad"):
                x, y = _numbers(a[key]), _numbers(b[key])
                assert len(x) == len(y)
                if a["dtype"] == "torch.float32":  # the same float32, in fewer digits
                    assert np.array_equal(np.float32(x), np.float32(y)), (a["label"], key)
                else:  # float64 (the scalar pass) travels as it is
                    assert x == y, (a["label"], key)
        assert _numbers(before["walk"]) == _numbers(after["walk"]) or np.array_equal(
            np.float32(_numbers(before["walk"])), np.float32(_numbers(after["walk"]))
        )
    weight = next(n for n in wire["structures"][0]["nodes"] if n["label"] == "model.weight")
    index = wire["structures"][0]["nodes"].index(weight)
    text = orjson.dumps(wire["passes"][0]["values"][index]).decode()
    assert max(len(t) for t in text.strip("[]").split(",")) <= 15, text  # not 0.06033783406019211


def test_a_pass_whose_structure_differs_gets_its_own() -> None:
    """A graph the recorder says nothing of is compared: an edited one (its structure number,
    which would vouch for the structure it was exported with, dropped with the edit)."""
    whole = _answer(LOOP_THEN_SCALAR)
    graphs = copy.deepcopy(whole["passes"])
    graphs[2] = dict(graphs[2])  # edited after the export: a plain dict, no structure number
    graphs[2]["nodes"][0]["label"] = "renamed"  # anything but the numbers differs
    packed = pack_answer({"passes": graphs, "graph": None})
    assert [p["structure"] for p in packed["passes"]] == [0, 0, 1, 0, 0, 2]
    assert packed["graph_pass"] is None
    back = unpack_answer(orjson.loads(encode(packed)))
    assert back["passes"][2]["nodes"][0]["label"] == "renamed"
    assert back["passes"][3]["nodes"][0]["label"] == whole["passes"][3]["nodes"][0]["label"]


SHAPE_CHANGES = """
import torch
w = torch.ones(2, 1, requires_grad=True)
for step in range(6):
    x = torch.ones(3 if step == 2 else 4, 2)
    loss = (x @ w).sum()
    loss.backward()
"""


def test_the_recorder_says_which_passes_share_a_structure() -> None:
    """The exporter numbers each template it makes; passes made from it carry its number, and
    the packing groups them by it (a new template of a structure seen before is compared)."""
    whole = _answer(SHAPE_CHANGES)
    numbers = [structure_of(g) for g in whole["passes"]]
    a, b, c = numbers[0], numbers[2], numbers[3]
    assert numbers == [a, a, b, c, c, c] and None not in numbers and len({a, b, c}) == 3
    packed = pack_answer(copy.deepcopy(whole), shorten=False)
    assert [p["structure"] for p in packed["passes"]] == [0, 0, 1, 0, 0, 0]
    unpacked = unpack_answer(orjson.loads(encode(packed)))
    assert orjson.loads(encode(unpacked))["passes"] == orjson.loads(encode(whole))["passes"]


def test_an_error_graph_that_is_not_a_pass_travels_whole(client: TestClient) -> None:
    source = (
        "import torch\nx = torch.ones(3, 2)\nw = torch.ones(3, 2, requires_grad=True)\ny = x @ w\n"
    )
    body = client.post("/api/v1/run", json={"source": source}).json()
    assert not body["ok"] and body["graph"] is not None and body["graph_pass"] is None
    assert body["passes"] == [] and body["structures"] == []


def test_a_training_loop_sends_its_structure_once(client: TestClient) -> None:
    raw = client.post("/api/v1/run", json={"source": ADAM_30}).json()
    RunResponse.model_validate(raw, strict=True)
    assert raw["ok"], raw["error"]
    assert raw["passes_total"] == 30 and len(raw["passes"]) == 20
    assert len(raw["structures"]) == 1 and raw["graph"] is None and raw["graph_pass"] == 19
    assert [p["pass_index"] for p in raw["passes"]] == [*range(19), 29]
    nodes = raw["structures"][0]["nodes"]
    assert all(len(p["values"]) == len(p["grads"]) == len(nodes) for p in raw["passes"])
    # the modules travel once, with the structure
    assert {m["name"] for m in raw["structures"][0]["modules"]} >= {"fc1", "fc2"}


def test_the_30_step_adam_answer_is_at_most_30_kb_compressed(client: TestClient) -> None:
    response = client.post(
        "/api/v1/run", json={"source": ADAM_30}, headers={"accept-encoding": "gzip"}
    )
    assert response.status_code == 200 and response.json()["ok"]
    assert response.headers.get("content-encoding") == "gzip"
    # what travels: the body gzipped as the server sends it (TestClient hands it back inflated)
    sent = len(gzip.compress(response.content, 5))  # the server's level (server/app.py)
    assert sent <= 30 * 1024, f"{sent / 1024:.1f} KB"


def test_a_loop_sends_its_walk_once_and_each_pass_gets_it_back_with_its_own_numbers() -> None:
    whole = _answer(LOOP_THEN_SCALAR)
    wire = orjson.loads(encode(pack_answer(copy.deepcopy(whole), shorten=False)))
    passes = wire["passes"]
    # the loop's five passes: the first sends the walk (numbers left out), the others name it
    assert passes[0]["walk"] and "walk_from" not in passes[0]
    assert [p.get("walk_from") for p in passes[1:5]] == [0, 0, 0, 0]
    assert all("walk" not in p for p in passes[1:5])
    assert passes[5]["walk"] and "walk_from" not in passes[5]  # another structure, its own walk
    back = unpack_answer(wire)
    assert back["passes"] == orjson.loads(orjson.dumps(whole["passes"]))
    # the shared walk carries each pass's own gradients, which differ between passes
    first, second = ([s["grad_output"] for s in p["walk"]] for p in back["passes"][:2])
    assert first != second


def test_a_walk_that_differs_in_what_it_sends_is_sent_again() -> None:
    whole = _answer(LOOP_THEN_SCALAR)
    graphs = copy.deepcopy(whole["passes"])
    graphs[3]["walk"][0]["formula"] += " (changed)"
    packed = pack_answer({"passes": graphs, "graph": None}, shorten=False)
    assert [p.get("walk_from") for p in packed["passes"]] == [None, 0, 0, None, 0, None]
    back = unpack_answer(orjson.loads(encode(packed)))
    assert back["passes"][3]["walk"][0]["formula"].endswith(" (changed)")
    assert not back["passes"][4]["walk"][0]["formula"].endswith(" (changed)")


def test_the_pages_fixture_is_what_unpack_answer_gives() -> None:
    """static/tests/passes.test.ts checks the page's decoder against this pair of files (made by
    ``python -m tests.api.packed_fixture``): the server's decoder gives the same."""
    wire = orjson.loads((FIXTURES / "packed_run.json").read_bytes())
    decoded = orjson.loads((FIXTURES / "packed_run_decoded.json").read_bytes())
    assert any(p.get("walk_from") is not None for p in wire["passes"])
    RunResponse.model_validate(wire, strict=True)
    assert unpack_answer(wire) == decoded
