"""Train steps per second for the 2-16-16-2 model: through /api/v1/train vs the engine directly.

Three contestants, timed in alternation (bench.timing.interleaved_medians), 10 steps a call:

- engine: a plain lesson-style loop on ``engine`` (nn.Sequential, CrossEntropyLoss, Adam);
- engine+metrics: the same loop plus what each history row of the API reports (train and
  test loss and accuracy after every step, under no_grad): the engine doing the API's work;
- service: server.training's train() called in-process (adds per-step evaluation on the full train
  and test sets, the boundary grid and the state encoding);
- api: POST /api/v1/train through FastAPI's TestClient, passing the state back each call
  (adds JSON parsing and validation, routing, middleware and orjson encoding);
- http: the same request to a real uvicorn server on 127.0.0.1 over a keep-alive connection
  (TestClient's own thread hop costs ~1-2 ms a request, which no real client pays);
- http floor: an empty POST (/bench/bare: a small body parsed, no work) to the same server on
  the same connection: what any request costs there, the part of "http" no trainer can cut;
- live: the train page's protocol on the same server (WebSocket /api/v1/train/live, playing,
  10 steps an update, each update acknowledged as soon as it arrives): the state and the
  boundary still go out with every update, but no request is parsed, validated or routed.
  The server works up to 2 updates ahead of the acks, so this is a throughput (the server's
  next update overlaps the client reading this one), where http is one round trip per call.

Target: the API costs at most 1.5x the engine per step at 10 steps a call.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import orjson

from server.training.schemas import MOONS_REQUEST

STEPS_PER_CALL = 10
TARGET = 1.5
SPEC: dict[str, Any] = {**MOONS_REQUEST, "steps": STEPS_PER_CALL, "grid": 40}


def _lesson_setup() -> tuple[Any, Any, Any, Any, Any, Any]:
    """The engine, the dataset, and a lesson-style 2-16-16-2 model, loss and Adam."""
    import engine as torch
    from engine import nn
    from engine.random import manual_seed  # torch.manual_seed (mypy: engine has no __all__)
    from server.training import toydata as data

    ds = data.make("moons", n_samples=200, noise=0.1, test_fraction=0.3, seed=0)
    manual_seed(0)
    model = nn.Sequential(
        nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.Tanh(), nn.Linear(16, 2)
    )
    opt = torch.optim.Adam(model.parameters(), lr=0.03)
    return torch, ds, model, nn.CrossEntropyLoss(), opt, np.random.default_rng(0)


def _engine_loop(with_metrics: bool = False) -> Any:
    """10 lesson-style steps; with_metrics adds what each API history row reports (train and
    test loss and accuracy after every step, under no_grad): the engine doing the API's work."""
    torch, ds, model, loss_fn, opt, rng = _lesson_setup()
    splits = [
        (torch.tensor(ds.x_train), torch.tensor(ds.y_train)),
        (torch.tensor(ds.x_test), torch.tensor(ds.y_test)),
    ]
    history: list[list[float]] = []

    def ten_steps() -> None:
        for _ in range(STEPS_PER_CALL):
            rows = rng.choice(ds.n_train, 32, replace=False)
            x, y = torch.tensor(ds.x_train[rows]), torch.tensor(ds.y_train[rows])
            loss = loss_fn(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if with_metrics:
                with torch.no_grad():
                    metrics = []
                    for xs, ys in splits:
                        logits = model(xs)
                        metrics.append(loss_fn(logits, ys).item())
                        metrics.append((logits.argmax(1) == ys).float().mean().item())
                history.append(metrics)
        del history[:-STEPS_PER_CALL]

    return ten_steps


def _http_loop(base: str) -> tuple[Any, Any, Any]:
    import httpx2 as httpx

    client = httpx.Client(base_url=base, timeout=30)
    carried: dict[str, Any] = {"state": None}

    def ten_steps() -> None:
        r = client.post("/api/v1/train", json={**SPEC, "state": carried["state"]})
        r.raise_for_status()
        carried["state"] = orjson.loads(r.content)["state"]  # a client's choice of decoder

    def empty_post() -> None:
        r = client.post("/bench/bare", json={"source": "x = 1"})
        r.raise_for_status()
        orjson.loads(r.content)

    return ten_steps, empty_post, client


def _live_loop(base: str) -> tuple[Any, Any]:
    from websockets.sync.client import connect

    ws = connect(base.replace("http://", "ws://") + "/api/v1/train/live", max_size=2**24)
    ws.send(orjson.dumps({"type": "start", "run": 1, "request": SPEC, "playing": True}).decode())

    def ten_steps() -> None:
        update = orjson.loads(ws.recv(timeout=30))
        assert update["type"] == "update", update
        ws.send('{"type": "ack"}')

    return ten_steps, ws


def _service_loop() -> Any:
    from server.settings import Settings
    from server.training.schemas import TrainRequest
    from server.training.trainer import train

    settings = Settings()
    carried: dict[str, Any] = {"state": None}

    def ten_steps() -> None:
        req = TrainRequest.model_validate({**SPEC, "state": carried["state"]})
        carried["state"] = train(req, settings)["state"]

    return ten_steps


def _api_loop() -> tuple[Any, Any]:
    from fastapi.testclient import TestClient

    from server.app import create_app
    from server.settings import Settings

    client = TestClient(create_app(Settings(rate_limit_per_minute=0, sandbox_workers=1)))
    client.__enter__()
    carried: dict[str, Any] = {"state": None}

    def ten_steps() -> None:
        r = client.post("/api/v1/train", json={**SPEC, "state": carried["state"]})
        r.raise_for_status()
        carried["state"] = orjson.loads(r.content)["state"]  # a client's choice of decoder

    return ten_steps, client


def run(quick: bool = False) -> list[dict[str, Any]]:
    """One row per contestant: seconds per step, steps per second, cost relative to the engine."""
    from bench.api_latency import serve
    from bench.timing import interleaved_medians

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    api, client = _api_loop()
    try:
        with serve(workers=1) as url:
            http, floor, http_client = _http_loop(url)
            live, socket = _live_loop(url)
            medians = interleaved_medians(
                {
                    "engine": _engine_loop(),
                    "engine+metrics": _engine_loop(with_metrics=True),
                    "service": _service_loop(),
                    "api": api,
                    "http": http,
                    "http floor": floor,
                    "live": live,
                },
                min_time=0.3 if quick else 1.0,
                repeats=9 if quick else 15,
            )
            http_client.close()
            socket.close()
    finally:
        client.__exit__(None, None, None)
    base = medians["engine"] / STEPS_PER_CALL
    base_metrics = medians["engine+metrics"] / STEPS_PER_CALL
    titles = {
        "engine": "engine directly (lesson loop)",
        "engine+metrics": "engine directly + per-step train/test metrics (the API's work)",
        "service": "server.training in-process",
        "api": "POST /api/v1/train (TestClient)",
        "http": "POST /api/v1/train (uvicorn on 127.0.0.1, keep-alive)",
        "http floor": f"HTTP floor: an empty POST to that server (its time / {STEPS_PER_CALL})",
        "live": "live WebSocket to that server (the page's protocol, acked at once)",
    }
    rows = []
    for key, seconds in medians.items():
        per_step = seconds / STEPS_PER_CALL
        workload = f"2-16-16-2, batch 32, {STEPS_PER_CALL} steps/call: {titles[key]}"
        rows.append({
            "workload": titles[key] if key == "http floor" else workload,
            "s_per_step": per_step,
            "steps_per_s": 1.0 / per_step,
            "vs_engine": per_step / base,
            "vs_engine_metrics": per_step / base_metrics,
            "target_vs_engine": TARGET if key in ("api", "http", "live") else None,
        })  # fmt: skip
    return rows


def main(quick: bool = False) -> None:
    """Print the rows as a markdown table (``python -m bench`` calls this)."""
    rows = run(quick)
    print("| workload | µs / step | steps / s | × engine (target) | × engine+metrics (target) |")
    print("|---|---|---|---|---|")
    for r in rows:
        target = r["target_vs_engine"]
        mark = (
            ""
            if target is None
            else (f" (≤ {target}) " + ("✓" if r["vs_engine"] <= target else "✗"))
        )
        mark2 = (
            ""
            if target is None
            else (f" (≤ {target}) " + ("✓" if r["vs_engine_metrics"] <= target else "✗"))
        )
        print(
            f"| {r['workload']} | {r['s_per_step'] * 1e6:,.0f} | {r['steps_per_s']:,.0f} "
            f"| {r['vs_engine']:.2f}×{mark} | {r['vs_engine_metrics']:.2f}×{mark2} |"
        )


if __name__ == "__main__":
    main()
