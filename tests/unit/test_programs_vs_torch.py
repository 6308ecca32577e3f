"""Lesson-style programs run with ``import engine as torch`` print what PyTorch prints.

Each file in tests/programs/, and each gallery program that runs to its end (examples/: no
bindings, no expected error; the same files the editor loads), runs twice in a subprocess, once
with PyTorch and once with the engine standing in for it; outputs must match line by line,
numbers within float32 rounding and object addresses ignored.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from server.examples import EXAMPLES, examples_dir
from tests.tolerances import PROGRAM_ROUNDINGS, printed_numbers_match

#: the two files here that are not programs: the engine runner and the error tours' helper
NOT_PROGRAMS = {"run_with_engine.py", "attempt.py"}
PROGRAMS = sorted(
    p for p in (Path(__file__).parents[1] / "programs").glob("*.py") if p.name not in NOT_PROGRAMS
) + [examples_dir() / f"{e.id}.py" for e in EXAMPLES if not e.bindings and e.error is None]
RUNNER = Path(__file__).parents[1] / "programs" / "run_with_engine.py"
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:e[-+]?\d+)?")
ADDRESS = re.compile(r" at 0x[0-9a-f]+")


def _run(args: list[str]) -> str:
    done = subprocess.run(
        [sys.executable, *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=Path(__file__).parents[2],
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return ADDRESS.sub("", done.stdout)


def assert_same_output(expected: str, actual: str) -> None:
    """Same text; numbers within one unit in their last printed place plus float32 rounding of
    the program's computation (tests/tolerances.py: printed_numbers_match)."""
    exp_lines, act_lines = expected.splitlines(), actual.splitlines()
    assert len(exp_lines) == len(act_lines), f"\n--- torch\n{expected}\n--- engine\n{actual}"
    for e, a in zip(exp_lines, act_lines, strict=True):
        assert NUMBER.sub("#", e) == NUMBER.sub("#", a), f"\ntorch : {e}\nengine: {a}"
        for x, y in zip(NUMBER.findall(e), NUMBER.findall(a), strict=True):
            assert printed_numbers_match(x, y, PROGRAM_ROUNDINGS), f"\ntorch : {e}\nengine: {a}"


@pytest.mark.torch
@pytest.mark.parametrize("program", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_program_prints_what_pytorch_prints(program: Path) -> None:
    pytest.importorskip("torch")
    assert_same_output(_run([str(program)]), _run([str(RUNNER), str(program)]))


def test_engine_runs_every_program_without_torch() -> None:
    """The programs run on the engine alone (no PyTorch needed for this half)."""
    for program in PROGRAMS:
        assert _run([str(RUNNER), str(program)]).strip()
