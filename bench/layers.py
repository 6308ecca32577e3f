"""Where a lesson program's time goes, layer by layer, through ``/api/v1/run``.

For each lesson program of the issue, medians of interleaved runs (a burst of load from
elsewhere hits every contestant alike), one thread everywhere:

- **PyTorch**: the same source under real PyTorch, warm, in this process;
- **engine bare**: the source compiled as it is (no naming rewrite) and run on the engine
  standing in for ``torch``, nothing recorded: what the program costs the engine itself;
- **runner, unrecorded**: ``run_program`` with recording off (the naming hooks, the Value
  watcher, warnings, budgets: the runner's per-operation hooks);
- **runner**: ``run_program`` as a worker runs it; *export* is the time its kept passes took
  to export (``timing_ms.passes_export``, during the run and after it, plus the answer's
  assembly, ``timing_ms.export``), *recording* the rest of what it costs over the unrecorded
  run (the walk of each kept pass; the passes after them run unwalked, each keeping copies of
  its leaves for the one that turns out the latest, which recorder.replay walks at the end);
- **pack + JSON**: packing the passes and the worker's orjson encoding, the server's decoding,
  validation against RunResponse and re-encoding (what crosses the pipe and the service);
- **API**: ``POST /api/v1/run`` on a uvicorn server, kept-alive client: *pipes + HTTP* is what
  remains (fork, pipes, admission, the thread hop, HTTP, gzip);
- **stream**: ``POST /api/v1/run/stream``, the page's path (the same run, its output relayed as
  it arrives, the answer last), read to its end: a stream that answers later than the plain
  route shows here (it once waited out a 50 ms output window after a program's last print);
- **floor**: ``x = 1`` through ``/api/v1/run``, in the same rounds: what the route costs a
  program that computes nothing (the worker, the pipes, the service, HTTP). Each target's
  *room* is its time less the engine bare and this floor: what the hooks, the recording, the
  export and the packing may cost together. A negative room is a target no recording can
  meet through this route.

Ratios: the API against PyTorch (target ≤ 1.0×) and against the engine bare (≤ 1.3×); the
runner with the page's recording against the same runner without it (what recording costs,
whatever the path around it); and the 30-step Adam program's answer, raw and gzipped as the
server sends it (target ≤ 30 KB).
``python -m bench.layers`` prints the tables; ``make bench`` includes them.
"""

from __future__ import annotations

import builtins
import contextlib
import copy
import io
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson

from bench.api_latency import client, serve
from bench.timing import torch_runner
from server.examples import EXAMPLES
from server.program.budgets import Budgets
from server.program.imports import Importer, preload
from server.program.output import StringSink
from server.program.packing import pack_answer
from server.program.runner import run_program
from server.schemas import RunResponse
from tests import lesson_programs

#: what the route's floor runs: parsed, run and answered as any program, computing nothing
FLOOR_PROGRAM = "x = 1"


def programs() -> dict[str, str]:
    """The issue's four lesson programs: title -> source."""
    by_id = {e.id: e.source for e in EXAMPLES}
    return {
        "the lessons' loop (100 epochs × 7 batches)": by_id["seed-train-loop"],
        "class Net + Adam, 30 steps": lesson_programs.source("class_net_adam_30"),
        "2,000-step cubic fit": lesson_programs.source("long_polynomial_fit"),
        "500-step two-layer net (64×1000)": lesson_programs.source("long_two_layer_net"),
    }


def _bare(source: str, modules: dict[str, Any]) -> Callable[[], None]:
    """The engine running the program as written: no rewrite, no hooks, nothing recorded."""
    code = compile(source, "<program>", "exec")
    importer = Importer(modules)

    def run() -> None:
        env = dict(vars(builtins))
        env["__import__"] = importer
        with contextlib.redirect_stdout(io.StringIO()):
            exec(code, {"__name__": "__main__", "__builtins__": env})

    return run


def _runner(
    source: str, modules: dict[str, Any], record: bool, out: list[Any]
) -> Callable[[], None]:
    job = {"source": source, "budgets": Budgets().as_dict(), "record": record}

    def run() -> None:
        result = run_program(job, StringSink(), modules, timed=False)
        if not result["ok"]:
            raise RuntimeError(result["error"])
        out[:] = [result]

    return run


def _wire(result: dict[str, Any]) -> float:
    """Seconds to pack, encode (worker), decode, validate and encode (service) one answer."""
    body = copy.deepcopy(result)
    started = time.perf_counter()
    pack_answer(body)
    frame = orjson.dumps(body, option=orjson.OPT_SERIALIZE_NUMPY, default=str)
    answer = orjson.loads(frame)
    answer.update(stdout="", output_truncated=False, output_chars=None)
    RunResponse.model_validate(answer, strict=True)
    orjson.dumps(answer)
    return time.perf_counter() - started


