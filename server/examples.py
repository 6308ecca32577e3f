"""The examples gallery, read from files: ``examples/<id>.py`` holds each example's program
exactly as the editor loads it, and ``examples/index.toml`` their order, titles,
explanations, bindings and what each prints (its header says what an entry holds). The
lessons follow them as notebooks (:mod:`server.lessons`).

The server, the sandbox's warm-up, the tests and the benches all read these same files.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from server.lessons import lessons

#: The smallest whole program: a weight and a bias, one squared error, its backward pass and the
#: numbers. The API's example request (:mod:`server.schemas`) and the benches send it; a worker
#: warms up on it before its own program (:mod:`server.sandbox.worker`). Here, beside the
#: schemas and below the program, so that both reach it (and a worker loads no pydantic).
TINY_EXAMPLE = """import torch
w = torch.tensor(0.5, requires_grad=True)
b = torch.tensor(0.0, requires_grad=True)
x, y = torch.tensor(2.0), torch.tensor(7.0)
loss = (w * x + b - y) ** 2
loss.backward()
print(loss.item(), w.grad.item(), b.grad.item())
"""

INDEX = "index.toml"

_KEYS = {"id", "title", "explanation", "bindings", "error", "output", "result"}
_REQUIRED = {"id", "title", "explanation", "output"}


@dataclass(frozen=True)
class ExpectedError:
    """The error an example ends with: its type and the program's line."""

    type: str
    line: int


@dataclass(frozen=True)
class Example:
    id: str
    title: str
    explanation: str
    source: str
    output: str  # what the program prints (checked through the sandbox by the tests)
    bindings: dict[str, Any] | None = None
    error: ExpectedError | None = None
    result: str | None = None  # what its last expression shows, when it ends with one

    def entry(self) -> dict[str, Any]:
        """The example as the API's gallery entry (``Example`` in server/schemas.py)."""
        return {
            "id": self.id,
            "title": self.title,
            "explanation": self.explanation,
            "source": self.source,
            "bindings": self.bindings,
        }


class GalleryError(ValueError):
    """An index entry or example file that does not follow the format."""


def _example(entry: dict[str, Any], directory: Path) -> Example:
    name = entry.get("id", "?")
    if not isinstance(name, str) or not name or "/" in name or name.startswith("."):
        raise GalleryError(f"{INDEX}: bad example id {name!r}")
    unknown = set(entry) - _KEYS
    missing = _REQUIRED - set(entry)
    if unknown or missing:
        raise GalleryError(
            f"{INDEX}: example {name!r}: unknown keys {sorted(unknown)}, missing {sorted(missing)}"
        )
    path = directory / f"{name}.py"
    if not path.is_file():
        raise GalleryError(f"{INDEX}: example {name!r} has no program file {path.name}")
    error = entry.get("error")
    expected_error = None
    if error is not None:
        if set(error) != {"type", "line"}:
            raise GalleryError(f"{INDEX}: example {name!r}: error needs exactly type and line")
        expected_error = ExpectedError(str(error["type"]), int(error["line"]))
    return Example(
        id=name,
        title=entry["title"],
        explanation=entry["explanation"],
        source=path.read_text(encoding="utf-8"),
        output=entry["output"],
        bindings=entry.get("bindings"),
        error=expected_error,
        result=entry.get("result"),
    )


def examples_dir() -> Path:
    """The gallery's folder. (Computed, not kept: no host path stays in the zygote's modules.)"""
    return Path(__file__).resolve().parents[1] / "examples"


def load_examples(directory: Path | None = None) -> tuple[Example, ...]:
    """The gallery's examples in index order; every program file must be in the index."""
    directory = directory or examples_dir()
    index = tomllib.loads((directory / INDEX).read_text(encoding="utf-8"))
    if set(index) != {"example"}:
        raise GalleryError(f"{INDEX}: only [[example]] tables belong in it, not {sorted(index)}")
    examples = tuple(_example(entry, directory) for entry in index["example"])
    ids = [e.id for e in examples]
    if len(set(ids)) != len(ids):
        raise GalleryError(f"{INDEX}: an id appears twice")
    unlisted = sorted({p.stem for p in directory.glob("*.py")} - set(ids))
    if unlisted:
        raise GalleryError(f"{INDEX}: programs not in the index: {unlisted}")
    return examples


EXAMPLES = load_examples()
_BY_ID = {e.id: e for e in EXAMPLES}


def example(example_id: str) -> Example:
    """The gallery's example ``example_id`` (KeyError when there is none)."""
    return _BY_ID[example_id]


def gallery() -> list[dict[str, Any]]:
    """The examples as plain dicts (the API's response), then the lessons as notebooks."""
    return [e.entry() for e in EXAMPLES] + [lesson.example() for lesson in lessons()]
