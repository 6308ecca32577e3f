"""The budgets one program runs under (a picklable copy of the settings' budget fields).

They bound what a run *costs* and what the page *draws*, never what a program may compute:

- the run: the wall clock (a TimeoutError in the program, then SIGKILL), CPU seconds and the
  address space, enforced by the kernel (:mod:`server.sandbox.jail`, the parent's SIGKILL);
- parsing: the source's size and its syntax tree's (:mod:`server.program.source`);
- output: what the program prints is cut at ``max_output_chars`` (the program runs on);
- drawing: the nodes of one drawn pass (a bigger graph is drawn around its root, and the
  answer says what was left out), the passes kept (at most ``max_recorded_passes``, and once
  the kept passes hold ``max_kept_nodes`` nodes together only the latest pass more: drawing
  twenty 700-node passes of an unrolled RNN would cost more than the program), and the
  numbers a drawn graph of the program's own ``Value`` objects may hold.

No program that PyTorch runs within the wall clock and the memory limit is refused.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Budgets:
    """Every limit a program runs under; defaults mirror server.settings.Settings."""

    max_source_bytes: int = 64 * 1024
    max_ast_nodes: int = 20_000
    max_ast_depth: int = 100
    max_graph_nodes: int = 5_000
    max_recorded_passes: int = 20
    max_kept_nodes: int = 5_000
    max_drawn_numbers: int = 2_000_000
    max_output_chars: int = 100_000
    wall_clock_s: float = 180.0

    @classmethod
    def from_settings(cls, settings: Any) -> Budgets:
        """Pick this dataclass's fields out of a Settings object (same names)."""
        return cls(
            **{f.name: getattr(settings, f.name) for f in fields(cls) if hasattr(settings, f.name)}
        )

    def as_dict(self) -> dict[str, Any]:
        """The fields as plain JSON (every field is a number: no deep copy as ``asdict`` makes,
        which cost a run request more than its validation)."""
        return {f.name: getattr(self, f.name) for f in _FIELDS}


_FIELDS = fields(Budgets)


def cut_text(text: str, limit: int) -> str:
    """``text`` within ``limit`` characters: its head and its tail, the cut marked between them
    (what was cut is said, so a reader knows the middle is missing)."""
    if len(text) <= limit:
        return text
    mark = f"\n… [{len(text) - limit:,} characters cut: budget max_output_chars] …\n"
    if len(mark) > limit // 2:  # a tiny limit: the head alone
        return text[:limit]
    keep = limit - len(mark)
    tail = keep // 4
    return text[: keep - tail] + mark + text[len(text) - tail :]


#: the free text of an answer, by where it sits: what the output cap bounds besides stdout
_TEXT_FIELDS = ("notice", "result")
_ERROR_TEXT_FIELDS = ("message", "traceback")


def cut_answer_text(body: dict[str, Any], limit: int) -> dict[str, Any]:
    """Cut the error's message and traceback, the notice and the results (a notebook's cells'
    too) of an answer to ``limit`` characters each, in place; anything not a string is left to
    the schema's validation (the body may be a worker's forgery)."""

    def cut_fields(holder: Any, names: tuple[str, ...]) -> None:
        if isinstance(holder, dict):
            for name in names:
                value = holder.get(name)
                if isinstance(value, str) and len(value) > limit:
                    holder[name] = cut_text(value, limit)

    cut_fields(body, _TEXT_FIELDS)
    cut_fields(body.get("error"), _ERROR_TEXT_FIELDS)
    cells = body.get("cells")
    if isinstance(cells, list):
        for cell in cells:
            cut_fields(cell, ("result",))
    return body
