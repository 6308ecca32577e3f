"""API latency: /api/v1/run on the lessons' tiny example vs a bare FastAPI endpoint, and a load test.

``python -m bench.api_latency`` prints the table; ``python -m bench`` calls :func:`run_api_bench`.
Both endpoints are served by the same uvicorn process on 127.0.0.1 (same middleware, same
request body), so the ratio isolates what the sandbox adds: the worker round trip, parsing,
interpreting, backward and graph export.
"""

from __future__ import annotations

import contextlib
import os
import random
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import httpx2 as httpx
from fastapi import FastAPI

from server.schemas import TINY_EXAMPLE, RunRequest

HOSTILE_PROGRAMS = (
    "while True:\n    pass",  # infinite loop: stopped at the wall clock (TimeoutError)
    "import torch\nx = torch.randn(100000, 100000)",  # huge tensor: refused before allocating
)
HOSTILE_ERRORS = frozenset({"TimeoutError", "BudgetExceeded"})


def client(base: str, timeout: float = 60) -> httpx.Client:
    """An HTTP client that sends as a browser does: with ``TCP_NODELAY`` (Chromium and Firefox
    set it), so that its request's head and body are not held back by Nagle's algorithm, which
    on a kept-alive connection waits for the server's delayed ACK (~40 ms) and measures the
    client, not the server."""
    nodelay = [(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)]
    return httpx.Client(
        base_url=base, timeout=timeout, transport=httpx.HTTPTransport(socket_options=nodelay)
    )


def bench_app() -> FastAPI:
    """The real app plus ``POST /bench/bare``: same body parsing, no work (uvicorn factory)."""
    from server.app import create_app

    app = create_app()

    @app.post("/bench/bare")
    def bare(request: RunRequest) -> dict[str, Any]:
        return {"ok": True, "stdout": "", "device": request.device}

    return app


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def launch(cmd: list[str], env: dict[str, str], ready_path: str = "/healthz") -> Iterator[str]:
    """Start a server process with ``cmd`` (which must take ``{port}``) on a free loopback port;
    yield its base URL once ``ready_path`` answers 200; stop it on exit."""
    port = _free_port()
    process = subprocess.Popen(
        [part.format(port=port) for part in cmd], env=env, stdout=subprocess.DEVNULL
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"{base}{ready_path}", timeout=1).status_code == 200:
                    break
            time.sleep(0.2)
        else:
            raise RuntimeError("bench server did not start")
        yield base
    finally:
        process.terminate()
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=15)
        if process.poll() is None:
            process.kill()


@contextlib.contextmanager
def serve(workers: int | None = None) -> Iterator[str]:
    """A uvicorn server with bench_app (rate limit off) on a free port; yields its base URL."""
    env = {**os.environ, "AGP_RATE_LIMIT_PER_MINUTE": "0"}
    if workers is not None:
        env["AGP_SANDBOX_WORKERS"] = str(workers)
    cmd = [sys.executable, "-m", "uvicorn", "--factory", "bench.api_latency:bench_app",
           "--host", "127.0.0.1", "--port", "{port}", "--log-level", "warning", "--no-access-log",
           "--no-proxy-headers"]  # fmt: skip
    with launch(cmd, env) as base:
        yield base


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def measure_latency(base: str, samples: int = 300) -> dict[str, float]:
    """Median (and p90) ms of /api/v1/run on the tiny example and of the bare endpoint, interleaved."""
    body = {"source": TINY_EXAMPLE}
    run_ms: list[float] = []
    bare_ms: list[float] = []
    with client(base, 30) as http:
        for _ in range(30):  # warm up both paths and every worker
            http.post("/api/v1/run", json=body)
            http.post("/bench/bare", json=body)
        for _ in range(samples):
            for path, sink in (("/api/v1/run", run_ms), ("/bench/bare", bare_ms)):
                started = time.perf_counter()
                response = http.post(path, json=body)
                sink.append((time.perf_counter() - started) * 1000)
                if response.status_code != 200 or not response.json()["ok"]:
                    raise RuntimeError(f"{path} failed: {response.text[:300]}")
    run_median, bare_median = statistics.median(run_ms), statistics.median(bare_ms)
    return {
        "run_median_ms": run_median,
        "run_p90_ms": _percentile(run_ms, 0.9),
        "bare_median_ms": bare_median,
        "bare_p90_ms": _percentile(bare_ms, 0.9),
        "ratio": run_median / bare_median,
    }


