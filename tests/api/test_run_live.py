"""A run over a WebSocket (/api/v1/run/live): its Stop keeps what the program recorded.

Closing a streamed run's connection kills its worker, and the passes it recorded with it. Over
the socket, ``{"type": "stop"}`` stops the program where it is (a KeyboardInterrupt at its
line), and the result that follows holds what it printed and the passes it recorded until
then. These tests stop a training loop that would run for a minute, once it has printed that
it took some steps (never after a fixed time), and check what the answer kept.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from server.app import create_app
from server.program.packing import unpack_answer
from server.schemas import NotebookStreamEvent, RunStreamEvent
from tests.api.conftest import make_settings

LOOP = (
    "import torch\n"
    "w = torch.tensor(2.0, requires_grad=True)\n"
    "for step in range(10**9):\n"
    "    loss = (w * 3 - 1) ** 2\n"
    "    loss.backward()\n"
    "    with torch.no_grad():\n"
    "        w -= 0.001 * w.grad\n"
    "    w.grad = None\n"
    "    print('step', step)\n"
)


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    settings = make_settings(wall_clock_s=60.0, hard_kill_grace_s=1.0, sandbox_slice_s=120.0)
    with TestClient(create_app(settings)) as c:
        yield c


def events_until(
    socket: WebSocketTestSession, done: Any, model: type[Any] = RunStreamEvent
) -> list[dict[str, Any]]:
    """Read events (each validated against the documented model) until ``done(event)``."""
    seen: list[dict[str, Any]] = []
    while True:
        event = json.loads(socket.receive_text())
        model.model_validate(event)
        seen.append(event)
        if done(event) or event["event"] in ("result", "busy", "invalid"):
            return seen


def printed(events: list[dict[str, Any]]) -> str:
    return "".join(e.get("text") or "" for e in events if e["event"] == "stdout")


def test_stop_keeps_the_output_and_the_passes_recorded(client: TestClient) -> None:
    with client.websocket_connect("/api/v1/run/live") as socket:
        socket.send_text(json.dumps({"type": "run", "request": {"source": LOOP}}))
        seen: list[dict[str, Any]] = []
        while "step 5\n" not in printed(seen):
            seen += events_until(socket, lambda e: e["event"] == "stdout")
            assert seen[-1]["event"] not in ("result", "busy"), seen[-1]
        socket.send_text(json.dumps({"type": "stop"}))
        rest = events_until(socket, lambda e: False)
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_text()
        assert closed.value.code == 1000
    kinds = [e["event"] for e in rest]
    assert "stopping" in kinds and kinds[-1] == "result", kinds
    body = unpack_answer(rest[-1]["response"])
    error = body["error"]
    assert error["type"] == "KeyboardInterrupt", error
    assert "stopped by Stop" in error["message"], error
    assert 3 <= error["line"] <= 9, error  # a line of the loop, where it was
    # Everything printed before the stop is in the answer, and the passes were kept.
    assert "step 5\n" in body["stdout"]
    passes = body["passes"]
    assert len(passes) >= 6, len(passes)
    assert body["passes_total"] >= len(passes)
    last = passes[-1]
    assert any(n["op"] == "pow" for n in last["nodes"]), [n["op"] for n in last["nodes"]]
    assert last["walk"], "the last pass recorded keeps its backward walk"
    # the steps printed are the passes that ran: as many, give or take the one in flight
    steps = body["stdout"].count("step ")
    assert abs(body["passes_total"] - steps) <= 1, (body["passes_total"], steps)


def test_closing_the_socket_kills_the_run_and_frees_its_slot(client: TestClient) -> None:
    app = client.app
    with client.websocket_connect("/api/v1/run/live") as socket:
        socket.send_text(json.dumps({"type": "run", "request": {"source": LOOP}}))
        events_until(socket, lambda e: e["event"] == "stdout")
    deadline = time.monotonic() + 10
    while app.state.admission.running + app.state.admission.running_long > 0:  # type: ignore[attr-defined]
        assert time.monotonic() < deadline, "the closed run still holds its slot"
        time.sleep(0.05)
    with client.websocket_connect("/api/v1/run/live") as socket:
        socket.send_text(json.dumps({"type": "run", "request": {"source": "print(6 * 7)"}}))
        end = events_until(socket, lambda e: False)
    assert unpack_answer(end[-1]["response"])["stdout"] == "42\n"


def test_a_program_that_will_not_stop_is_killed_and_says_so(client: TestClient) -> None:
    stubborn = (
        "import signal, time\n"
        "signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "print('ready', flush=True)\n"
        "while True:\n"
        "    time.sleep(0.01)\n"
    )
    with client.websocket_connect("/api/v1/run/live") as socket:
        socket.send_text(json.dumps({"type": "run", "request": {"source": stubborn}}))
        events_until(socket, lambda e: "ready" in printed([e]))
        socket.send_text(json.dumps({"type": "stop"}))
        end = events_until(socket, lambda e: False)
    error = end[-1]["response"]["error"]
    assert error["type"] == "KeyboardInterrupt", error
    assert "did not stop within the grace" in error["message"], error
    assert "ready" in end[-1]["response"]["stdout"]


def test_a_first_message_that_is_not_a_run_is_refused_with_its_detail(
    client: TestClient,
) -> None:
    with client.websocket_connect("/api/v1/run/live") as socket:
        socket.send_text(json.dumps({"type": "run", "request": {"source": 3}}))
        event = json.loads(socket.receive_text())
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_text()
    assert event["event"] == "invalid"
    assert event["detail"][0]["loc"][-1] == "source", event
    assert closed.value.code == 1008
    with client.websocket_connect("/api/v1/run/live") as socket:
        socket.send_bytes(b"\x00\x01")
        with pytest.raises(WebSocketDisconnect) as closed:
            socket.receive_text()
    assert closed.value.code == 1008


def test_an_unavailable_device_answers_a_result_at_once(client: TestClient) -> None:
    with client.websocket_connect("/api/v1/run/live") as socket:
        request = {"source": "1 + 1", "device": "cuda"}
        socket.send_text(json.dumps({"type": "run", "request": request}))
        end = events_until(socket, lambda e: False)
    if end[-1]["response"]["ok"]:
        pytest.skip("this machine has a GPU: cuda is available")
    assert "not available" in end[-1]["response"]["error"]["message"]


def test_a_notebook_stopped_keeps_the_cell_it_was_in(client: TestClient) -> None:
    cells = ["import torch\nprint('setup')", LOOP]
    with client.websocket_connect("/api/v1/notebook/run/live") as socket:
        request = {"cells": cells, "cell": 2}
        socket.send_text(json.dumps({"type": "run", "request": request}))
        seen: list[dict[str, Any]] = []
        while "step 3\n" not in printed(seen):
            seen += events_until(socket, lambda e: e["event"] == "stdout", NotebookStreamEvent)
            assert seen[-1]["event"] != "result", seen[-1]
        socket.send_text(json.dumps({"type": "stop"}))
        end = events_until(socket, lambda e: False, NotebookStreamEvent)
    body = unpack_answer(end[-1]["response"])
    assert body["error"]["type"] == "KeyboardInterrupt"
    assert body["error"]["cell"] == 2
    assert len(body["passes"]) >= 4


def test_the_protocol_is_documented_on_a_plain_get(client: TestClient) -> None:
    for path in ("/api/v1/run/live", "/api/v1/notebook/run/live"):
        response = client.get(path)
        assert response.status_code == 426
        assert response.headers["upgrade"] == "websocket"
    schema = client.get("/openapi.json").json()
    assert '{"type": "stop"}' in schema["paths"]["/api/v1/run/live"]["get"]["description"]
