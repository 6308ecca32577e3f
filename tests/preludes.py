"""Programs that start from shared setup: a ``# prelude: NAME`` line stands for another file's text.

A series of learner programs written after one course repeats its first cells: each makemore
lecture loads the same list of names and builds the same dataset, each micrograd program starts
from the same ``Value``. That setup stands once, as a *prelude*: a file beside the programs whose
name starts with an underscore (``_makemore_names.py``). A program says where a prelude comes in
with a line of its own, ``# prelude: _makemore_names.py``, as a notebook runs a shared first cell,
and :func:`load` returns the program a learner would paste: every such line replaced by that
prelude's text. A prelude may name preludes in turn.

A prelude opens with a comment for its reader (what it holds, what it expects to be defined
before it): its first lines, each starting with ``#``, up to a blank line. That comment and the
blank line are not part of its text; the rest is inserted as it stands, to the byte.

Every reader of such programs (the test that runs them, the triage script) reads them through
:func:`load`; a file whose name starts with an underscore is a prelude, never a program.
"""

from __future__ import annotations

import re
from pathlib import Path

#: the line that stands for a prelude's text
DIRECTIVE = re.compile(r"# prelude: (?P<name>.*)")
#: what a prelude's name may be: a file beside the program, named with a leading underscore
NAME = re.compile(r"_[a-z0-9_]+\.py")


class PreludeError(ValueError):
    """A program names a prelude that is missing, malformed or that names itself in the end."""


def is_prelude(path: Path) -> bool:
    return path.name.startswith("_")


def load(path: Path) -> str:
    """The program at ``path`` as a learner would paste it: each ``# prelude: NAME`` line
    replaced by the text of the prelude ``NAME`` beside it (itself loaded the same way)."""
    return _expand(path, ())


def prelude_text(path: Path) -> tuple[int, str]:
    """A prelude's own text, and the number of the file's line it starts on: the file less its
    opening comment and the blank line after it."""
    lines = path.read_text().splitlines(keepends=True)
    for number, line in enumerate(lines, start=1):
        if line.strip() == "" and number > 1:
            text = "".join(lines[number:])
            if not text.endswith("\n"):
                raise PreludeError(f"{path}:{len(lines)}: a prelude's text ends with a newline")
            return number + 1, text
        if not line.startswith("#"):
            break
    raise PreludeError(
        f"{path}:1: a prelude opens with a comment (lines starting with '#') and a blank line"
    )


def _expand(path: Path, chain: tuple[Path, ...]) -> str:
    first, text = prelude_text(path) if chain else (1, path.read_text())
    out: list[str] = []
    for number, line in enumerate(text.splitlines(keepends=True), start=first):
        match = DIRECTIVE.fullmatch(line.rstrip("\n"))
        if match is None:
            out.append(line)
            continue
        where = f"{path}:{number}"
        name = match["name"]
        if NAME.fullmatch(name) is None:
            raise PreludeError(
                f"{where}: {name!r} is not a prelude's name (a file beside the program, "
                "named like _makemore_names.py)"
            )
        prelude = path.parent / name
        if not prelude.is_file():
            raise PreludeError(f"{where}: prelude {name} not found (no file {prelude})")
        if prelude in (*chain, path):
            cycle = " -> ".join(p.name for p in (*chain, path, prelude))
            raise PreludeError(f"{where}: prelude {name} names itself in the end ({cycle})")
        out.append(_expand(prelude, (*chain, path)))
    return "".join(out)
