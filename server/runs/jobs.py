"""The job a worker runs: a request and the budgets it runs under, as plain JSON.

A job crosses a pipe into the jailed worker (``server.sandbox.protocol``), so it is a JSON
object; its keys are typed here (:class:`ProgramJob`, :class:`NotebookJob`), and the worker's
runner (``server.program.runner``) reads the same keys.
"""

from __future__ import annotations

from typing import Any, TypedDict

from server.program.budgets import Budgets
from server.schemas import NotebookRunRequest, RunRequest
from server.settings import Settings


class ProgramJob(TypedDict):
    """A program's run: its source, device, seed, bindings and budgets."""

    source: str
    device: str
    seed: int
    bindings: dict[str, Any]
    budgets: dict[str, Any]
    compare: bool
    practice: bool


class NotebookJob(TypedDict):
    """A notebook's run: its code cells, the cell to show (1-based), and the rest as a
    program's."""

    cells: list[str]
    cell: int
    device: str
    seed: int
    budgets: dict[str, Any]
    compare: bool
    practice: bool


#: what a worker is given to run
Job = ProgramJob | NotebookJob


def job_for(request: RunRequest, settings: Settings) -> ProgramJob:
    """The job a worker runs: the request plus the budgets (plain JSON)."""
    return {
        "source": request.source,
        "device": request.device,
        "seed": request.seed,
        "bindings": {
            k: (v.model_dump() if hasattr(v, "model_dump") else v)
            for k, v in request.bindings.items()
        },
        "budgets": Budgets.from_settings(settings).as_dict(),
        "compare": request.compare,
        "practice": request.practice,
    }


def notebook_job_for(request: NotebookRunRequest, settings: Settings) -> NotebookJob:
    """The job a worker runs for a notebook: its code cells and the cell to show."""
    return {
        "cells": list(request.cells),
        "cell": request.cell,
        "device": request.device,
        "seed": request.seed,
        "budgets": Budgets.from_settings(settings).as_dict(),
        "compare": request.compare,
        "practice": request.practice,
    }
