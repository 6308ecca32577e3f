"""Lesson-style programs through the playground's interpreter print what PyTorch prints.

Each file in tests/programs/lessons/ is a small learner program (the seeds' examples and their
variations: autograd by hand, training loops, printing models and grads, error programs). It
runs through the sandbox, as the product runs it, and through real Python with real PyTorch:
stdout must match (numbers to the last printed place, object addresses aside), and a program
that fails must fail the same way (error type, first line of the message, line number).

A lesson that is a gallery example as the editor loads it (examples/) with lines of its own is
not a copy of that example: it reads the example's file (tests/lesson_programs.py).
"""

from __future__ import annotations

import pytest

from tests import lesson_programs
from tests.api.differential import run_with_torch, same_output
from tests.sandbox.helpers import run

pytestmark = pytest.mark.torch

LESSONS = lesson_programs.names()


@pytest.fixture(scope="module")
def torch_oracle() -> None:
    pytest.importorskip("torch")


def test_every_lesson_program_is_found() -> None:
    """The glob finds all of them (a moved folder or a renamed suffix would silently test
    nothing); adding a lesson program adds one here."""
    assert len(LESSONS) == len(set(LESSONS)) == 132


@pytest.mark.parametrize("program", LESSONS)
def test_lesson_matches_pytorch(torch_oracle: None, program: str) -> None:
    source = lesson_programs.source(program)
    expected = run_with_torch(source)
    got = run(source, wall_clock_s=20.0)
    assert same_output(got["stdout"], expected["stdout"]), (got["stdout"], expected["stdout"])
    if expected["error"] is None:
        assert got["ok"], got["error"]
        return
    error = got["error"]
    assert error is not None, "PyTorch failed but the playground did not"
    want = expected["error"]
    assert (error["type"], error["message"].split("\n")[0], error["line"]) == (
        want["type"],
        want["message"],
        want["line"],
    )
