"""The run service: start the sandbox from settings, run one request, answer validated JSON."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable
from typing import Any

import orjson
from pydantic import ValidationError

from engine import backend
from server.program.budgets import Budgets
from server.sandbox.pool import Outcome, Sandbox, SandboxConfig, SandboxUnavailable
from server.schemas import NotebookRunRequest, NotebookRunResponse, RunRequest, RunResponse
from server.settings import Settings

log = logging.getLogger(__name__)

#: turns a run's outcome into the answer's body (a program's, a notebook's)
Responder = Callable[[Outcome], bytes]

UNJAILED_NOTICE = (
    "This server runs programs without a kernel jail (no seccomp here): it serves this "
    "machine only. Do not expose it."
)


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def long_workers(settings: Settings) -> int:
    """Slots for long programs (besides ``sandbox_workers`` for short ones)."""
    return settings.sandbox_long_workers or 2 * settings.sandbox_workers


def start(settings: Settings, extra_sys_path: list[str] | None = None) -> Sandbox:
    """Start the zygote and its workers; refuse an unjailed sandbox on a public address."""
    config = SandboxConfig(
        workers=settings.sandbox_workers,
        long_workers=long_workers(settings),
        slice_s=settings.sandbox_slice_s,
        restart_deadline_s=settings.sandbox_restart_deadline_s,
        wall_clock_s=settings.wall_clock_s,
        grace_s=settings.hard_kill_grace_s,
        cpu_seconds=settings.cpu_s,
        memory_bytes=settings.sandbox_memory_limit_bytes,
        max_output_chars=settings.max_output_chars,
        mode=settings.sandbox,
        cuda_workers=1 if backend.cuda_is_available() else 0,
        warm_workers=settings.sandbox_warm_workers,
        extra_sys_path=list(extra_sys_path or []),
    )
    sandbox = Sandbox(config)
    if sandbox.mode == "none":
        if settings.sandbox == "auto" and not is_loopback(settings.host):
            sandbox.close()
            raise SandboxUnavailable(
                f"no kernel jail here ({sandbox.reason}): refusing to run programs for "
                f"{settings.host}; serve on a loopback address, or set AGP_SANDBOX=none to "
                "run unjailed on purpose"
            )
        log.warning("sandbox: programs run WITHOUT a kernel jail (%s)", sandbox.reason)
    else:
        log.info(
            "sandbox: seccomp jail, Landlock ABI %d, %d workers", sandbox.landlock, config.workers
        )
    return sandbox


def job_for(request: RunRequest, settings: Settings) -> dict[str, Any]:
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
    }


def notebook_job_for(request: NotebookRunRequest, settings: Settings) -> dict[str, Any]:
    """The job a worker runs for a notebook: its code cells and the cell to show."""
    return {
        "cells": list(request.cells),
        "cell": request.cell,
        "device": request.device,
        "seed": request.seed,
        "budgets": Budgets.from_settings(settings).as_dict(),
        "compare": request.compare,
    }


def error_response(device: str, type_name: str, message: str, stdout: str = "") -> dict[str, Any]:
    return {
        "ok": False, "stdout": stdout, "output_truncated": False, "output_chars": None,
        "graph": None, "graph_pass": None, "structures": [], "passes": [], "passes_total": 0,
        "result": None, "notice": None, "device": device, "timing_ms": {},
        "error": {"type": type_name, "message": message, "line": None, "col": None},
    }  # fmt: skip


def notebook_error_response(
    device: str, shown: int, type_name: str, message: str
) -> dict[str, Any]:
    """A notebook's answer when nothing ran (e.g. the device is not there)."""
    body = error_response(device, type_name, message)
    del body["result"]
    body.update(cell=shown, cells=[])
    return body


def respond(outcome: Outcome, device: str, unjailed: bool) -> bytes:
    """Merge what the worker sent with what it printed, validate it, encode it."""
    if outcome.result is not None:
        body = outcome.result
        body["stdout"] = outcome.stdout
        body.setdefault("output_truncated", False)
        body.setdefault("output_chars", None)
    else:
        error = outcome.error or {"type": "RuntimeError", "message": "the program failed"}
        body = error_response(device, error["type"], error["message"], outcome.stdout)
        body["error"].update({k: error[k] for k in ("line", "traceback") if error.get(k)})
    return _finish(body, outcome, device, unjailed, RunResponse)


def _cell_outputs(outcome: Outcome, shown: int) -> dict[int, str]:
    """What each notebook cell printed: the output from the worker's mark for the cell to the
    next mark (marks are the worker's word: only increasing cell numbers up to ``shown``)."""
    marks: list[tuple[int, int]] = []
    for number, at in outcome.cells:
        if 0 < number <= shown and (not marks or (number > marks[-1][0] and at >= marks[-1][1])):
            marks.append((number, min(at, len(outcome.stdout))))
    ends = [at for _, at in marks[1:]] + [len(outcome.stdout)] * bool(marks)
    return {number: outcome.stdout[at:end] for (number, at), end in zip(marks, ends, strict=True)}


def respond_notebook(outcome: Outcome, device: str, unjailed: bool, shown: int) -> bytes:
    """:func:`respond` for a notebook: each cell that ran with what it printed."""
    printed = _cell_outputs(outcome, shown)
    if outcome.result is not None:
        body = outcome.result
        body["stdout"] = outcome.stdout
        body.setdefault("output_truncated", False)
        body.setdefault("output_chars", None)
        for cell in body.get("cells") or []:
            if isinstance(cell, dict):
                cell["stdout"] = printed.get(cell.get("cell"), "")  # type: ignore[arg-type]
    else:  # no answer from the worker (stopped, killed): what each cell printed until then
        error = outcome.error or {"type": "RuntimeError", "message": "the program failed"}
        body = notebook_error_response(device, shown, error["type"], error["message"])
        body["stdout"] = outcome.stdout
        body["error"].update({k: error[k] for k in ("line", "traceback", "cell") if error.get(k)})
        ran = sorted(printed)
        body["cells"] = [
            {"cell": n, "ok": n != ran[-1], "stdout": printed[n], "result": None} for n in ran
        ]
        body["cell"] = ran[-1] if ran else shown
        body["error"].setdefault("cell", body["cell"])
    return _finish(body, outcome, device, unjailed, NotebookRunResponse)


def _finish(
    body: dict[str, Any],
    outcome: Outcome,
    device: str,
    unjailed: bool,
    model: type[RunResponse] | type[NotebookRunResponse],
) -> bytes:
    """Timings and the unjailed notice added, validated against ``model``, encoded."""
    timing = body.get("timing_ms")
    if isinstance(timing, dict):
        timing.update(outcome.timing_ms)
    if unjailed:
        notice = body.get("notice")
        body["notice"] = (
            f"{notice}\n{UNJAILED_NOTICE}"
            if isinstance(notice, str) and notice
            else UNJAILED_NOTICE
        )
    try:
        model.model_validate(body, strict=True)
    except ValidationError as exc:
        log.warning("a worker's result failed validation: %s", exc.errors()[:3])
        message = "the program's worker sent a malformed result"
        if model is NotebookRunResponse:
            body = notebook_error_response(
                device, int(body.get("cell") or 1), "RuntimeError", message
            )
            body["stdout"] = outcome.stdout
        else:
            body = error_response(device, "RuntimeError", message, outcome.stdout)
    return orjson.dumps(body)
