"""Lessons that train for minutes: each through ``/api/v1/run`` with the default
settings, the engine bare, and PyTorch on one thread, side by side in the same run.

The programs are tests/programs/long_lessons/ (tests/api/test_long_lessons.py checks their
output against PyTorch's): a bigram model with AdamW, LeNet, a batch-norm MLP on names, the
dynamic net, a two-layer GPT, a GRU classifier. PyTorch and the engine bare run in this warm
process (no interpreter start, no ``import torch`` counted); the playground's time is the
request's round trip. Beside them, PyTorch as a learner runs the lesson: ``python lesson.py``
in a fresh interpreter on one thread, its start and ``import torch`` included (what the
learner waits for in a terminal or a fresh Colab runtime). Each takes 5-60 s, so rounds
default to 3 (``--rounds``); medians.

``python -m bench.long_lessons [--rounds N] [--only NAME]`` prints the table; ``make bench``
includes it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import httpx2 as httpx

from bench.api_latency import serve
from bench.timing import torch_runner

LESSONS = Path(__file__).parents[1] / "tests" / "programs" / "long_lessons"
TARGET = 1.0  # the playground's wall time against PyTorch's


def engine_runner(source: str) -> Callable[[], None]:
    """``source`` with the engine standing in for torch, in this process, output discarded."""
    import engine

    names = {
        "torch": engine, "torch.nn": engine.nn, "torch.nn.functional": engine.nn.functional,
        "torch.optim": engine.optim, "torch.utils": engine.utils,
        "torch.utils.data": engine.utils.data,
    }  # fmt: skip
    code = compile(source, "<program>", "exec")

    def run() -> None:
        saved = {k: sys.modules.get(k) for k in names}
        sys.modules.update(names)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                exec(code, {"__name__": "__main__"})
        finally:
            for k, v in saved.items():
                if v is None:
                    sys.modules.pop(k, None)
                else:
                    sys.modules[k] = v

    return run


def cold_torch_runner(source: str) -> Callable[[], None]:
    """``source`` run by PyTorch as a learner runs it: a fresh interpreter, one thread."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    script = f"import torch\ntorch.set_num_threads(1)\n{source}"

    def run() -> None:
        subprocess.run(
            [sys.executable, "-c", script], env=env, check=True, capture_output=True, timeout=600
        )

    return run


def _seconds(run: Callable[[], object]) -> float:
    started = time.perf_counter()
    run()
    return time.perf_counter() - started


def main(rounds: int = 3, only: str | None = None) -> None:
    programs = sorted(p for p in LESSONS.glob("*.py") if only is None or p.stem == only)
    print(
        f"({rounds} rounds, medians; PyTorch and the engine bare warm in this process; "
        "PyTorch cold: `python lesson.py`, a fresh interpreter)\n"
    )
    print(
        "| lesson | PyTorch | engine bare | /api/v1/run | run / PyTorch (≤ 1.0) "
        "| PyTorch cold | run / PyTorch cold |"
    )
    print("|---|---|---|---|---|---|---|")
    with serve() as base, httpx.Client(base_url=base, timeout=600) as http:
        for program in programs:
            source = program.read_text()
            torch_run, bare_run = torch_runner(source), engine_runner(source)
            cold_run = cold_torch_runner(source)

            def through_api(source: str = source, name: str = program.stem) -> None:
                body = http.post("/api/v1/run", json={"source": source}).json()
                if not body["ok"]:
                    raise RuntimeError(f"{name}: {body['error']}")

            times: dict[str, list[float]] = {"torch": [], "bare": [], "api": [], "cold": []}
            for _ in range(rounds):  # interleaved: a busy moment hits all four alike
                times["torch"].append(_seconds(torch_run))
                times["bare"].append(_seconds(bare_run))
                times["api"].append(_seconds(through_api))
                times["cold"].append(_seconds(cold_run))
            med = {k: statistics.median(v) for k, v in times.items()}
            ratio = med["api"] / med["torch"]
            mark = "✓" if ratio <= TARGET else "✗"
            cold = med["api"] / med["cold"]
            print(
                f"| {program.stem} | {med['torch']:.2f} s | {med['bare']:.2f} s "
                f"| {med['api']:.2f} s | {ratio:.2f}× {mark} | {med['cold']:.2f} s "
                f"| {cold:.2f}× {'✓' if cold <= TARGET else '✗'} |",
                flush=True,
            )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(prog="python -m bench.long_lessons")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--only", default=None, help="one lesson (its file's stem)")
    args = parser.parse_args()
    main(args.rounds, args.only)
