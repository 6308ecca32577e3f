"""``make test-matrix``: the suite once per forced CPU-feature configuration.

The tests compare float32 results with PyTorch and with fixed numbers. Which rounding each side
makes depends on the machine: NumPy picks its SIMD loops (transcendentals, reductions) by CPU
feature, NumPy's OpenBLAS its matrix kernels by core type, PyTorch its ATen kernels by
``ATEN_CPU_CAPABILITY`` (with or without fused multiply-add) and the MKL inside PyTorch its own
code path by CPU vendor and ISA (its ``sqrt`` and ``sgemm`` round differently on AMD CPUs: the
cause of issue 10). This forces each of them in turn on one machine, so that a tolerance that
holds only on the machine it was chosen on fails here instead of on a newcomer's.

Every run starts from the same environment: the variables below are removed from the
inherited one (an ``OPENBLAS_CORETYPE`` set by the host must not decide a row) and each row
sets its own. A probe in each configuration reports what actually ran (NumPy's enabled
features, OpenBLAS's kernel, ATen's capability), so a row the CPU cannot honour says so.

    python -m tests.matrix                  # every row, then a table: row, pass/fail, wall time
    python -m tests.matrix --only zen,aten-default -- -x tests/unit   # some rows, pytest args
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: Variables that choose a numeric code path; cleared before every row.
MACHINE_VARIABLES = (
    "NPY_DISABLE_CPU_FEATURES",
    "NPY_ENABLE_CPU_FEATURES",
    "OPENBLAS_CORETYPE",
    "OPENBLAS_L2_SIZE",
    "OPENBLAS_VERBOSE",
    "GOTOBLAS_L2_SIZE",
    "ATEN_CPU_CAPABILITY",
    "MKL_CBWR",
    "MKL_ENABLE_INSTRUCTIONS",
    "MKL_DEBUG_CPU_TYPE",
)
#: One thread everywhere (tests/conftest.py sets and checks the same).
ONE_THREAD = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMEXPR_NUM_THREADS": "1",
}
#: NumPy's dispatch targets above its X86_V2 baseline (NumPy 2.4 names).
NUMPY_AVX512 = "X86_V4 AVX512_ICL AVX512_SPR"
NUMPY_AVX2 = "X86_V3 " + NUMPY_AVX512


@dataclass(frozen=True)
class Row:
    name: str
    env: dict[str, str]
    what: str
    #: pytest marker expression; browser tests only where they can tell rows apart (docs/engine.md)
    marks: str = "not e2e"
    expect: dict[str, str] = field(default_factory=dict)


ROWS = [
    Row("native", {}, "this CPU as detected, browser tests included", marks=""),
    Row(
        "numpy-avx2",
        {"NPY_DISABLE_CPU_FEATURES": NUMPY_AVX512},
        "NumPy without its AVX-512 loops",
        expect={"numpy_avx512": "False"},
    ),
    Row(
        "numpy-baseline",
        {"NPY_DISABLE_CPU_FEATURES": NUMPY_AVX2},
        "NumPy at its X86_V2 baseline (no AVX2/FMA loops)",
        expect={"numpy_avx2": "False"},
    ),
    Row(
        "openblas-haswell",
        {"OPENBLAS_CORETYPE": "Haswell"},
        "NumPy's OpenBLAS with its AVX2 kernels",
        expect={"openblas": "Haswell"},
    ),
    Row(
        "openblas-skylakex",
        {"OPENBLAS_CORETYPE": "SkylakeX"},
        "NumPy's OpenBLAS with its AVX-512 kernels",
        expect={"openblas": "SkylakeX"},
    ),
    Row(
        "openblas-zen",
        {"OPENBLAS_CORETYPE": "Zen"},
        "NumPy's OpenBLAS as on AMD Zen (its build maps Zen to the Haswell kernels)",
        expect={"openblas": "Haswell"},
    ),
    Row(
        "aten-default",
        {"ATEN_CPU_CAPABILITY": "default"},
        "PyTorch's ATen kernels without SIMD (no fused multiply-add)",
        expect={"aten": "DEFAULT"},
    ),
    Row(
        "aten-avx2",
        {"ATEN_CPU_CAPABILITY": "avx2"},
        "PyTorch's ATen AVX2 kernels",
        expect={"aten": "AVX2"},
    ),
    Row(
        "aten-avx512",
        {"ATEN_CPU_CAPABILITY": "avx512"},
        "PyTorch's ATen AVX-512 kernels",
        expect={"aten": "AVX512"},
    ),
    Row(
        "mkl-compatible",
        {"MKL_CBWR": "COMPATIBLE"},
        "PyTorch's MKL on its vendor-neutral path: its float32 sqrt rounds otherwise, as on the "
        "AMD EPYC of issue 10 (this row reproduces that failure)",
    ),
    Row(
        "amd-like",
        {
            "NPY_DISABLE_CPU_FEATURES": NUMPY_AVX2,
            "OPENBLAS_CORETYPE": "Zen",
            "ATEN_CPU_CAPABILITY": "default",
            "MKL_CBWR": "COMPATIBLE",
        },
        "every side on its most different path at once",
        expect={"numpy_avx2": "False", "openblas": "Haswell", "aten": "DEFAULT"},
    ),
]

PROBE = """
import json, numpy, threadpoolctl
from numpy._core._multiarray_umath import __cpu_features__ as f
out = {"numpy_avx2": str(f.get("X86_V3", f.get("AVX2"))), "numpy_avx512": str(f.get("X86_V4",
       f.get("AVX512_SKX"))), "openblas": "?", "blas_threads": "?", "aten": "no torch"}
