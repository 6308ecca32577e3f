"""``make bench``: every benchmark in one run, printed as a table of medians and ratios."""

from __future__ import annotations

import argparse
import importlib
import os
import sys


def _fmt_ratio(value: float | None, target: float | None) -> str:
    if value is None:
        return "n/a"
    mark = "" if target is None else (" ✓" if value <= target else " ✗")
    return f"{value:.2f}×{mark}"


def engine_table(quick: bool) -> None:
    from bench import engine_bench
    from bench.timing import fmt_us

    rows = engine_bench.run(quick=quick)
    print("\n## Engine vs PyTorch (CPU, 1 thread) vs hand-written NumPy — medians\n")
    print(
        "| workload | engine | PyTorch | NumPy | engine/PyTorch (target) | engine/NumPy (target) |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        torch_t = fmt_us(r["torch_s"]) if r["torch_s"] else "n/a"
        tt = f" (≤ {r['target_vs_torch']})" if r["target_vs_torch"] else ""
        tn = f" (≤ {r['target_vs_numpy']})" if r["target_vs_numpy"] else ""
        print(
            f"| {r['title']} | {fmt_us(r['engine_s'])} | {torch_t} | {fmt_us(r['numpy_s'])} "
            f"| {_fmt_ratio(r['vs_torch'], r['target_vs_torch'])}{tt} "
            f"| {_fmt_ratio(r['vs_numpy'], r['target_vs_numpy'])}{tn} |"
        )


def optional_table(module: str, title: str) -> None:
    """Benchmarks owned by other parts of the system expose ``main()`` (they print)."""
    try:
        mod = importlib.import_module(module)
    except ImportError:
        print(f"\n({title}: {module} not present)")
        return
    print(f"\n## {title}\n")
    if hasattr(mod, "main"):
        mod.main()
    else:
        for row in mod.run():
            print("| " + " | ".join(f"{k}: {v}" for k, v in row.items()) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m bench")
    parser.add_argument("--quick", action="store_true", help="shorter timings")
    parser.add_argument(
        "--only",
        choices=[
            "engine",
            "api",
            "programs",
            "layers",
            "classroom",
            "train",
            "values",
            "draw",
            "lessons",
        ],
        default=None,
    )
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.only in (None, "engine"):
        engine_table(args.quick)
    if args.only in (None, "api"):
        optional_table("bench.api_latency", "/api/v1/run latency and load")
        optional_table("bench.programs", "Lesson programs through the playground vs PyTorch")
    if args.only in (None, "values"):
        optional_table("bench.values_cost", "Watching your own autograd: a 2,000-node Value graph")
    if args.only == "programs":
        optional_table("bench.programs", "Lesson programs through the playground vs PyTorch")
    if args.only in (None, "layers"):
        optional_table("bench.layers", "Lesson programs layer by layer")
    if args.only in (None, "classroom"):
        optional_table(
            "bench.classroom", "A classroom and a flood (server as `make run` starts it)"
        )
    if args.only in (None, "train"):
        optional_table("bench.train_api", "Training through the API vs the engine")
    if args.only in (None, "draw"):
        optional_table("bench.graph_draw", "Run → first draw in Chromium: 1,000 and 5,000 nodes")
    if args.only in (None, "lessons"):  # (the longest: 6 lessons x 3 rounds, ~15-25 min)
        optional_table("bench.long_lessons", "Lessons that train for minutes")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
