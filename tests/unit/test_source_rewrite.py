"""The naming rewrite (server/program/source.py) places every node it builds: the compiler
needs a line for each, and an error inside a hook call must point at the program's line."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from server.program import source as src
from tests import lesson_programs

ROOT = Path(__file__).parents[2]
#: the gallery's programs and the lessons': name -> source
PROGRAMS = {p.stem: p.read_text() for p in sorted((ROOT / "examples").glob("*.py"))} | {
    name: lesson_programs.source(name) for name in lesson_programs.names()
}

EVERY_HOOK = """import torch
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(2, 1)
X = torch.ones(4, 2)
idx = [0, 1]
a, (b, c) = 1, (2, 3)
w: float = 0.5
for xb, (yb, _) in [(X, (X, 0))]:
    w += 1
for *rest, last in [(1, 2, 3)]:
    pass
print(X[idx] @ X[idx].T, Net()(X[idx]))
X.sum()
"""


def _dump(tree: ast.AST) -> str:
    return ast.dump(tree, include_attributes=True)


@pytest.mark.parametrize("name", PROGRAMS)
def test_every_node_the_rewrite_builds_is_placed(name: str) -> None:
    tree, _ = src.rewrite(ast.parse(PROGRAMS[name]))
    placed = _dump(tree)
    assert _dump(ast.fix_missing_locations(tree)) == placed  # nothing was missing
    compile(tree, name, "exec", dont_inherit=True)


def test_each_kind_of_hook_sits_on_the_line_of_what_it_wraps() -> None:
    tree, has_last = src.rewrite(ast.parse(EVERY_HOOK))
    assert has_last
    assert _dump(ast.fix_missing_locations(tree)) == _dump(tree)
    hooks: dict[str, list[ast.Call]] = {}
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
    for node in calls:
        if isinstance(node.func, ast.Name) and node.func.id.startswith("__agp_"):
            hooks.setdefault(node.func.id, []).append(node)
            built: list[ast.expr] = [node.func]
            built += [a for a in node.args if isinstance(a, ast.Constant)]
            for part in built:  # the hook's own parts stand where it stands
                assert (part.lineno, part.col_offset) == (node.lineno, node.col_offset)
    assert set(hooks) >= {
        src.NAME_HOOK,
        src.NAMES_HOOK,
        src.EXPR_HOOK,
        src.LOOP_HOOK,
        src.LAST_HOOK,
    }
    last = hooks[src.LAST_HOOK][0]
    assert last.lineno == len(EVERY_HOOK.splitlines())