for pool in threadpoolctl.threadpool_info():
    if pool["internal_api"] == "openblas":
        out["openblas"], out["blas_threads"] = pool["architecture"], str(pool["num_threads"])
try:
    import torch
    out["aten"] = torch.backends.cpu.get_cpu_capability()
except ImportError:
    pass
print(json.dumps(out))
"""


def row_env(row: Row) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in MACHINE_VARIABLES}
    return {**env, **ONE_THREAD, **row.env}


def probe(row: Row) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-c", PROBE],
        env=row_env(row),
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    result: dict[str, str] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def run_row(row: Row, pytest_args: list[str]) -> tuple[str, float, str]:
    """(outcome, wall seconds, pytest's summary line) of one row."""
    seen = probe(row)
    honoured = all(seen.get(k) == v for k, v in row.expect.items())
    marks = ["-m", row.marks] if row.marks else []
    start = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *marks, *pytest_args],
        env=row_env(row),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    wall = time.monotonic() - start
    lines = done.stdout.strip().splitlines()
    summary = lines[-1] if lines else done.stderr.strip()[-200:]
    failed = [ln for ln in lines if ln.startswith(("FAILED", "ERROR"))]
    outcome = "pass" if done.returncode == 0 else "FAIL"
    if not honoured:
        outcome += " (not forced: this CPU lacks it)"
    detail = " | ".join([re.sub(r"=+", "", summary).strip(), *failed[:20]])
    seen_text = ", ".join(f"{k}={v}" for k, v in seen.items())
    print(f"[{row.name}] {outcome} in {wall:.0f} s ({seen_text})\n  {detail}", flush=True)
    return outcome, wall, detail


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", help="comma-separated row names")
    parser.add_argument("--list", action="store_true", help="list the rows and exit")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (after --)")
    args = parser.parse_args()
    rows = ROWS
    if args.list:
        for row in rows:
            print(f"{row.name:18} {row.what}  {row.env or ''}")
        return 0
    if args.only:
        wanted = args.only.split(",")
        unknown = set(wanted) - {r.name for r in ROWS}
        if unknown:
            parser.error(f"unknown rows: {', '.join(sorted(unknown))}")
        rows = [r for r in ROWS if r.name in wanted]
    results = [(row, *run_row(row, args.pytest_args)) for row in rows]
    print("\n| configuration | forces | result | wall |\n|---|---|---|---|")
    for row, outcome, wall, _ in results:
        forced = " ".join(f"{k}={v}" for k, v in row.env.items()) or "nothing"
        marks = f" (-m '{row.marks}')" if row.marks else " (whole suite)"
        print(f"| {row.name} | `{forced}`{marks} | {outcome} | {wall:.0f} s |")
    total = sum(wall for _, _, wall, _ in results)
    print(f"\n{sum(o == 'pass' for _, o, _, _ in results)}/{len(results)} passed, {total:.0f} s")
    return 0 if all(o == "pass" for _, o, _, _ in results) else 1


if __name__ == "__main__":
    sys.exit(main())
