"""The walk recorder and graph export: the lessons' backward walk, node by node."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pytest

import engine as torch
from recorder import record_passes
from recorder.graph import export
from recorder.summaries import scalar, summarise


def _named(t: torch.Tensor, name: str) -> torch.Tensor:
    t._name = name
    return t


def _tiny_graph() -> dict:
    w = _named(torch.tensor(0.5, requires_grad=True), "w")
    b = _named(torch.tensor(0.0, requires_grad=True), "b")
    x = _named(torch.tensor(2.0), "x")
    y = _named(torch.tensor(7.0), "y")
    with record_passes() as log:
        p = _named(w * x, "p")
        s = _named(p + b, "s")
        n = _named(-1.0 * y, "n")
        err = _named(s + n, "err")
        loss = _named(err * err, "loss")
        loss.backward()
    assert log.count == 1
    return log.graphs[0]


def test_tiny_walk_matches_the_lesson() -> None:
    g = _tiny_graph()
    by_name = {n["name"]: n for n in g["nodes"] if n["name"]}
    assert by_name["w"]["grad"] == -24.0 and by_name["b"]["grad"] == -12.0
    assert by_name["loss"]["kind"] == "output" and g["root"] == by_name["loss"]["id"]
    assert by_name["x"]["kind"] == "const" and by_name["x"]["untracked_reason"]
    # the walk runs loss, err, s, p (reverse topological order); n is untracked, so skipped
    order = [next(n["name"] for n in g["nodes"] if n["id"] == s["node"]) for s in g["walk"]]
    assert order == ["loss", "err", "s", "p"]
    first = g["walk"][0]
    # err is used twice by loss = err * err: two contributions, the second one accumulates
    contribs = first["contributions"]
    assert [c["to"] for c in contribs] == [by_name["err"]["id"]] * 2
    assert [c["grad"] for c in contribs] == [-6.0, -6.0]
    assert [c["accumulated_grad"] for c in contribs] == [-6.0, -12.0]
    assert [c["accumulates"] for c in contribs] == [False, True]
    assert "+=" in contribs[1]["formula"] and "−12" in contribs[1]["formula"]
    last = g["walk"][-1]
    assert last["formula"] == "∂loss/∂w = x · ∂loss/∂p = 2 · (−12) = −24"
    assert last["contributions"][0]["local"] == "2"


def test_graph_is_plain_json_with_stable_ids() -> None:
    a, b = _tiny_graph(), _tiny_graph()
    assert json.dumps(a) == json.dumps(b)
    ids = [n["id"] for n in a["nodes"]]
    assert ids == [f"n{i}" for i in range(len(ids))]
    for e in a["edges"]:
        assert e["src"] in ids and e["dst"] in ids


def test_large_values_are_summarised_and_non_finite_become_strings() -> None:
    x = torch.ones(100, requires_grad=True)
    y = (x * float("inf")).sum()
    g = export(y)
    leaf = next(n for n in g["nodes"] if n["kind"] == "param")
    assert set(leaf["value"]) == {"shape", "min", "max", "mean", "preview"}
    assert g["nodes"][-1]["value"] == "Infinity"


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_a_large_arrays_summary_is_its_exact_min_max_and_float64_mean(dtype: Any) -> None:
    """A summary's min and max are the array's own, its mean the float64 sum over the count,
    whatever the layout; with a non-finite element, those of the finite ones."""
    rng = np.random.default_rng(3)
    # magnitudes over six decades and a large offset: a float32 sum would lose digits
    data = 1e3 + rng.standard_normal(64_000) * 10 ** rng.uniform(-3, 3, 64_000)
    a = data.astype(dtype).reshape(400, 160)
    for view in (a, a.T, a[::3, 1::2]):
        s = summarise(view)
        assert s["shape"] == list(view.shape)
        assert (s["min"], s["max"]) == (float(view.min()), float(view.max()))
        assert s["mean"] == float(view.mean(dtype=np.float64))
        # and within a float64 sum's error of the exact mean (a float32 sum is 1e8 times off)
        exact = np.asarray(view, np.float64).ravel()
        error = abs(s["mean"] - math.fsum(exact) / exact.size)
        assert error <= 1e-13 * math.fsum(np.abs(exact)) / exact.size
        assert s["preview"] == view.reshape(-1)[:8].astype(np.float64).tolist()
    b = a.copy()
    b[7, 3] = np.inf
    s = summarise(b)
    finite = a.astype(np.float64)[np.isfinite(b)]
    assert s["max"] == float(finite.max()) and s["mean"] == float(finite.mean())


def test_small_values_are_sent_whole_with_non_finite_numbers_spelled_out() -> None:
    nan, inf = float("nan"), float("inf")
    assert summarise(np.array([1.5, nan, -inf, inf], dtype=np.float32)) == [
        1.5, "NaN", "-Infinity", "Infinity",
    ]  # fmt: skip
    assert summarise(np.array([[1.0, inf], [2.0, 3.0]])) == [[1.0, "Infinity"], [2.0, 3.0]]
    assert summarise(np.array(nan, dtype=np.float32)) == "NaN"
    assert summarise(np.array(0.25, dtype=np.float32)) == 0.25
    # every element finite although their sum is not: sent as the numbers they are
    assert summarise(np.array([1e308, 1e308])) == [1e308, 1e308]
    assert summarise(np.array([3, -2], dtype=np.int64)) == [3, -2]
    assert summarise(np.array([True, False])) == [1, 0]
    assert summarise(2.5) == 2.5 and summarise(None) is None
    assert scalar(np.array([[4.0]], dtype=np.float32)) == 4.0
    assert scalar(np.array([1.0, 2.0])) is None and scalar(np.int64(3)) == 3.0


def test_recording_is_off_by_default_and_passes_are_bounded() -> None:
    w = torch.tensor(1.0, requires_grad=True)
    (w * 2).backward()  # no recorder: nothing kept
    with record_passes(max_passes=3) as log:
        for _ in range(10):
            (w * 3).backward()
    assert log.count == 10
    assert [g["pass_index"] for g in log.graphs] == [0, 1, 9]
    # .grad accumulated over the passes, visible as += on the leaf in later passes
    assert log.graphs[-1]["walk"][0]["contributions"][0]["accumulates"]


def test_untracked_branches_carry_their_reason() -> None:
    w = torch.tensor(2.0, requires_grad=True)
    with torch.no_grad():
        frozen = w * 3
    detached = w.detach() * 4
    out = w * frozen + detached
    g = export(out)
    reasons = {n["untracked_reason"] for n in g["nodes"] if n["kind"] == "const"}
    assert "computed under torch.no_grad()" in reasons


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_walk_of_tensor_graph_has_summaries_not_numbers(shape: tuple[int, ...]) -> None:
    x = torch.tensor(np.arange(np.prod(shape), dtype=np.float32).reshape(shape), requires_grad=True)
    with record_passes() as log:
        (x.tanh() * 2).sum().backward()
    steps = log.graphs[0]["walk"]
    assert len(steps) == 3
    assert all(isinstance(s["formula"], str) and s["formula"] for s in steps)
