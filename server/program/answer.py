"""The shape of a run's answer, in one place: :func:`empty_answer` is the answer before anything
ran, which the worker's runner fills in and the server uses for a run with no answer of its
own (stopped, killed, a device that is not here). ``RunResponse`` and ``NotebookRunResponse``
(server/schemas.py) are its schema; a test holds the two together."""

from __future__ import annotations

from typing import Any


def empty_answer(device: str, shown: int | None = None) -> dict[str, Any]:
    """A program's answer with nothing in it yet; a notebook's (``shown``: the cell to show,
    1-based) has ``cell`` and ``cells`` instead of ``result``."""
    answer: dict[str, Any] = {
        "ok": False, "stdout": "", "output_truncated": False, "output_chars": None,
        "error": None, "graph": None, "graph_pass": None, "structures": [], "passes": [],
        "passes_total": 0, "notice": None, "device": device, "timing_ms": {},
    }  # fmt: skip
    if shown is None:
        answer["result"] = None
    else:
        answer["cell"] = shown
        answer["cells"] = []
    return answer
