"""Budgets bound what a run costs and what the page draws, never what a program computes
(issue 18): no lifetime count of elements, FLOPs or recorded nodes; a graph too big to draw is
drawn around its output and says what it left out; the kernel's limits name their settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from tests.api.conftest import TEST_SETTINGS, make_settings, run
from tests.tolerances import tol

LESSONS = Path(__file__).parents[1] / "programs" / "lessons"


@pytest.fixture(scope="module")
def roomy() -> Iterator[TestClient]:
    """The tests' budgets with a wall clock for a slow shared machine: what is tested here is
    that no *other* budget stops these programs."""
    with TestClient(create_app(make_settings(wall_clock_s=30.0, hard_kill_grace_s=1.0))) as c:
        yield c


def test_a_graph_too_big_to_draw_runs_to_its_end_and_says_what_was_left_out(
    roomy: TestClient,
) -> None:
    limit = int(TEST_SETTINGS["max_graph_nodes"])  # type: ignore[call-overload]
    source = (
        "import torch\n"
        "w = torch.tensor(0.5, requires_grad=True)\n"
        "y = w\n"
        "for i in range(6000):\n"
        "    y = y * 1.0001 + 0.001\n"
        "loss = y * y\n"
        "loss.backward()\n"
        "print(repr(w.grad.item()))\n"
    )
    body = run(roomy, source)
    assert body["ok"], body["error"]
    graph = body["graph"]
    assert len(graph["nodes"]) <= limit
    cut = graph["truncated"]
    assert cut["drawn_nodes"] == len(graph["nodes"])
    assert cut["total_nodes"] >= 2 * 6000 + 2
    assert cut["max_graph_nodes"] == limit
    assert "max_graph_nodes" in body["notice"] and f"{cut['drawn_nodes']:,}" in body["notice"]
    ids = {n["id"] for n in graph["nodes"]}
    assert graph["root"] in ids
    assert all(e["src"] in ids and e["dst"] in ids for e in graph["edges"])
    assert all(step["node"] in ids for step in graph["walk"])
    omitted = [n for n in graph["nodes"] if n["kind"] == "omitted"]
    # where the drawing stops: one tensor, its value and gradient shown, its history not
    assert len(omitted) == 1 and omitted[0]["grad_fn"] in ("AddBackward0", "MulBackward0")
    assert omitted[0]["value"] is not None and omitted[0]["grad"] is not None
    # the gradient of the whole program, as the chain rule gives it: d(y^2)/dw = 2 y dy/dw,
    # in float64; float32 rounds twice a step forward (mul, add) and once backward (mul): 3
    # roundings x 6,000 steps, plus the last product's two, relative to the result
    y, dy = 0.5, 1.0
    for _ in range(6000):
        y, dy = y * 1.0001 + 0.001, dy * 1.0001
    assert float(body["stdout"]) == pytest.approx(2 * y * dy, rel=tol(3 * 6000 + 2))


def test_no_lifetime_count_of_elements_flops_or_nodes(roomy: TestClient) -> None:
    source = (
        "import torch\n"
        "big = torch.zeros(5_000_000)\n"  # over the old per-tensor cap
        "total = 0.0\n"
        "a = torch.ones(300, 300)\n"
        "for i in range(40):\n"  # 40 x 54 MFLOP and 200,000 new elements each time
        "    b = (a @ a) / 300\n"
        "    c = torch.ones(200_000) * i\n"
        "    total += float(b[0, 0] + c[0])\n"
        "x = torch.tensor(1.0, requires_grad=True)\n"
        "for i in range(3000):\n"  # 3,000 passes, 3 nodes each: 9,000 recorded in all
        "    (x * 2.0 + 1.0).backward()\n"
        "print(big.shape, total, x.grad.item())\n"
    )
    body = run(roomy, source)
    assert body["ok"], body["error"]
    assert (
        body["stdout"] == f"torch.Size([5000000]) {float(sum(1 + i for i in range(40)))} 6000.0\n"
    )
    assert body["passes_total"] == 3000


def test_memory_is_bounded_by_the_kernel_and_the_error_names_its_setting(
    client: TestClient,
) -> None:
    body = run(client, "import torch\nprint('before')\nx = torch.ones(10**10)")
    assert not body["ok"]
    assert body["stdout"] == "before\n"
    assert body["error"]["type"] == "MemoryError"
    assert body["error"]["line"] == 3
    assert "sandbox_memory_limit_bytes" in body["error"]["message"]


def test_numpy_and_random_are_seeded_per_run_from_the_request(client: TestClient) -> None:
    import random

    import numpy as np

    source = "import numpy as np, random\nprint(np.random.rand(2).tolist(), random.random())\n"
    np.random.seed(7)
    random.seed(7)
    expected = f"{np.random.rand(2).tolist()} {random.random()}\n"
    assert run(client, source, seed=7)["stdout"] == expected
    assert run(client, source, seed=7)["stdout"] == expected  # another worker, same numbers
    assert run(client, source, seed=8)["stdout"] != expected


@pytest.mark.parametrize(
    ("lesson", "passes"), [("long_polynomial_fit.py", 2000), ("long_two_layer_net.py", 500)]
)
def test_long_lesson_programs_run_to_the_end_drawing_their_last_pass(
    roomy: TestClient, lesson: str, passes: int
) -> None:
    body = run(roomy, (LESSONS / lesson).read_text())
    assert body["ok"], body["error"]
    assert body["passes_total"] == passes
    kept = [g["pass_index"] for g in body["passes"]]
    assert kept[-1] == passes - 1  # the last pass is drawn, its walk included
    assert body["graph"]["walk"]
    assert "truncated" not in body["graph"]
