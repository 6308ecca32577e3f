"""tests/preludes.py: a ``# prelude: NAME`` line becomes that file's text, to the byte, or a clear
error; and the tutorial corpus's preludes are each used and fully expanded."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.preludes import PreludeError, is_prelude, load

TUTORIALS = Path(__file__).parents[1] / "programs" / "tutorials"


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(text)
    return path


def test_a_prelude_line_becomes_the_preludes_text_less_its_opening_comment(
    tmp_path: Path,
) -> None:
    write(tmp_path, "_data.py", "# the data\n# (two lines of comment)\n\nDATA = [1, 2]\n\n")
    program = write(tmp_path, "fit.py", "# fit it\nimport math\n# prelude: _data.py\nprint(DATA)\n")
    assert load(program) == "# fit it\nimport math\nDATA = [1, 2]\n\nprint(DATA)\n"


def test_a_prelude_may_name_preludes_and_a_program_may_name_several(tmp_path: Path) -> None:
    write(tmp_path, "_a.py", "# a\n\nA = 1\n")
    write(tmp_path, "_b.py", "# b, after a\n\n# prelude: _a.py\nB = A + 1\n")
    write(tmp_path, "_c.py", "# c\n\nC = 3\n")
    program = write(tmp_path, "p.py", "# prelude: _b.py\n# prelude: _c.py\nprint(A, B, C)\n")
    assert load(program) == "A = 1\nB = A + 1\nC = 3\nprint(A, B, C)\n"


def test_a_program_without_prelude_lines_is_its_file(tmp_path: Path) -> None:
    text = "# a comment that mentions a prelude: _x.py\nprint(1)\n"
    assert load(write(tmp_path, "p.py", text)) == text


def test_a_missing_prelude_is_named_with_the_line_that_names_it(tmp_path: Path) -> None:
    program = write(tmp_path, "p.py", "import torch\n\n# prelude: _gone.py\n")
    with pytest.raises(PreludeError, match=r"p\.py:3: prelude _gone\.py not found"):
        load(program)


def test_a_missing_prelude_named_by_a_prelude_is_placed_in_that_prelude(tmp_path: Path) -> None:
    write(tmp_path, "_a.py", "# a\n# names a missing one\n\nA = 1\n# prelude: _gone.py\n")
    program = write(tmp_path, "p.py", "# prelude: _a.py\n")
    with pytest.raises(PreludeError, match=r"_a\.py:5: prelude _gone\.py not found"):
        load(program)


@pytest.mark.parametrize("name", ["../_up.py", "sub/_x.py", "data.py", "_x.txt", ""])
def test_a_prelude_is_a_file_beside_the_program_named_with_an_underscore(
    tmp_path: Path, name: str
) -> None:
    program = write(tmp_path, "p.py", f"# prelude: {name}\n")
    with pytest.raises(PreludeError, match=r"p\.py:1: .* is not a prelude's name"):
        load(program)


def test_a_prelude_that_names_itself_in_the_end_is_an_error(tmp_path: Path) -> None:
    write(tmp_path, "_a.py", "# a\n\n# prelude: _b.py\n")
    write(tmp_path, "_b.py", "# b\n\n# prelude: _a.py\n")
    program = write(tmp_path, "p.py", "# prelude: _a.py\n")
    with pytest.raises(PreludeError, match=r"names itself in the end \(p\.py -> _a\.py -> _b\.py"):
        load(program)


@pytest.mark.parametrize(
    "text", ["A = 1\n", "\nA = 1\n", "# a comment, then code at once\nA = 1\n", "# a\n\nA = 1"]
)
def test_a_prelude_opens_with_a_comment_and_a_blank_line_and_ends_a_line(
    tmp_path: Path, text: str
) -> None:
    write(tmp_path, "_a.py", text)
    with pytest.raises(PreludeError, match=r"_a\.py:\d+: a prelude"):
        load(write(tmp_path, "p.py", "# prelude: _a.py\n"))


def test_every_tutorial_prelude_is_named_and_every_program_loads_whole() -> None:
    """A prelude no program names is dead code; a loaded program holds no prelude line."""
    files = sorted(TUTORIALS.glob("*.py"))
    preludes = {p.name for p in files if is_prelude(p)}
    assert len(preludes) >= 5
    named: set[str] = set()
    for path in files:
        named.update(
            line.removeprefix("# prelude: ")
            for line in path.read_text().splitlines()
            if line.startswith("# prelude: ")
        )
        if not is_prelude(path):
            assert "# prelude:" not in load(path), path.name
    assert preludes == named
