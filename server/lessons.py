"""The lessons as notebooks: ``lessons/*.md``, each made from a seed lesson (``lessons/seeds``).

A lesson file is markdown with a front matter (``title``, ``explanation``, ``seed``: the seed
it was made from) between ``---`` lines. Its ``python`` code blocks are the notebook's code
cells, in order; the prose between them is markdown cells, a new one at each heading (other
fenced blocks, such as a program's printed output, stay in the prose).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path
from typing import Any

LESSONS_DIR = Path(__file__).resolve().parents[1] / "lessons"
CODE_FENCE = "```python"


@dataclass(frozen=True)
class Lesson:
    id: str
    title: str
    explanation: str
    seed: str  # the seed lesson's file name (in lessons/seeds)
    cells: tuple[tuple[str, str], ...]  # (kind, source): kind is "markdown" or "code"

    @property
    def code(self) -> list[str]:
        """The code cells' sources, in order."""
        return [source for kind, source in self.cells if kind == "code"]

    def example(self) -> dict[str, Any]:
        """The lesson as a gallery entry: its cells, and its code cells as one program."""
        return {
            "id": self.id,
            "title": self.title,
            "explanation": self.explanation,
            "source": "\n\n".join(self.code),
            "bindings": None,
            "cells": [{"kind": kind, "source": source} for kind, source in self.cells],
        }


class LessonError(ValueError):
    """A lesson file that does not follow the format."""


def _front_matter(lines: list[str], name: str) -> tuple[dict[str, str], list[str]]:
    if not lines or lines[0] != "---" or "---" not in lines[1:]:
        raise LessonError(f"{name}: no front matter between '---' lines")
    end = lines.index("---", 1)
    meta: dict[str, str] = {}
    for line in lines[1:end]:
        key, sep, value = line.partition(":")
        if not sep:
            raise LessonError(f"{name}: front matter line without 'key: value': {line!r}")
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        meta[key.strip()] = value
    for key in ("title", "explanation", "seed"):
        if not meta.get(key):
            raise LessonError(f"{name}: front matter has no {key}")
    return meta, lines[end + 1 :]


def parse(text: str, lesson_id: str) -> Lesson:
    """A lesson file's text as a Lesson (LessonError when it does not follow the format)."""
    meta, body = _front_matter(text.split("\n"), lesson_id)
    cells: list[tuple[str, str]] = []
    prose: list[str] = []
    code: list[str] | None = None
    fence = False  # inside a fenced block of the prose (```text)

    def close_prose() -> None:
        text = "\n".join(prose).strip("\n")
        if text.strip():
            cells.append(("markdown", text))
        prose.clear()

    for line in body:
        if code is not None:
            if line.strip() == "```":
                cells.append(("code", "\n".join(code).strip("\n")))
                code = None
            else:
                code.append(line)
        elif not fence and line.strip() == CODE_FENCE:
            close_prose()
            code = []
        else:
            if line.startswith("```"):
                fence = not fence
            elif not fence and line.startswith("#"):
                close_prose()  # each heading opens a markdown cell
            prose.append(line)
    if code is not None or fence:
        raise LessonError(f"{lesson_id}: a code block is not closed")
    close_prose()
    return Lesson(lesson_id, meta["title"], meta["explanation"], meta["seed"], tuple(cells))


@functools.cache
def lessons(directory: Path = LESSONS_DIR) -> tuple[Lesson, ...]:
    """Every lesson in ``directory``, in file-name order (none when it is missing)."""
    if not directory.is_dir():
        return ()
    return tuple(
        parse(path.read_text(encoding="utf-8"), path.stem)
        for path in sorted(directory.glob("*.md"))
    )
