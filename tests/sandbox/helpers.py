"""Run programs in-process (no worker pool) for fast interpreter tests."""

from __future__ import annotations

from dataclasses import asdict, replace
from typing import Any

from server.sandbox.budgets import Budgets
from server.sandbox.runner import run_program

FAST = Budgets(wall_clock_s=2.0)


def run(source: str, **budget_overrides: Any) -> dict[str, Any]:
    """The run result dict for source, with budgets overridden by keyword."""
    budgets = replace(FAST, **budget_overrides)
    return run_program({"source": source, "budgets": asdict(budgets)})


def out(source: str) -> str:
    """stdout of a program that must succeed."""
    result = run(source)
    assert result["ok"], result["error"]
    return str(result["stdout"])


def err(source: str, **budget_overrides: Any) -> dict[str, Any]:
    """The error of a program that must fail."""
    result = run(source, **budget_overrides)
    assert not result["ok"], result["stdout"]
    assert result["error"] is not None
    return dict(result["error"])
