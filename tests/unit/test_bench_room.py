"""bench.layers' floor and room: the arithmetic the table prints, and the floor's program."""

from __future__ import annotations

import pytest

from bench.layers import FLOOR_PROGRAM, room
from server.program.budgets import Budgets
from server.program.imports import preload
from server.program.output import StringSink
from server.program.runner import run_program


def test_room_is_each_target_less_the_bare_engine_and_the_floor() -> None:
    # the Adam row of a quiet run: PyTorch 19.2 ms, engine bare 9.6, x = 1 through the route 7.6
    under_torch, under_bare = room({"torch_ms": 19.2, "bare_ms": 9.6, "floor_ms": 7.6})
    assert under_torch == pytest.approx(19.2 - 9.6 - 7.6)  # 2.0 ms for all of the page's work
    assert under_bare == pytest.approx(1.3 * 9.6 - 9.6 - 7.6)  # below zero: out of reach
    assert under_bare < 0 < under_torch


def test_room_grows_with_the_program() -> None:
    # a long program: the same floor is a small share of what 1.3x leaves
    _, under_bare = room({"torch_ms": 500.0, "bare_ms": 400.0, "floor_ms": 7.6})
    assert under_bare == pytest.approx(0.3 * 400.0 - 7.6)


def test_the_floor_program_runs_and_records_nothing() -> None:
    """The floor's program goes the whole way a program goes (parse, run, answer) and computes
    nothing the page would draw: what it costs through the route is the route's."""
    job = {"source": FLOOR_PROGRAM, "budgets": Budgets().as_dict()}
    result = run_program(job, StringSink(), preload(), timed=False)
    assert result["ok"] is True and result["error"] is None
    assert result["passes"] == [] and result["graph"] is None and result["passes_total"] == 0
