"""The run service: start the sandbox from settings, run one request, answer validated JSON."""

from __future__ import annotations

import ipaddress
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
from pydantic import ValidationError

from engine import backend
from server import capacity
from server.program.budgets import Budgets, cut_answer_text
from server.sandbox import answers
from server.sandbox.pool import Outcome, Sandbox, SandboxConfig, SandboxUnavailable
from server.schemas import NotebookRunRequest, NotebookRunResponse, RunRequest, RunResponse
from server.settings import Settings

log = logging.getLogger(__name__)

#: turns a run's outcome into the answer (a program's, a notebook's): ProgramAnswer and its kin
Responder = Callable[[Outcome], tuple[bytes, bool]]

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


def start(settings: Settings, extra_sys_path: list[str] | None = None) -> Sandbox:
    """Start the zygote and its workers; refuse an unjailed sandbox on a public address."""
    short, long = capacity.run_slots(settings)
    config = SandboxConfig(
        workers=short,
        long_workers=long,
        slice_s=settings.sandbox_slice_s,
        restart_deadline_s=settings.sandbox_restart_deadline_s,
        wall_clock_s=settings.wall_clock_s,
        grace_s=settings.hard_kill_grace_s,
        cpu_seconds=settings.cpu_s,
        memory_bytes=settings.sandbox_memory_limit_bytes,
        max_output_chars=settings.max_output_chars,
        max_result_bytes=settings.max_answer_bytes,
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


#: an answer's encoded body, and whether the program ran to its end (``ok``)
Answer = tuple[bytes, bool]

MALFORMED = "the program's worker sent a malformed answer"


@dataclass(frozen=True)
class ProgramAnswer:
    """Turns a program's run into its ``RunResponse`` (picklable: a big answer is parsed in a
    parser process, :mod:`server.sandbox.answers`)."""

    device: str
    unjailed: bool
    max_output_chars: int = 100_000
    max_items: int = 600_000

    def __call__(self, outcome: Outcome) -> Answer:
        """The answer, parsed and validated here (call :meth:`off_loop` from a thread)."""
        try:
            body = self._body(outcome)
        except answers.MalformedAnswer as exc:
            return self.malformed(outcome, str(exc))
        return self._finish(body, outcome)

    def off_loop(self, outcome: Outcome) -> Answer:
        """:meth:`__call__`, in a parser process when the answer is big (from a thread)."""
        try:
            return answers.off_loop(self, outcome.answer, outcome)
        except answers.MalformedAnswer as exc:
            return self.malformed(outcome, str(exc))

    def _body(self, outcome: Outcome) -> dict[str, Any]:
        if outcome.answer is not None:
            body = answers.decode(outcome.answer, self.max_items)
            body["stdout"] = outcome.stdout
            body.setdefault("output_truncated", False)
            body.setdefault("output_chars", None)
            return body
        error = outcome.error or {"type": "RuntimeError", "message": "the program failed"}
        body = error_response(self.device, error["type"], error["message"], outcome.stdout)
        body["error"].update({k: error[k] for k in ("line", "traceback") if error.get(k)})
        return body

    def malformed(self, outcome: Outcome, why: str) -> Answer:
        """The answer for a worker whose answer broke a bound: a program error, never a 5xx."""
        log.warning("a worker's answer was refused: %s", why)
        body = error_response(self.device, "RuntimeError", f"{MALFORMED} ({why})", outcome.stdout)
        return orjson.dumps(cut_answer_text(body, self.max_output_chars)), False

    def _finish(self, body: dict[str, Any], outcome: Outcome) -> Answer:
        """Timings and the unjailed notice added, text cut to the output cap, validated,
        encoded."""
        timing = body.get("timing_ms")
        if isinstance(timing, dict):
            timing.update(outcome.timing_ms)
        if self.unjailed:
            notice = body.get("notice")
            body["notice"] = (
                f"{notice}\n{UNJAILED_NOTICE}"
                if isinstance(notice, str) and notice
                else UNJAILED_NOTICE
            )
        cut_answer_text(body, self.max_output_chars)
        try:
            self.model.model_validate(body, strict=True)
        except ValidationError as exc:
            log.warning("a worker's result failed validation: %s", exc.errors()[:3])
            return self.malformed(outcome, "it does not match the response's schema")
        return orjson.dumps(body), body.get("ok") is True

    model: ClassVar[type[RunResponse] | type[NotebookRunResponse]] = RunResponse


@dataclass(frozen=True)
class NotebookAnswer(ProgramAnswer):
    """:class:`ProgramAnswer` for a notebook: each cell that ran with what it printed."""

    shown: int = 1

    model: ClassVar[type[RunResponse] | type[NotebookRunResponse]] = NotebookRunResponse

    def _body(self, outcome: Outcome) -> dict[str, Any]:
        printed = _cell_outputs(outcome, self.shown)
        if outcome.answer is not None:
            body = answers.decode(outcome.answer, self.max_items)
            body["stdout"] = outcome.stdout
            body.setdefault("output_truncated", False)
            body.setdefault("output_chars", None)
            for cell in body.get("cells") or []:
                if isinstance(cell, dict):
                    cell["stdout"] = printed.get(cell.get("cell"), "")  # type: ignore[arg-type]
            return body
        # no answer from the worker (stopped, killed): what each cell printed until then
        error = outcome.error or {"type": "RuntimeError", "message": "the program failed"}
        body = notebook_error_response(self.device, self.shown, error["type"], error["message"])
        body["stdout"] = outcome.stdout
        body["error"].update({k: error[k] for k in ("line", "traceback", "cell") if error.get(k)})
        ran = sorted(printed)
        body["cells"] = [
            {"cell": n, "ok": n != ran[-1], "stdout": printed[n], "result": None} for n in ran
        ]
        body["cell"] = ran[-1] if ran else self.shown
        body["error"].setdefault("cell", body["cell"])
        return body

    def malformed(self, outcome: Outcome, why: str) -> Answer:
        log.warning("a worker's answer was refused: %s", why)
        body = notebook_error_response(
            self.device, self.shown, "RuntimeError", f"{MALFORMED} ({why})"
        )
        body["stdout"] = outcome.stdout
        return orjson.dumps(cut_answer_text(body, self.max_output_chars)), False


def answer_for(settings: Settings, device: str, unjailed: bool) -> ProgramAnswer:
    """How a program's answer is made under ``settings``."""
    return ProgramAnswer(device, unjailed, settings.max_output_chars, settings.max_answer_items)


def notebook_answer_for(
    settings: Settings, device: str, unjailed: bool, shown: int
) -> NotebookAnswer:
    """How a notebook's answer is made under ``settings``."""
    return NotebookAnswer(
        device, unjailed, settings.max_output_chars, settings.max_answer_items, shown
    )


def respond(outcome: Outcome, device: str, unjailed: bool) -> bytes:
    """A program's ``RunResponse``, encoded (default bounds)."""
    return ProgramAnswer(device, unjailed)(outcome)[0]


def respond_notebook(outcome: Outcome, device: str, unjailed: bool, shown: int) -> bytes:
    """A notebook's ``NotebookRunResponse``, encoded (default bounds)."""
    return NotebookAnswer(device, unjailed, shown=shown)(outcome)[0]


def _cell_outputs(outcome: Outcome, shown: int) -> dict[int, str]:
    """What each notebook cell printed: the output from the worker's mark for the cell to the
    next mark (marks are the worker's word: only increasing cell numbers up to ``shown``)."""
    marks: list[tuple[int, int]] = []
    for number, at in outcome.cells:
        if 0 < number <= shown and (not marks or (number > marks[-1][0] and at >= marks[-1][1])):
            marks.append((number, min(at, len(outcome.stdout))))
    ends = [at for _, at in marks[1:]] + [len(outcome.stdout)] * bool(marks)
    return {number: outcome.stdout[at:end] for (number, at), end in zip(marks, ends, strict=True)}
