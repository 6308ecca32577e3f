"""engine/ is layered without import cycles: every import statement of every module (at module
level, inside functions, under TYPE_CHECKING) points to a lower layer, and the graph of those
imports has no cycle. Read from the source with ast, so an import that runs only sometimes
(inside a function) counts as much as one that runs at import."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).parents[2] / "engine"

#: The layers, lowest first (engine/__init__.py's docstring says the same). A module may
#: import modules of lower layers, and of its own layer where the layer is a package's insides.
LAYERS: list[set[str]] = [
    {"engine.backend", "engine.dtypes", "engine.limits", "engine.random", "engine._format"},
    {"engine.registry"},
    {"engine.ops"},
    {"engine.core"},  # grad mode, nodes, the backward loop: no Tensor
    {"engine.tensor"},
    {"engine.factories"},
    {"engine.functions"},
    {"engine.function", "engine.higher", "engine.graph"},
    {"engine.autograd"},
    {"engine.methods"},
    {"engine.data", "engine.cuda", "engine.optim"},
    {"engine.nn.init", "engine.nn.functional", "engine.nn.modules", "engine.nn"},
    {"engine"},
]


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ENGINE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


MODULES = {_module_name(p): p for p in ENGINE.rglob("*.py")}


def _imports(path: Path) -> set[str]:
    """The engine modules a file imports anywhere in its body."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "engine")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "engine":
                continue
            for alias in node.names:  # from engine.nn import functional: the submodule
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in MODULES else node.module)
    return found


GRAPH = {name: _imports(path) - {name} for name, path in MODULES.items()}


def test_every_module_has_a_layer() -> None:
    placed = set().union(*LAYERS)
    assert set(MODULES) == placed, (
        f"unplaced: {set(MODULES) - placed}, gone: {placed - set(MODULES)}"
    )


def test_imports_point_down_the_layers() -> None:
    layer = {name: i for i, names in enumerate(LAYERS) for name in names}
    wrong = [
        f"{a} (layer {layer[a]}) imports {b} (layer {layer[b]})"
        for a, targets in GRAPH.items()
        for b in targets
        if layer[b] > layer[a]
    ]
    assert not wrong, "\n".join(wrong)


def test_no_import_cycle() -> None:
    """Depth-first search for a back edge; reports the cycle it finds."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for nxt in sorted(GRAPH[name]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(GRAPH):
        if name not in state and (cycle := visit(name)) is not None:
            raise AssertionError("import cycle: " + " -> ".join(cycle))


def test_the_checker_sees_a_cycle_and_imports_inside_functions(tmp_path: Path) -> None:
    """The parser counts an import inside a function, and the search finds a cycle."""
    source = "def f():\n    from engine.tensor import Tensor\n    import engine.graph\n"
    (tmp_path / "mod.py").write_text(source)
    assert _imports(tmp_path / "mod.py") == {"engine.tensor", "engine.graph"}
    saved = dict(GRAPH)
    try:
        GRAPH["engine.core"] = GRAPH["engine.core"] | {"engine.tensor"}
        try:
            test_no_import_cycle()
        except AssertionError as exc:
            assert "engine.core -> engine.tensor -> engine.core" in str(exc)
        else:
            raise AssertionError("a cycle through engine.core went unseen")
    finally:
        GRAPH.clear()
        GRAPH.update(saved)


def test_the_autograd_core_does_not_reach_tensor() -> None:
    seen: set[str] = set()
    todo = ["engine.core"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(GRAPH[name])
    assert "engine.tensor" not in seen
