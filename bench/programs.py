"""Lesson programs through the playground vs PyTorch running the same source, and the pool.

- the lessons' training loop and a class-based Adam program, POSTed to ``/api/v1/run`` on a
  uvicorn server (keep-alive client), against real PyTorch (one thread) executing the same
  source in this warm process: the ratio is what a learner waits for, round trip included;
- how long a jailed worker takes to be ready (fork from the zygote + rlimits + Landlock +
  seccomp), and one trivial program's whole run through the pool;
- the pool's throughput on this machine: clients posting the tiny example back to back.

``python -m bench.programs`` prints the tables; ``make bench`` includes them.
"""

from __future__ import annotations

import os
import statistics
import threading
import time
from pathlib import Path
from typing import Any

import httpx2 as httpx

from bench.api_latency import serve
from bench.timing import torch_runner
from server.examples import EXAMPLES
from server.schemas import TINY_EXAMPLE

PROGRAMS = {
    "the lessons' training loop (train_pytorch.py, 700 steps)": "seed-train-loop",
    "class Net(nn.Module) + Adam, XOR, 200 steps": "net-module",
}
#: long lesson programs: tests/programs/lessons/ checks their output against PyTorch
LESSONS = Path(__file__).parents[1] / "tests" / "programs" / "lessons"
LONG_PROGRAMS = {
    "a 2,000-step cubic fit on 2,000 points (autograd)": "long_polynomial_fit.py",
    "a two-layer net on 64×1000 inputs, 500 steps": "long_two_layer_net.py",
}


def _sources() -> dict[str, str]:
    by_id = {e.id: e.source for e in EXAMPLES}
    sources = {title: by_id[example_id] for title, example_id in PROGRAMS.items()}
    sources.update({title: (LESSONS / name).read_text() for title, name in LONG_PROGRAMS.items()})
    return sources


def programs_vs_torch(base: str, repeats: int = 15) -> list[dict[str, Any]]:
    rows = []
    with httpx.Client(base_url=base, timeout=120) as client:
        for title, source in _sources().items():
            long_program = title in LONG_PROGRAMS
            torch_run = torch_runner(source)
            torch_run()
            client.post("/api/v1/run", json={"source": source})  # warm both
            ours: list[float] = []
            theirs: list[float] = []
            for _ in range(5 if long_program else repeats):  # interleaved: drift hits both alike
                started = time.perf_counter()
                body = client.post("/api/v1/run", json={"source": source}).json()
                ours.append(time.perf_counter() - started)
                if not body["ok"]:
                    raise RuntimeError(f"{title} failed: {body['error']}")
                started = time.perf_counter()
                torch_run()
                theirs.append(time.perf_counter() - started)
            rows.append(
                {
                    "title": title,
                    "playground_ms": statistics.median(ours) * 1000,
                    "torch_ms": statistics.median(theirs) * 1000,
                    "ratio": statistics.median(ours) / statistics.median(theirs),
                }
            )
    return rows


def worker_readiness(samples: int = 60) -> dict[str, float]:
    """Fork-to-ready time of jailed workers, and a trivial program's whole run, in-process."""
    from server.program.budgets import Budgets
    from server.sandbox.pool import Sandbox, SandboxConfig

    started = time.perf_counter()
    box = Sandbox(SandboxConfig(workers=2))
    try:
        while box.ready_workers() < 2:
            time.sleep(0.001)
        boot = time.perf_counter() - started
        job = {"source": "pass", "budgets": Budgets().as_dict()}
        runs = []
        for _ in range(samples):
            t = time.perf_counter()
            box.run(job)
            runs.append(time.perf_counter() - t)
            time.sleep(0.02)  # let the replacement get ready: we time a warm pool
        ready = list(box.ready_s)
    finally:
        box.close()
    return {
        "boot_s": boot,
        "ready_median_ms": statistics.median(ready) * 1000,
        "ready_p90_ms": sorted(ready)[int(0.9 * len(ready))] * 1000,
        "trivial_run_median_ms": statistics.median(runs) * 1000,
        "mode": box.mode,
    }


def throughput(base: str, clients: int = 4, duration_s: float = 10.0) -> dict[str, float]:
    """Tiny-example runs per second with ``clients`` back-to-back clients."""
    done = [0]
    failed = [0]
    lock = threading.Lock()
    stop = time.monotonic() + duration_s

    def loop() -> None:
        with httpx.Client(base_url=base, timeout=60) as client:
            while time.monotonic() < stop:
                response = client.post("/api/v1/run", json={"source": TINY_EXAMPLE})
                ok = response.status_code == 200 and response.json()["ok"]
                with lock:
                    done[0] += ok
                    failed[0] += not ok

    threads = [threading.Thread(target=loop) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return {
        "runs_per_s": done[0] / duration_s,
        "failed": float(failed[0]),
        "clients": float(clients),
    }


def main() -> None:
    print(
        "\n| program | playground (/api/v1/run) | PyTorch, one thread, same source, warm | ratio "
        "(target ≤ 1.0×) |"
    )
    print("|---|---|---|---|")
    with serve() as base:
        for row in programs_vs_torch(base):
            mark = "✓" if row["ratio"] <= 1.0 else "✗"
            print(
                f"| {row['title']} | {row['playground_ms']:.1f} ms | {row['torch_ms']:.1f} ms "
                f"| {row['ratio']:.2f}× {mark} |"
            )
        rate = throughput(base)
    ready = worker_readiness()
    print("\n| sandbox measurement | value |")
    print("|---|---|")
    print(f"| jail | {ready['mode']} |")
    print(f"| zygote start to 2 workers ready | {ready['boot_s'] * 1000:.0f} ms |")
    print(
        f"| a worker ready (fork + rlimits + Landlock + seccomp), median / p90 | {ready['ready_median_ms']:.1f} / {ready['ready_p90_ms']:.1f} ms |"
    )
    print(
        f"| `pass` through the pool (job, run, result), median | {ready['trivial_run_median_ms']:.2f} ms |"
    )
    print(
        f"| throughput, tiny example, {rate['clients']:.0f} clients back to back ({os.cpu_count()} cores) | {rate['runs_per_s']:.0f} runs/s ({rate['failed']:.0f} failed) |"
    )


if __name__ == "__main__":
    main()
