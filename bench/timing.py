"""Median timing of callables in alternation: warm up, then many short repeats (noisy machines)."""

from __future__ import annotations

import contextlib
import io
import statistics
import time
from collections.abc import Callable
from typing import Any


def fmt_us(seconds: float) -> str:
    return f"{seconds * 1e6:,.1f} µs"


def interleaved_medians(
    fns: dict[str, Callable[[], Any]], min_time: float = 0.4, repeats: int = 15
) -> dict[str, float]:
    """Median seconds per call of several callables, timed in alternation.

    Alternating batches (A, B, C, A, B, C, ...) means a burst of load from elsewhere on a noisy
    machine hits every contestant alike, so the *ratios* of the medians stay meaningful.
    """
    batches: dict[str, int] = {}
    for key, fn in fns.items():
        fn()
        t0 = time.perf_counter()
        n = 0
        while time.perf_counter() - t0 < 0.03:
            fn()
            n += 1
        per = (time.perf_counter() - t0) / n
        batches[key] = max(1, int(min_time / repeats / per))
    samples: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeats):
        for key, fn in fns.items():
            b = batches[key]
            t0 = time.perf_counter()
            for _ in range(b):
                fn()
            samples[key].append((time.perf_counter() - t0) / b)
    return {k: statistics.median(v) for k, v in samples.items()}


def torch_runner(source: str) -> Callable[[], None]:
    """A function that runs ``source`` with real PyTorch (one thread) in this warm process, its
    output discarded: the baseline the benches hold the playground against."""
    import torch

    torch.set_num_threads(1)
    code = compile(source, "<program>", "exec")

    def run() -> None:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, {"__name__": "__main__"})

    return run