def measure(base: str, repeats: int = 7, only: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per program (those whose title contains one of ``only``, if given)."""
    modules = preload()
    rows = []
    chosen = {t: s for t, s in programs().items() if not only or any(o in t for o in only)}
    with client(base, 300) as http:
        for title, source in chosen.items():
            last: list[Any] = []
            contestants: dict[str, Callable[[], Any]] = {
                "torch": torch_runner(source),
                "bare": _bare(source, modules),
                "unrecorded": _runner(source, modules, False, []),
                "runner": _runner(source, modules, True, last),
                "api": lambda s=source: http.post("/api/v1/run", json={"source": s}),
                "stream": lambda s=source: http.post("/api/v1/run/stream", json={"source": s}),
                # the route's own floor, in the same rounds: a program that does nothing
                "floor": lambda: http.post("/api/v1/run", json={"source": FLOOR_PROGRAM}),
            }
            samples: dict[str, list[float]] = {k: [] for k in contestants}
            exports: list[float] = []
            wires: list[float] = []
            for fn in contestants.values():
                fn()  # warm every path (and the server's workers)
            # every program the same number of rounds: three rounds of the long ones left
            # their ratios to this machine's noise (the fit's spanned 1.08-1.55x)
            for _ in range(repeats):
                for name, fn in contestants.items():
                    started = time.perf_counter()
                    fn()
                    samples[name].append(time.perf_counter() - started)
                timing = last[0]["timing_ms"]  # passes_export: every kept pass exported
                exports.append((timing["export"] + timing["passes_export"]) / 1000)
                wires.append(_wire(last[0]))
            med = {k: statistics.median(v) * 1000 for k, v in samples.items()}
            export_ms = statistics.median(exports) * 1000
            wire_ms = statistics.median(wires) * 1000
            rows.append(
                {
                    "title": title,
                    "torch_ms": med["torch"],
                    "bare_ms": med["bare"],
                    "hooks_ms": med["unrecorded"] - med["bare"],
                    "recording_ms": med["runner"] - export_ms - med["unrecorded"],
                    "export_ms": export_ms,
                    "wire_ms": wire_ms,
                    "http_ms": med["api"] - med["runner"] - wire_ms,
                    "api_ms": med["api"],
                    "stream_ms": med["stream"],
                    "floor_ms": med["floor"],
                    "vs_torch": med["api"] / med["torch"],
                    "vs_bare": med["api"] / med["bare"],
                    # the same runner with and without the page's recording, in this process
                    "recorded_vs_unrecorded": med["runner"] / med["unrecorded"],
                }
            )
    return rows


def answer_size(base: str) -> tuple[int, int]:
    """(raw bytes, gzipped bytes as the server sends them) of the 30-step Adam answer."""
    source = lesson_programs.source("class_net_adam_30")
    with client(base, 60) as http:
        raw = http.post(
            "/api/v1/run", json={"source": source}, headers={"accept-encoding": "identity"}
        )
        sent = http.post(
            "/api/v1/run", json={"source": source}, headers={"accept-encoding": "gzip"}
        )
    return len(raw.content), sent.num_bytes_downloaded


def room(row: dict[str, Any]) -> tuple[float, float]:
    """What each target leaves for the page's recording, export and packing, once the engine
    has run the program bare and the route has cost what it costs a program that does nothing:
    (under PyTorch's time, under 1.3× the bare engine), in ms. Negative: the target cannot be
    met through this route, however cheap the recording, on this machine in this run."""
    return (
        row["torch_ms"] - row["bare_ms"] - row["floor_ms"],
        0.3 * row["bare_ms"] - row["floor_ms"],
    )


def _share(part: float, whole: float) -> str:
    return f"{part:.1f} ({part / whole:.0%})"


def main(only: list[str] | None = None) -> None:
    with serve() as base:
        rows = measure(base, only=only)
        raw, sent = answer_size(base)
    print(
        "\n| program | PyTorch | engine bare | runner hooks | recording | export | pack + JSON "
        "| pipes + HTTP | /api/v1/run | vs PyTorch (≤ 1.0×) | vs engine bare (≤ 1.3×) "
        "| runner recorded ÷ unrecorded | /api/v1/run/stream (the page's) |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        whole = r["api_ms"]
        print(
            f"| {r['title']} | {r['torch_ms']:.1f} | {_share(r['bare_ms'], whole)} "
            f"| {_share(r['hooks_ms'], whole)} | {_share(r['recording_ms'], whole)} "
            f"| {_share(r['export_ms'], whole)} | {_share(r['wire_ms'], whole)} "
            f"| {_share(r['http_ms'], whole)} | {whole:.1f} "
            f"| {r['vs_torch']:.2f}× {'✓' if r['vs_torch'] <= 1.0 else '✗'} "
            f"| {r['vs_bare']:.2f}× {'✓' if r['vs_bare'] <= 1.3 else '✗'} "
            f"| {r['recorded_vs_unrecorded']:.2f}× | {r['stream_ms']:.1f} |"
        )
    print("\n(ms, medians; each layer's share of the /api/v1/run time in brackets)")
    print(
        f"\n| program | the route's floor (`{FLOOR_PROGRAM}` through /api/v1/run, same rounds) "
        "| what the page's recording, export and packing cost here "
        "| room under PyTorch's time | room under 1.3× the engine bare |"
    )
    print("|---|---|---|---|---|")
    for r in rows:
        under_torch, under_bare = room(r)
        page = r["hooks_ms"] + r["recording_ms"] + r["export_ms"] + r["wire_ms"]
        print(
            f"| {r['title']} | {r['floor_ms']:.1f} | {page:.1f} "
            f"| {under_torch:.1f} | {under_bare:.1f} |"
        )
    print(
        "\n(room: the target's time less the engine bare and the floor; what the hooks, the "
        "recording, the export and the packing may cost together. Below zero, no recording "
        "however cheap meets the target through this route.)"
    )
    print(
        f"\n| the 30-step Adam answer | raw {raw / 1024:.1f} KB | gzipped as sent {sent / 1024:.1f} KB "
        f"(target ≤ 30 KB) {'✓' if sent <= 30 * 1024 else '✗'} |"
    )


if __name__ == "__main__":
    main(sys.argv[1:] or None)  # e.g. python -m bench.layers Adam loop
