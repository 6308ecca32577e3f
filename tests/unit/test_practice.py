"""Practice the walk: the question at each backward step, its answer and the mistakes it can
diagnose come from the recorded walk, and every diagnosis can be reached by typing its value.

The table below names, for representative op rows, the diagnoses their steps give, with a case
for each (typed as a learner would type it); then every row of the op table is run once and
each of its questions is answered right and with each of its mistakes, which must come back as
that mistake (a diagnosis no typed answer can reach teaches nothing)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import numpy as np
import pytest

import engine as torch
from recorder import record_passes
from server.program.practice import KINDS, diagnose, exercises, matches, significant_digits
from server.schemas import PracticeMistake
from tests.unit.op_cases import CASES
from tests.unit.test_op_table import _inputs


def recorded(program: Any) -> dict[str, Any]:
    """The exported graph of the one backward pass ``program()`` runs."""
    with record_passes() as log:
        program()
    graphs: list[dict[str, Any]] = log.graphs
    assert graphs, "no pass recorded"
    return graphs[-1]


def asks_for(graph: dict[str, Any], node: str) -> list[dict[str, Any]]:
    """Every question about the gradient of the node labelled (or named) ``node``."""
    ids = {n["id"] for n in graph["nodes"] if node in (n.get("name"), n.get("label"))}
    return [a for ex in exercises(graph) for a in ex["asks"] if a["to"] in ids]


def tiny() -> None:
    w = torch.tensor(0.5, requires_grad=True)
    b = torch.tensor(0.0, requires_grad=True)
    x, y = torch.tensor(2.0), torch.tensor(7.0)
    w._name, b._name, x._name, y._name = "w", "b", "x", "y"
    err = w * x + b - y
    err._name = "err"
    loss = err * err
    loss.backward()


# ---- the cases, in Chromium's words: the tiny example ----------------------------------


def test_the_tiny_examples_first_question_is_errs_gradient_summed() -> None:
    (ask,) = asks_for(recorded(tiny), "err")
    assert diagnose(["-12"], ask) == "right"
    assert diagnose(["−12"], ask) == "right"  # the page's minus sign
    assert diagnose(["-6"], ask) == "accumulation"  # err · err: one of its two terms
    assert diagnose(["12"], ask) == "sign"


def test_at_w_the_upstream_gradient_alone_is_a_missing_local_derivative() -> None:
    (ask,) = asks_for(recorded(tiny), "w")
    assert diagnose(["-24"], ask) == "right"
    assert diagnose(["-12"], ask) == "local_forgotten"  # ×x left out
    assert diagnose(["2"], ask) == "upstream_forgotten"
    assert diagnose(["-6"], ask) == "local_inverted"  # −12 / x
    assert diagnose(["24"], ask) == "sign"
    assert diagnose(["-25"], ask) == "wrong"
    assert diagnose(["-24", "1"], ask) == "shape"


def test_a_node_with_two_consumers_needs_both_contributions() -> None:
    def program() -> None:
        x = torch.tensor(0.7, requires_grad=True)
        x._name = "x"
        y = x * 2.0
        y._name = "y"
        loss = y.sin() + y * 4.0
        loss.backward()

    asks = asks_for(recorded(program), "y")
    assert len(asks) == 2  # asked at each consumer's step: the sum so far
    _, second = asks
    total = float(np.cos(1.4)) + 4.0
    assert diagnose([repr(total)], second) == "right"
    # the second step's own contribution, without the first's: the += missed
    alone = 4.0 if second["answer"] != pytest.approx(4.0) else float(np.cos(1.4))
    missed = [m["value"] for m in second["mistakes"] if m["kind"] == "accumulation"]
    assert missed and diagnose([repr(missed[0])], second) == "accumulation"
    assert min(abs(missed[0] - alone), abs(missed[0] - (total - alone))) < 1e-6


def test_a_broadcast_bias_typed_unsummed_is_diagnosed() -> None:
    def program() -> None:
        x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
        W = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
        b = torch.tensor([0.1, -0.2], requires_grad=True)
        x._name, W._name, b._name = "x", "W", "b"
        h = x @ W + b
        (h.tanh() * torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()

    graph = recorded(program)
    (ask,) = asks_for(graph, "b")
    (unsummed,) = [m["value"] for m in ask["mistakes"] if m["kind"] == "broadcast"]
    assert np.shape(unsummed) == (3, 2) and ask["shape"] == [2]
    typed = [f"{v:.6g}" for v in np.ravel(unsummed)]
    assert diagnose(typed, ask) == "broadcast"
    assert diagnose([f"{v:.6g}" for v in ask["answer"]], ask) == "right"
    (wask,) = asks_for(graph, "W")
    transposed = np.asarray(wask["answer"]).T.ravel()
    assert diagnose([f"{v:.6g}" for v in transposed], wask) == "transpose"


def test_a_typed_number_counts_as_far_as_its_digits_go() -> None:
    assert significant_digits("-0.00963") == 3 and significant_digits("−12") == 2
    assert matches("-0.00963", -0.009627) and matches("-0.009627", -0.0096270001)
    assert not matches("-0.0096", -0.009627)  # two digits: not enough to tell
    assert not matches("-0.00964", -0.009627)
    assert matches("-12", -12.0) and not matches("-1", -1.2)
    assert matches("1e-3", 0.001) and not matches("abc", 1.0)
    ask = {"answer": -0.009627, "mistakes": []}
    assert diagnose(["-0.0096"], ask) == "digits"  # right as far as it goes: more digits


# ---- every row of the op table --------------------------------------------------------------

#: representative rows and the diagnoses their own step offers (for an input like theirs)
TABLE: dict[str, set[str]] = {
    "mul": {"local_forgotten", "upstream_forgotten", "local_inverted", "sign"},
    "exp": {"local_forgotten", "upstream_forgotten", "local_inverted", "sign"},
    "tanh": {"local_forgotten", "upstream_forgotten", "local_inverted", "sign"},
    "add": {"broadcast", "sign"},
    "matmul": {"transpose", "sign"},
}


def _op_graph(name: str) -> dict[str, Any] | None:
    """The first case of op row ``name``, its inputs requiring grad, weighted by unequal
    numbers (so the upstream gradient is not all ones), recorded; None where the row's output
    is not a small float tensor that requires grad."""
    fn, arrays = _inputs(name, 0)
    tensors = [torch.tensor(a, requires_grad=True) for a in arrays]
    for i, t in enumerate(tensors):
        t._name = f"in{i}"

    def program() -> None:
        out = fn(torch, *tensors)
        if not isinstance(out, torch.Tensor) or not out.requires_grad:
            raise LookupError
        weights = torch.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape) / 7
        (out * weights).sum().backward()

    try:
        return recorded(program)
    except LookupError:
        return None


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_question_and_every_mistake_is_reachable_by_typing_it(name: str) -> None:
    graph = _op_graph(name)
    if graph is None:
        pytest.skip(f"{name}: its output is not a float tensor that requires grad")
    for ex in exercises(graph):
        for ask in ex["asks"]:
            answer = np.ravel(ask["answer"])
            assert diagnose([repr(float(v)) for v in answer], ask) == "right", ask
            for mistake in ask["mistakes"]:
                typed = [repr(float(v)) for v in np.ravel(mistake["value"])]
                assert diagnose(typed, ask) == mistake["kind"], (name, mistake, ask)


@pytest.mark.parametrize("name", sorted(TABLE))
def test_the_table_of_diagnoses_each_row_gives(name: str) -> None:
    graph = _op_graph(name)
    assert graph is not None
    inputs = {n["id"] for n in graph["nodes"] if str(n.get("name", "")).startswith("in")}
    kinds = {
        m["kind"]
        for ex in exercises(graph)
        for ask in ex["asks"]
        if ask["to"] in inputs
        for m in ask["mistakes"]
    }
    assert TABLE[name] <= kinds, (name, kinds)


# ---- the page checks the same way: one table of typed answers for both ----------------------

CASES_FILE = Path(__file__).with_name("practice_cases.json")


def test_the_shared_table_of_typed_answers() -> None:
    """static/tests/practice.test.ts checks the page's diagnose on the same cases."""
    cases = json.loads(CASES_FILE.read_text(encoding="utf-8"))
    kinds = {c["expected"] for c in cases}
    assert {"right", "digits", "shape", "wrong", "broadcast", "transpose"} <= kinds
    for case in cases:
        assert diagnose(case["typed"], case["ask"]) == case["expected"], case["typed"]


def test_the_contract_lists_the_mistakes_in_the_order_they_are_matched() -> None:
    """server.program (inside the worker, no pydantic) and the contract each list the kinds:
    the same kinds, in the same order."""
    assert get_args(PracticeMistake.model_fields["kind"].annotation) == KINDS