def load_test(
    base: str, clients: int = 16, duration_s: float = 20.0, hostile_ratio: float = 0.1
) -> dict[str, float]:
    """``clients`` threads for ``duration_s``; a ``hostile_ratio`` share of requests is hostile."""
    benign_ms: list[float] = []
    hostile_ms: list[float] = []
    counts = {"requests": 0, "failed": 0, "status_5xx": 0, "hostile_not_user_error": 0}
    lock = threading.Lock()
    stop = time.monotonic() + duration_s

    def client_loop(seed: int) -> None:
        rng = random.Random(seed)
        with client(base) as http:
            while time.monotonic() < stop:
                hostile = rng.random() < hostile_ratio
                source = rng.choice(HOSTILE_PROGRAMS) if hostile else TINY_EXAMPLE
                started = time.perf_counter()
                failed = is_5xx = bad_hostile = False
                try:
                    response = http.post("/api/v1/run", json={"source": source})
                    is_5xx = response.status_code >= 500
                    body = response.json() if response.status_code == 200 else None
                    failed = body is None or (not hostile and not body["ok"])
                    bad_hostile = hostile and (
                        body is None or body["ok"] or body["error"]["type"] not in HOSTILE_ERRORS
                    )
                except httpx.HTTPError:
                    failed = True
                elapsed = (time.perf_counter() - started) * 1000
                with lock:
                    counts["requests"] += 1
                    counts["failed"] += failed
                    counts["status_5xx"] += is_5xx
                    counts["hostile_not_user_error"] += bad_hostile
                    (hostile_ms if hostile else benign_ms).append(elapsed)

    threads = [threading.Thread(target=client_loop, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        **{k: float(v) for k, v in counts.items()},
        "benign": float(len(benign_ms)),
        "hostile": float(len(hostile_ms)),
        "benign_p50_ms": _percentile(benign_ms, 0.5),
        "benign_p99_ms": _percentile(benign_ms, 0.99),
        "hostile_p50_ms": _percentile(hostile_ms, 0.5),
        "requests_per_s": counts["requests"] / duration_s,
    }


def run_api_bench(
    samples: int = 300, clients: int = 16, duration_s: float = 20.0, hostile_ratio: float = 0.1
) -> dict[str, Any]:
    """Both measurements against one fresh uvicorn server; returns plain numbers."""
    with serve(workers=clients) as base:
        latency = measure_latency(base, samples)
        load = load_test(base, clients, duration_s, hostile_ratio)
    return {"latency": latency, "load": load, "cpus": os.cpu_count()}


def format_table(result: dict[str, Any]) -> str:
    """A Markdown table of run_api_bench's result (what docs/benchmarks.md shows)."""
    lat, load = result["latency"], result["load"]
    rows = [
        "| API measurement | value |",
        "|---|---|",
        f"| `/api/v1/run` tiny example, median | {lat['run_median_ms']:.2f} ms (p90 {lat['run_p90_ms']:.2f}) |",
        f"| bare FastAPI endpoint, median | {lat['bare_median_ms']:.2f} ms (p90 {lat['bare_p90_ms']:.2f}) |",
        f"| ratio run / bare (target ≤ 2×) | {lat['ratio']:.2f}× |",
        f"| load: 16 clients × 20 s, 10% hostile: requests | {load['requests']:.0f} ({load['requests_per_s']:.0f}/s; {load['hostile']:.0f} hostile) |",
        f"| load: benign p50 / p99 (target p99 ≤ 1 s) | {load['benign_p50_ms']:.0f} ms / {load['benign_p99_ms']:.0f} ms |",
        f"| load: failed / 5xx / hostile not a user error | {load['failed']:.0f} / {load['status_5xx']:.0f} / {load['hostile_not_user_error']:.0f} |",
    ]
    return "\n".join(rows)


def main() -> None:
    result = run_api_bench()
    print(format_table(result))


if __name__ == "__main__":
    main()
