"""Run programs through the real sandbox (zygote, jailed one-shot workers), as the API does."""

from __future__ import annotations

import atexit
import functools
from dataclasses import asdict, replace
from typing import Any

import orjson

from server.program.budgets import Budgets
from server.runs import responses
from server.sandbox.pool import Sandbox, SandboxConfig

FAST = Budgets(wall_clock_s=3.0)


@functools.cache
def sandbox(wall_clock_s: float, memory_bytes: int = 1024**3, renice: bool = True) -> Sandbox:
    """One sandbox per wall-clock budget (its hard kill follows it), closed at exit. With
    ``renice`` off, a long program keeps its niceness (the product's renicing makes it yield to
    fresh ones: on cores that other processes keep busy, it then runs minutes late)."""
    slice_s = SandboxConfig.slice_s if renice else wall_clock_s
    box = Sandbox(
        SandboxConfig(
            workers=2,
            wall_clock_s=wall_clock_s,
            grace_s=1.0,
            memory_bytes=memory_bytes,
            slice_s=slice_s,
        )
    )
    atexit.register(box.close)
    return box


def run(source: str, device: str = "cpu", seed: int = 0, **budget_overrides: Any) -> dict[str, Any]:
    """The response body (a dict) for ``source``, with budgets overridden by keyword."""
    budgets = replace(FAST, **budget_overrides)
    job = {
        "source": source,
        "device": device,
        "seed": seed,
        "bindings": {},
        "budgets": asdict(budgets),
    }
    box = sandbox(budgets.wall_clock_s)
    body: dict[str, Any] = orjson.loads(responses.respond(box.run(job), device, box.mode == "none"))
    return body


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


def run_notebook(
    cells: list[str], cell: int | None = None, seed: int = 0, **budget_overrides: Any
) -> dict[str, Any]:
    """The notebook response body (a dict) for running ``cells`` up to ``cell`` (the last by
    default), with budgets overridden by keyword."""
    budgets = replace(FAST, **budget_overrides)
    shown = cell if cell is not None else len(cells)
    job = {
        "cells": cells,
        "cell": shown,
        "device": "cpu",
        "seed": seed,
        "budgets": asdict(budgets),
    }
    box = sandbox(budgets.wall_clock_s)
    outcome = box.run(job)
    body: dict[str, Any] = orjson.loads(
        responses.respond_notebook(outcome, "cpu", box.mode == "none", shown)
    )
    return body
