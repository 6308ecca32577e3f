"""Run every tutorial program with real PyTorch and through the playground; print where each stands.

    python -m tests.programs.tutorials.triage            # all of them
    python -m tests.programs.tutorials.triage mm_ d2l_   # those whose name contains mm_ or d2l_

The playground side is tests/sandbox/test_tutorials_vs_torch.py's: the real sandbox with the
product's default budgets, only the wall clock raised. One table row per program: the CPU
seconds PyTorch takes for it (one thread, in a warm process: the one-time imports that a first
optimizer pulls in are paid before), the playground's wall time, and its result: ``ok``,
``differs`` (with the first line that parts), or the error it stopped with (type, first line,
program line), marked ``+ differs before`` when even its output up to the error was not
PyTorch's. A second table groups the programs by that cause, most programs first.
"""

from __future__ import annotations

import os
import sys

for _variable in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_variable] = "1"  # as the suite runs (tests/conftest.py), before NumPy loads

import time  # noqa: E402
from collections import defaultdict  # noqa: E402
from typing import Any  # noqa: E402

from tests.api.differential import run_with_torch, same_output  # noqa: E402
from tests.preludes import load  # noqa: E402
from tests.sandbox.test_tutorials_vs_torch import (  # noqa: E402
    TUTORIALS,
    first_difference,
    run_default,
)

#: an error's first line is cut here in the table (import errors list every importable module)
MESSAGE_CHARS = 110


def warm_torch() -> None:
    """Pay PyTorch's one-time costs (the first optimizer imports torch._dynamo: seconds)."""
    import torch
    import torch.utils.data

    weight = torch.nn.Parameter(torch.ones(1))
    optimizer = torch.optim.SGD([weight], lr=0.1)
    weight.grad = torch.ones(1)
    optimizer.step()


def classify(got: dict[str, Any], expected: dict[str, Any]) -> str:
    """ok, differs (where), or the playground's error (type, first line, program line)."""
    if got["ok"]:
        if same_output(got["stdout"], expected["stdout"]):
            return "ok"
        return "differs: " + first_difference(got["stdout"], expected["stdout"])
    error = got["error"]
    first = error["message"].splitlines()[0] if error["message"] else ""
    if len(first) > MESSAGE_CHARS:
        first = first[:MESSAGE_CHARS] + "..."
    cause = f"{error['type']}: {first}"
    ours = got["stdout"].splitlines()
    theirs = "\n".join(expected["stdout"].splitlines()[: len(ours)])
    before = "" if same_output("\n".join(ours), theirs) else " + differs before"
    return f"{cause} (line {error['line']}){before}"


def cause_of(result: str) -> str:
    """The result without its program line, so that programs stopped alike group together."""
    return result.split(" (line ")[0] if not result.startswith("differs") else "differs"


def main(filters: list[str]) -> int:
    programs = [p for p in TUTORIALS if not filters or any(f in p.stem for f in filters)]
    warm_torch()
    width = max((len(p.stem) for p in programs), default=10)
    print(f"{'program':{width}s}  torch s  playground s  result")
    by_cause: dict[str, list[str]] = defaultdict(list)
    ok = 0
    for program in programs:
        source = load(program)
        start = time.process_time()
        expected = run_with_torch(source)
        torch_s = time.process_time() - start
        if expected["error"] is not None:
            result = f"PyTorch itself fails: {expected['error']}"
            ours_s = 0.0
        else:
            start = time.perf_counter()
            got = run_default(source)
            ours_s = time.perf_counter() - start
            result = classify(got, expected)
        ok += result == "ok"
        by_cause[cause_of(result)].append(program.stem)
        print(f"{program.stem:{width}s}  {torch_s:7.2f}  {ours_s:12.2f}  {result}", flush=True)
    print(f"\n{ok} of {len(programs)} run and print PyTorch's output\n")
    print("programs by cause, most first")
    for cause, names in sorted(by_cause.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        print(f"{len(names):3d}  {cause}\n     {', '.join(names)}")
    return 0 if ok == len(programs) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
