"""POST /api/v1/train and /api/v1/train/stream: exact resume, budgets, graphs, the stream."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
import numpy as np
import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.program.packing import unpack_answer
from server.training.stream import streams
from tests.api.conftest import make_settings
from tests.tolerances import tol

MOONS: dict[str, Any] = {
    "dataset": {"name": "moons", "n_samples": 200, "noise": 0.1, "test_fraction": 0.3, "seed": 0},
    "model": {"hidden": [16, 16], "activation": "tanh"},
    "batch_size": 32,
    "seed": 0,
}


@pytest.fixture(scope="module")
def tc() -> Iterator[TestClient]:
    with TestClient(create_app(make_settings(sandbox_workers=1))) as c:
        yield c


def post(tc: TestClient, body: dict[str, Any], status: int = 200) -> dict[str, Any]:
    r = tc.post("/api/v1/train", json=body)
    assert r.status_code == status, r.text
    assert r.headers["content-type"].startswith("application/json")
    result: dict[str, Any] = r.json()
    return result


def arrays(state: dict[str, Any]) -> list[np.ndarray]:
    out = [np.frombuffer(base64.b64decode(p["data"]), "<f4") for p in state["params"]]
    for slot in state["slots"]:
        out += [np.frombuffer(base64.b64decode(v["data"]), "<f4")
                for v in slot.values() if isinstance(v, dict)]  # fmt: skip
    return out


@pytest.mark.parametrize(
    "optimizer",
    [{"name": "sgd", "lr": 0.3}, {"name": "momentum", "lr": 0.1}, {"name": "adam", "lr": 0.03}],
    ids=["sgd", "momentum", "adam"],
)
def test_two_calls_of_100_equal_one_call_of_200_exactly(
    tc: TestClient, optimizer: dict[str, Any]
) -> None:
    body = {**MOONS, "optimizer": optimizer}
    one = post(tc, {**body, "steps": 200})
    first = post(tc, {**body, "steps": 100})
    second = post(tc, {**body, "steps": 100, "state": first["state"]})
    assert second["state"]["step"] == one["state"]["step"] == 200
    for a, b in zip(arrays(one["state"]), arrays(second["state"]), strict=True):
        assert np.array_equal(a, b)  # bit for bit, optimizer buffers included
    assert second["state"] == one["state"]
    assert first["history"] + second["history"] == one["history"]
    assert [r["step"] for r in one["history"]] == list(range(1, 201))
    assert one["boundary"] == second["boundary"]


def test_response_shape_boundary_and_data(tc: TestClient) -> None:
    out = post(tc, {**MOONS, "steps": 3, "grid": 12, "include_data": True})
    assert set(out["history"][0]) == {"step", "train_loss", "test_loss", "train_acc", "test_acc"}
    assert out["classes"] == 2 and out["parameters"] == 2 * 16 + 16 + 16 * 16 + 16 + 16 * 2 + 2
    grid = np.array(out["boundary"]["probs"])
    assert grid.shape == (12, 12, 2)
    # two probabilities rounded to 3 decimals (0.0005 each) of a float32 softmax (its division
    # and sum, and the rounded values stored as float32: 6 roundings)
    assert np.allclose(grid.sum(axis=2), 1.0, rtol=0, atol=2 * 0.0005 + tol(6))
    assert out["data"]["classes"] == 2
    assert len(out["data"]["train"]) == 140 and len(out["data"]["test"]) == 60
    assert out["graph"] is None and out["program"] is None
    assert out["state"]["layers"] == [2, 16, 16, 2]


def test_zero_steps_evaluates_the_initial_model(tc: TestClient) -> None:
    out = post(tc, {**MOONS, "steps": 0})
    assert [r["step"] for r in out["history"]] == [0]
    assert out["state"]["step"] == 0 and out["state"]["optimizer"] is None


def test_include_graph_returns_the_last_step_graph_and_its_program(tc: TestClient) -> None:
    out = post(tc, {**MOONS, "steps": 2, "include_graph": True})
    graph = out["graph"]
    names = {n["name"] for n in graph["nodes"] if n["name"]}
    assert {"X", "y", "W1", "b1", "W2", "b2", "W3", "b3", "h1", "h2", "logits", "loss"} <= names
    assert graph["walk"] and graph["root"] == next(n["id"] for n in graph["nodes"]
                                                   if n["name"] == "loss")  # fmt: skip
    loss_node = next(n for n in graph["nodes"] if n["name"] == "loss")
    assert "Step 2" in out["program"] or "step 2" in out["program"]
    # The program is the same step as a PyTorch program: the playground runs it and gets the
    # same loss: the same engine operations on the same float32 values (the program's numbers
    # read back exactly) with this machine's NumPy kernels, so the same bits on any CPU.
    run = unpack_answer(tc.post("/api/v1/run", json={"source": out["program"]}).json())
    assert run["ok"], run["error"]
    assert run["stdout"].strip() == f"loss = {loss_node['value']:.4f}"
    run_names = {n["name"] for n in run["graph"]["nodes"] if n["name"]}
    assert names <= run_names
    assert len(run["graph"]["walk"]) == len(graph["walk"])


def test_learning_rate_and_optimizer_may_change_mid_run(tc: TestClient) -> None:
    first = post(tc, {**MOONS, "steps": 20, "optimizer": {"name": "adam", "lr": 0.03}})
    slower = post(tc, {**MOONS, "steps": 5, "optimizer": {"name": "adam", "lr": 0.001},
                       "state": first["state"]})  # fmt: skip
    switched = post(tc, {**MOONS, "steps": 5, "optimizer": {"name": "sgd", "lr": 0.1},
                         "state": first["state"]})  # fmt: skip
    assert slower["state"]["step"] == switched["state"]["step"] == 25
    assert switched["state"]["optimizer"] is None  # plain SGD keeps no buffers


def test_user_points_train(tc: TestClient) -> None:
    pts = [[-0.8, -0.8, 0], [-0.7, -0.6, 0], [0.7, 0.8, 1], [0.6, 0.9, 1], [0.8, 0.6, 1]]
    out = post(tc, {"dataset": {"points": pts, "test_fraction": 0.0}, "steps": 100,
                    "optimizer": {"name": "adam", "lr": 0.05}, "include_data": True})  # fmt: skip
    assert out["history"][-1]["train_acc"] == 1.0 and out["history"][-1]["test_acc"] is None
    added = post(tc, {**MOONS, "dataset": {**MOONS["dataset"], "points": [[0.0, 1.2, 1]]},
                      "steps": 1, "include_data": True})  # fmt: skip
    assert [0.0, 1.2, 1] in added["data"]["train"]


BAD_SPECS: list[tuple[str, Any, str]] = [
    ("not json", "{", ""),
    ("unknown field", {"stpes": 3}, "stpes"),
    ("unknown dataset", {"dataset": {"name": "mnist"}}, "dataset"),
    ("binary set with 3 classes", {"dataset": {"name": "moons", "classes": 3}}, "2 classes"),
    ("too many classes", {"dataset": {"name": "spiral", "classes": 99}}, "classes"),
    ("no name no points", {"dataset": {}}, "points"),
    ("bad point label", {"dataset": {"name": "moons", "points": [[0, 0, 5]]}}, "label"),
    ("point far away", {"dataset": {"points": [[0, 0, 0], [1e9, 0, 1]]}}, "within"),
    ("negative noise", {"dataset": {"name": "moons", "noise": -0.1}}, "noise"),
    ("too many samples", {"dataset": {"name": "moons", "n_samples": 10**6}}, "n_samples"),
    ("zero width", {"model": {"hidden": [16, 0]}}, "widths"),
    ("bad activation", {"model": {"activation": "gelu"}}, "activation"),
    ("too many layers", {"model": {"hidden": [4] * 20}}, "hidden"),
    ("bad optimizer", {"optimizer": {"name": "lbfgs"}}, "optimizer"),
    ("negative lr", {"optimizer": {"name": "sgd", "lr": -1}}, "lr"),
    ("nan lr", '{"optimizer": {"name": "sgd", "lr": NaN}}', ""),
    ("bad betas", {"optimizer": {"name": "adam", "betas": [1.5, 0.9]}}, "betas"),
    ("zero batch", {"batch_size": 0}, "batch_size"),
    ("negative steps", {"steps": -1}, "steps"),
    ("bad device", {"device": "tpu"}, "device"),
    ("over parameter budget", {"model": {"hidden": [256, 256]}}, "max_train_parameters"),
    ("over step budget", {"steps": 50_000}, "steps per call"),
    ("over grid budget", {"grid": 500}, "max_boundary_grid"),
    (
        "over step cost",
        {
            "dataset": {"name": "moons", "n_samples": 5000},
            "model": {"hidden": [64, 64, 64]},
            "batch_size": 5000,
        },
        "max_train_step_cost",
    ),
    ("state of another model", "STATE_OTHER_MODEL", "state does not match"),
    ("state with bad base64", "STATE_BAD_B64", "base64"),
    ("state with wrong byte count", "STATE_SHORT", "bytes"),
    ("state with NaN weights", "STATE_NAN", "NaN"),
    ("state missing adam slots", "STATE_NO_STEP", "step"),
]


def _bad_state(tc: TestClient, kind: str) -> dict[str, Any]:
    good = post(tc, {**MOONS, "steps": 1, "optimizer": {"name": "adam"}})["state"]
    if kind == "STATE_OTHER_MODEL":
        return {"model": {"hidden": [8]}, "state": good}
    state = json.loads(json.dumps(good))
    if kind == "STATE_BAD_B64":
        state["params"][0]["data"] = "!!!not base64!!!"
    elif kind == "STATE_SHORT":
        state["params"][0]["data"] = base64.b64encode(b"\0" * 8).decode()
    elif kind == "STATE_NAN":
        state["params"][1]["data"] = base64.b64encode(np.full(16, np.nan, "<f4").tobytes()).decode()
    elif kind == "STATE_NO_STEP":
        del state["slots"][0]["step"]
    return {**MOONS, "optimizer": {"name": "adam"}, "state": state}


@pytest.mark.parametrize("path", ["/api/v1/train", "/api/v1/train/stream"])
@pytest.mark.parametrize(("case", "spec", "needle"), BAD_SPECS, ids=[b[0] for b in BAD_SPECS])
def test_every_bad_spec_is_a_4xx_with_a_json_body(
    tc: TestClient, path: str, case: str, spec: Any, needle: str
) -> None:
    if isinstance(spec, str) and spec.startswith("STATE_"):
        spec = _bad_state(tc, spec)
    content = spec if isinstance(spec, str) else json.dumps(spec)
    r = tc.post(path, content=content, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500, (case, r.status_code, r.text[:300])
    assert r.headers["content-type"].startswith("application/json")
    body = r.json()
    assert "detail" in body
    assert needle.lower() in json.dumps(body).lower(), body


def test_stream_delivers_progress_then_the_final_state(tc: TestClient) -> None:
    events: list[tuple[str, dict[str, Any]]] = []
    with tc.stream("POST", "/api/v1/train/stream", json={**MOONS, "steps": 12}) as r:
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/event-stream")
        for block in r.read().decode().split("\n\n"):
            if not block.strip():
                continue
            head, data = block.split("\n", 1)
            events.append((head.removeprefix("event: "), json.loads(data.removeprefix("data: "))))
    kinds = [k for k, _ in events]
    assert kinds == ["progress"] * 12 + ["done"]
    assert [d["step"] for _, d in events[:-1]] == list(range(1, 13))
    done = events[-1][1]
    same = post(tc, {**MOONS, "steps": 12})
    assert done["state"] == same["state"] and done["history"] == same["history"]


def test_stream_stops_when_the_client_disconnects() -> None:
    """A real server: read two progress events, hang up, and the run stops soon after."""
    from tests.e2e.live_server import live_server

    with live_server() as url:
        before = streams.steps
        with (
            httpx.Client(base_url=url, timeout=10) as client,
            client.stream("POST", "/api/v1/train/stream", json={**MOONS, "steps": 20_000}) as r,
        ):
            assert r.status_code == 200
            seen = 0
            for line in r.iter_lines():
                if line.startswith("event: progress"):
                    seen += 1
                if seen >= 2:
                    break
        deadline = time.monotonic() + 5
        while streams.active and time.monotonic() < deadline:
            time.sleep(0.02)
        assert streams.active == 0
        ran = streams.steps - before
        time.sleep(0.3)
        assert streams.steps - before == ran  # nothing more runs after the hang-up
        assert ran < 20_000


def test_openapi_documents_train(tc: TestClient) -> None:
    spec = tc.get("/openapi.json").json()
    assert "/api/v1/train" in spec["paths"] and "/api/v1/train/stream" in spec["paths"]
    schema = spec["components"]["schemas"]["TrainRequest"]
    assert schema.get("examples")


def test_long_runs_go_to_a_thread_and_answer_the_same(
    tc: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Short runs answer on the event loop, longer ones in a worker thread: the same answer."""
    import threading

    from server.routes import train as routes
    from server.training.trainer import Trainer, run

    threads: list[str] = []

    def spy(trainer: Trainer, *args: Any) -> dict[str, Any]:
        threads.append(threading.current_thread().name)
        return run(trainer, *args)

    monkeypatch.setattr(routes, "run", spy)
    inline = post(tc, {**MOONS, "steps": 10})
    monkeypatch.setattr(routes, "INLINE_MS", 0.0)
    threaded = post(tc, {**MOONS, "steps": 10})
    assert threads[0] != threads[1]  # the event loop's thread, then a worker
    del inline["timing_ms"], threaded["timing_ms"]
    assert inline == threaded


def test_train_uses_the_apps_settings() -> None:
    app = create_app(make_settings(sandbox_workers=1, max_train_steps_per_call=5))
    with TestClient(app) as c:
        assert c.post("/api/v1/train", json={**MOONS, "steps": 5}).status_code == 200
        r = c.post("/api/v1/train", json={**MOONS, "steps": 6})
        assert r.status_code == 422 and "max_train_steps_per_call=5" in r.text
