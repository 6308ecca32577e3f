"""The seed lessons as notebooks (lessons/): each seed has one, made from it, in the format."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from server.lessons import LESSONS_DIR, Lesson, LessonError, lessons, parse

SEEDS = LESSONS_DIR / "seeds"
#: a code cell the notebook adds (the seed's code needs what an earlier chapter built)
ADDED = "# Added for this notebook"


def squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def test_every_seed_lesson_is_a_notebook() -> None:
    seeds = {path.name for path in SEEDS.glob("*.txt")}
    assert len(seeds) == 4
    assert {lesson.seed for lesson in lessons()} == seeds
    assert {lesson.id for lesson in lessons()} == {Path(s).stem for s in seeds}


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.id)
def test_the_code_cells_are_the_seeds_code(lesson: Lesson) -> None:
    """Every line of every code cell is a line of the seed (the seeds lost their indentation:
    compared without it), in order; a cell the notebook adds says so in its first line."""
    seed = (SEEDS / lesson.seed).read_text(encoding="utf-8")
    seed_lines = [squash(line) for line in seed.splitlines() if line.strip()]
    at = 0
    for kind, source in lesson.cells:
        if kind != "code" or source.startswith(ADDED):
            continue
        for line in source.splitlines():
            if not line.strip():
                continue
            found = next(
                (i for i in range(at, len(seed_lines)) if seed_lines[i].startswith(squash(line))),
                None,
            )
            assert found is not None, f"{line!r} is not in the seed after line {at}"
            at = found


@pytest.mark.parametrize("lesson", lessons(), ids=lambda lesson: lesson.id)
def test_the_headings_are_the_seeds(lesson: Lesson) -> None:
    seed = squash((SEEDS / lesson.seed).read_text(encoding="utf-8"))
    headings = [
        line.lstrip("#").strip()
        for kind, source in lesson.cells
        if kind == "markdown"
        for line in source.splitlines()
        if line.startswith("#")
    ]
    assert headings
    for heading in headings:
        assert heading in seed, heading


def test_prose_is_split_at_headings_and_fenced_output_stays_prose() -> None:
    text = (
        "---\ntitle: T\nexplanation: E\nseed: s.txt\n---\n\n# One\n\ntext\n\n## Two\n\n"
        "```text\n# not a heading: printed output\n```\n\n```python\nprint(1)\n\nx = 2\n```\n\nafter\n"
    )
    lesson = parse(text, "t")
    assert lesson.cells == (
        ("markdown", "# One\n\ntext"),
        ("markdown", "## Two\n\n```text\n# not a heading: printed output\n```"),
        ("code", "print(1)\n\nx = 2"),
        ("markdown", "after"),
    )
    assert lesson.code == ["print(1)\n\nx = 2"]
    assert lesson.example()["source"] == "print(1)\n\nx = 2"


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("# no front matter", "no front matter"),
        ("---\ntitle: T\nseed: s\n---\n", "no explanation"),
        ("---\ntitle: T\nexplanation: E\nseed: s\n---\n```python\nx = 1\n", "not closed"),
    ],
)
def test_a_malformed_lesson_says_why(text: str, why: str) -> None:
    with pytest.raises(LessonError, match=why):
        parse(text, "bad")
