"""WebSocket /api/v1/train/live: the page's run over one connection.

What must hold: a live run is the stateless API's run (bit for bit, resumed on a new connection
too), commands take effect at the next update, the page's acks pace it, refusals are readable,
and a hang-up stops the work.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import pytest
from fastapi.testclient import TestClient
from starlette.testclient import WebSocketTestSession
from starlette.websockets import WebSocketDisconnect

from server.app import create_app
from server.settings import Settings
from server.training import live
from server.training.schemas import MOONS_REQUEST, TrainRequest
from server.training.trainer import Trainer
from tests.api.conftest import make_settings

MOONS: dict[str, Any] = {**MOONS_REQUEST, "steps": 5}
LIVE = "/api/v1/train/live"


@pytest.fixture(scope="module")
def tc() -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(sandbox_workers=1))) as c:
        yield c


def post(tc: TestClient, body: dict[str, Any]) -> dict[str, Any]:
    r = tc.post("/api/v1/train", json=body)
    assert r.status_code == 200, r.text
    result: dict[str, Any] = r.json()
    return result


def start(ws: WebSocketTestSession, request: dict[str, Any], run: int = 1, **kw: Any) -> None:
    ws.send_json({"type": "start", "run": run, "request": request, **kw})


def receive(ws: WebSocketTestSession) -> dict[str, Any]:
    message: dict[str, Any] = ws.receive_json()
    return message


def play_until(
    ws: WebSocketTestSession, step: int, request: dict[str, Any] = MOONS
) -> list[dict[str, Any]]:
    """Play, acknowledging each update as a page would, until an update reaches ``step``, then
    pause. Returns every play update, those still in flight at the pause included."""
    ws.send_json({"type": "play"})
    updates: list[dict[str, Any]] = []
    while not updates or updates[-1]["response"]["state"]["step"] < step:
        updates.append(receive(ws))
        assert updates[-1]["type"] == "update", updates[-1]
        ws.send_json({"type": "ack"})
    ws.send_json({"type": "pause"})
    # A change while paused is answered by an evaluation (one history row): whatever play
    # update comes before it was in flight at the pause.
    ws.send_json({"type": "change", "request": request})
    while len((message := receive(ws))["response"]["history"]) > 1:
        updates.append(message)
    return updates


def rows(updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [row for u in updates for row in u["response"]["history"]]


def test_a_live_run_is_the_stateless_run_bit_for_bit(tc: TestClient) -> None:
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        first = receive(ws)  # paused: the untrained model, evaluated
        assert first["type"] == "update" and first["run"] == 1 and first["seq"] == 1
        assert [r["step"] for r in first["response"]["history"]] == [0]
        updates = play_until(ws, 200)
    at_200 = next(u for u in updates if u["response"]["state"]["step"] == 200)
    one_call = post(tc, {**MOONS, "steps": 200})
    assert at_200["response"]["state"] == one_call["state"]
    assert at_200["response"]["boundary"] == one_call["boundary"]
    played = [r for r in rows(updates) if r["step"] <= 200]
    assert played == one_call["history"]
    assert all(len(u["response"]["history"]) == 5 for u in updates)  # 5 steps an update
    assert [u["seq"] for u in updates] == list(range(2, 2 + len(updates)))


def test_a_run_resumed_on_a_new_connection_continues_exactly(tc: TestClient) -> None:
    """A page whose connection dropped reconnects (to any replica) with its last state."""
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        receive(ws)
        before = play_until(ws, 100)
    last = before[-1]["response"]["state"]
    with tc.websocket_connect(LIVE) as ws:
        start(ws, {**MOONS, "state": last}, run=1, playing=True)
        after = play_until(ws, 200)
    assert after[0]["response"]["history"][0]["step"] == last["step"] + 1
    at_200 = next(u for u in after if u["response"]["state"]["step"] == 200)
    one_call = post(tc, {**MOONS, "steps": 200})
    assert at_200["response"]["state"] == one_call["state"]
    assert [r for r in rows(before + after) if r["step"] <= 200] == one_call["history"]


def reference_rows(state: dict[str, Any] | None, spec: dict[str, Any], steps: int) -> Any:
    """History rows and state of ``steps`` steps from ``state`` under ``spec`` (in process)."""
    req = TrainRequest.model_validate({**spec, "steps": steps, "state": state})
    trainer = Trainer(req, Settings(), max_steps=1_000)
    history = trainer.advance(steps)
    return history, trainer.state()


def test_a_learning_rate_change_while_playing_takes_effect_at_the_next_update(
    tc: TestClient,
) -> None:
    slower = {**MOONS, "optimizer": {"name": "adam", "lr": 0.001}}
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        receive(ws)
        ws.send_json({"type": "play"})
        updates = []
        for _ in range(3):  # the page has shown 3 updates when the learning rate changes
            updates.append(receive(ws))
            ws.send_json({"type": "ack"})
        ws.send_json({"type": "change", "request": slower})
        for _ in range(6):
            updates.append(receive(ws))
            ws.send_json({"type": "ack"})
        ws.send_json({"type": "pause"})
    # The change lands at update k: updates before it continue at lr 0.03, from it on 0.001.
    # With 2 updates in flight at most, k is within the window after the page's 3rd update.
    matches = []
    for k in range(len(updates) + 1):
        old, state = reference_rows(None, MOONS, 5 * k)
        new, _ = reference_rows(state, slower, 5 * (len(updates) - k))
        if old + new == rows(updates):
            matches.append(k)
    assert len(matches) == 1, matches
    assert 3 <= matches[0] <= 3 + live.LIMITS.window, matches


def test_step_takes_one_step_echoes_its_id_and_brings_the_program(tc: TestClient) -> None:
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        receive(ws)
        ws.send_json({"type": "step", "id": 41})
        ws.send_json({"type": "step", "id": 42, "include_graph": True})
        one, two = receive(ws), receive(ws)
    assert (one["id"], two["id"]) == (41, 42)
    assert [r["step"] for r in one["response"]["history"]] == [1]
    assert [r["step"] for r in two["response"]["history"]] == [2]
    assert one["response"]["program"] is None and one["response"]["graph"] is None
    assert "Training step 2" in two["response"]["program"]
    assert two["response"]["graph"]["walk"]
    assert two["response"]["state"] == post(tc, {**MOONS, "steps": 2})["state"]


def test_a_new_start_resets_the_run_and_updates_carry_its_number(tc: TestClient) -> None:
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS, run=1)
        receive(ws)
        played = play_until(ws, 20)
        assert {u["run"] for u in played} == {1}
        start(ws, {**MOONS, "include_data": True}, run=2)
        fresh = receive(ws)
    assert fresh["run"] == 2
    assert fresh["response"]["state"]["step"] == 0
    assert fresh["response"]["data"]["classes"] == 2  # asked for once, with this update
    assert played[0]["response"]["data"] is None


def test_the_page_paces_the_run_two_updates_ahead_at_most(tc: TestClient) -> None:
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        receive(ws)
        ws.send_json({"type": "ack"})  # every update counts, the evaluations too
        before = live.runs.updates
        ws.send_json({"type": "play"})
        first, second = receive(ws), receive(ws)
        time.sleep(0.5)  # no ack: nothing more is computed
        assert live.runs.updates - before == live.LIMITS.window
        ws.send_json({"type": "ack"})
        third = receive(ws)
        ws.send_json({"type": "pause"})
    steps = [u["response"]["state"]["step"] for u in (first, second, third)]
    assert steps == [5, 10, 15]


BAD_MESSAGES: list[tuple[str, str, str]] = [
    ("not json", "{", "json"),
    ("unknown type", '{"type": "jump"}', "type"),
    ("unknown field", '{"type": "play", "speed": 3}', "speed"),
    ("bad run number", '{"type": "start", "run": -1, "request": {}}', "run"),
    ("bad request", '{"type": "start", "run": 1, "request": {"steps": -5}}', "steps"),
]


@pytest.mark.parametrize(("case", "text", "needle"), BAD_MESSAGES, ids=[b[0] for b in BAD_MESSAGES])
def test_a_malformed_message_is_answered_with_an_error_and_the_run_goes_on(
    tc: TestClient, case: str, text: str, needle: str
) -> None:
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        receive(ws)
        ws.send_text(text)
        refused = receive(ws)
        ws.send_json({"type": "step"})
        stepped = receive(ws)
    assert refused["type"] == "error", (case, refused)
    assert needle in json.dumps(refused["detail"]).lower(), (case, refused)
    assert stepped["type"] == "update" and stepped["response"]["state"]["step"] == 1


SPEC_REFUSALS: list[tuple[str, list[dict[str, Any]], str]] = [
    ("before start", [{"type": "play"}], "start"),
    ("zero steps per update", [{"type": "start", "run": 1, "request": {**MOONS, "steps": 0}}],
     "at least 1"),
    ("over a budget", [{"type": "start", "run": 1,
                        "request": {**MOONS, "model": {"hidden": [256, 256]}}}],
     "max_train_parameters"),
    ("over steps per update", [{"type": "start", "run": 1, "request": {**MOONS, "steps": 5000}}],
     "max_train_steps_per_call"),
    ("model changed without a start", [{"type": "start", "run": 1, "request": MOONS},
                                       {"type": "change",
                                        "request": {**MOONS, "model": {"hidden": [8]}}}],
     "state does not match"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("case", "messages", "needle"), SPEC_REFUSALS, ids=[r[0] for r in SPEC_REFUSALS]
)
def test_a_refused_command_or_spec_is_an_error_naming_why(
    tc: TestClient, case: str, messages: list[dict[str, Any]], needle: str
) -> None:
    with tc.websocket_connect(LIVE) as ws:
        for message in messages:
            ws.send_json(message)
        while (answer := receive(ws))["type"] == "update":
            pass
    assert needle in json.dumps(answer["detail"]), (case, answer)
    # the refusal names the run it refuses, so that the page that started it sees it
    assert answer["run"] == max((m["run"] for m in messages if "run" in m), default=0)


def test_a_refused_change_keeps_the_run_and_pauses_it(tc: TestClient) -> None:
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        receive(ws)
        ws.send_json({"type": "step"})
        receive(ws)
        ws.send_json({"type": "change", "request": {**MOONS, "batch_size": 0}})
        assert receive(ws)["type"] == "error"  # pydantic: batch_size >= 1
        ws.send_json({"type": "change", "request": {**MOONS, "device": "tpu"}})
        refused = receive(ws)
        ws.send_json({"type": "step"})
        stepped = receive(ws)
    assert refused["type"] == "error" and "device" in refused["detail"]
    assert stepped["response"]["state"]["step"] == 2  # the run went on from where it was


def test_binary_and_oversized_messages_close_the_connection(tc: TestClient) -> None:
    with tc.websocket_connect(LIVE) as ws:
        ws.send_bytes(b'{"type": "play"}')
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == live.CLOSE_POLICY
    with tc.websocket_connect(LIVE) as ws:
        ws.send_text('{"type": "play", "x": "' + "a" * 300_000 + '"}')
        with pytest.raises(WebSocketDisconnect) as closed:
            ws.receive_json()
    assert closed.value.code == live.CLOSE_TOO_BIG


def test_over_max_runs_a_connection_is_closed_with_retry_after(
    tc: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(max_runs=0, retry_after_s=7))
    with tc.websocket_connect(LIVE) as ws, pytest.raises(WebSocketDisconnect) as closed:
        ws.receive_json()
    assert closed.value.code == 1013
    assert json.loads(closed.value.reason) == {"retry_after": 7}


def test_an_idle_connection_is_closed_and_an_old_one_after_its_update(
    tc: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(idle_s=0.3))
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        receive(ws)
        with pytest.raises(WebSocketDisconnect) as closed:
            receive(ws)
    assert closed.value.code == 1001 and json.loads(closed.value.reason) == {"idle": True}
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(lifetime_s=0.0))
    with tc.websocket_connect(LIVE) as ws:
        start(ws, MOONS)
        assert receive(ws)["type"] == "update"  # the update is delivered, then the close
        with pytest.raises(WebSocketDisconnect) as closed:
            receive(ws)
    assert closed.value.code == 1001 and json.loads(closed.value.reason) == {"reconnect": True}


def test_get_explains_the_websocket_and_docs_describe_the_protocol(tc: TestClient) -> None:
    r = tc.get(LIVE)
    assert r.status_code == 426 and r.headers["upgrade"] == "websocket"
    assert "websocket" in r.json()["detail"].lower()
    doc = tc.get("/openapi.json").json()["paths"][LIVE]["get"]
    for needle in ('"type": "start"', '"type": "ack"', "1013", "retry_after", "bit for bit"):
        assert needle in doc["description"], needle


# ---- a real server: hang-ups and the event loop -----------------------------------------------


@pytest.fixture(scope="module")
def server_url() -> Iterator[str]:
    from server.app import create_app
    from tests.e2e.live_server import live_server

    # room for one long update (see test_a_long_update_does_not_hold_up_the_event_loop)
    settings = make_settings(max_train_steps_per_call=4000, max_train_step_cost=40_000_000)
    with live_server(create_app(settings)) as url:
        yield url


def test_the_run_stops_when_the_client_hangs_up(server_url: str) -> None:
    from websockets.sync.client import connect

    with connect(server_url.replace("http", "ws") + LIVE) as ws:
        ws.send(json.dumps({"type": "start", "run": 1, "request": MOONS, "playing": True}))
        for _ in range(5):
            json.loads(ws.recv(timeout=10))
            ws.send('{"type": "ack"}')
        assert live.runs.active == 1
    deadline = time.monotonic() + 5
    while live.runs.active and time.monotonic() < deadline:
        time.sleep(0.02)
    assert live.runs.active == 0
    steps = live.runs.steps
    time.sleep(0.3)
    assert live.runs.steps == steps  # nothing runs after the hang-up


def test_a_long_update_does_not_hold_up_the_event_loop(server_url: str) -> None:
    """Updates run in a worker thread: while one takes a second, other requests are answered
    within a few ms (a GIL switch interval or so), not after it."""
    from websockets.sync.client import connect

    # ~2,000 steps of a 2-64-64-64-2 MLP on 230 points: a few seconds on a quiet 2-core
    # machine (0.2 s per 400 steps measured), so that blocking the loop would show.
    heavy = {**MOONS, "dataset": {"name": "moons", "n_samples": 230, "seed": 0},
             "model": {"hidden": [64, 64, 64]}, "batch_size": 230, "steps": 2000}  # fmt: skip
    latencies: list[float] = []
    with connect(server_url.replace("http", "ws") + LIVE) as ws, httpx.Client() as client:
        ws.send(json.dumps({"type": "start", "run": 1, "request": heavy}))
        json.loads(ws.recv(timeout=30))
        t0 = time.monotonic()
        ws.send(json.dumps({"type": "play"}))
        done = threading.Event()

        def probe() -> None:
            while not done.is_set():
                t = time.perf_counter()
                client.get(server_url + LIVE)
                latencies.append(time.perf_counter() - t)
                time.sleep(0.01)

        prober = threading.Thread(target=probe)
        prober.start()
        update = json.loads(ws.recv(timeout=60))
        update_s = time.monotonic() - t0
        done.set()
        prober.join()
        ws.send(json.dumps({"type": "pause"}))
    assert update["response"]["state"]["step"] == 2000
    assert update_s > 0.5, update_s  # long enough that blocking would show
    assert len(latencies) >= 10
    latencies.sort()
    assert latencies[len(latencies) // 2] < 0.05, latencies  # median
    assert latencies[-1] < update_s / 4, (latencies[-1], update_s)
