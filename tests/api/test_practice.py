"""Practice mode through the API: with ``practice``, each pass carries what its walk asks."""

from __future__ import annotations

from fastapi.testclient import TestClient

from server.program.practice import diagnose
from tests.api.conftest import run
from tests.e2e.programs import TINY


def test_a_practice_run_asks_each_steps_gradients(client: TestClient) -> None:
    body = run(client, TINY, practice=True)
    (graph,) = body["passes"]
    questions = graph["practice"]
    assert [q["step"] for q in questions] == list(range(len(graph["walk"])))
    names = {n["id"]: n.get("name") or n.get("label") for n in graph["nodes"]}
    first = questions[0]["asks"]
    assert [names[a["to"]] for a in first] == ["err"]
    assert diagnose(["-12"], first[0]) == "right"
    at_w = [a for q in questions for a in q["asks"] if names[a["to"]] == "w"]
    assert diagnose(["-12"], at_w[0]) == "local_forgotten"


def test_without_practice_no_questions_are_sent(client: TestClient) -> None:
    body = run(client, TINY)
    assert body["passes"][0].get("practice") is None


def test_a_loops_passes_each_carry_their_own_questions(client: TestClient) -> None:
    loop = (
        "import torch\nw = torch.tensor(1.0, requires_grad=True)\n"
        "for step in range(3):\n    loss = (w * 3 - 1) ** 2\n    loss.backward()\n"
        "    with torch.no_grad():\n        w -= 0.1 * w.grad\n    w.grad = None\n"
    )
    body = run(client, loop, practice=True)
    answers = [p["practice"][-1]["asks"][0]["answer"] for p in body["passes"]]
    assert len(answers) == 3 and len(set(answers)) == 3  # each pass's own numbers
