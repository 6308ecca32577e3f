"""A run's outcome as its answer: the worker's bytes bounded, parsed, validated and encoded.

:class:`ProgramAnswer` (a program's ``RunResponse``) and :class:`NotebookAnswer` (a notebook's
``NotebookRunResponse``) are picklable, so that a big answer is parsed in a parser process
(:mod:`server.sandbox.answers`); an outcome without an answer (stopped, killed, crashed) is
answered from its error. Every answer is validated against its schema before it leaves.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson
from pydantic import ValidationError

from server.program.answer import empty_answer
from server.program.budgets import cut_answer_text
from server.sandbox import answers
from server.sandbox.drive import Outcome
from server.schemas import NotebookRunResponse, RunResponse
from server.settings import Settings

log = logging.getLogger(__name__)

#: turns a run's outcome into the answer (a program's, a notebook's): ProgramAnswer and its kin
Responder = Callable[[Outcome], tuple[bytes, bool]]

UNJAILED_NOTICE = (
    "This server runs programs without a kernel jail (no seccomp here): it serves this "
    "machine only. Do not expose it."
)


def error_response(device: str, type_name: str, message: str, stdout: str = "") -> dict[str, Any]:
    """A program's answer when it did not run to an answer of its own (its device is not here,
    it was stopped or killed): :func:`empty_answer` with the error and what it printed."""
    body = empty_answer(device)
    body["stdout"] = stdout
    body["error"] = {"type": type_name, "message": message, "line": None, "col": None}
    return body


def notebook_error_response(
    device: str, shown: int, type_name: str, message: str
) -> dict[str, Any]:
    """A notebook's answer when nothing ran (e.g. the device is not there)."""
    body = empty_answer(device, shown=shown)
    body["error"] = {"type": type_name, "message": message, "line": None, "col": None}
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
