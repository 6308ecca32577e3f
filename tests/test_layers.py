"""engine/, recorder/ and server/ are layered without import cycles: every import statement of
every module (at module level, inside functions, under TYPE_CHECKING) points to a lower layer of
its package, and the graph of those imports has no cycle; and the packages are layered too:
engine/ imports none of ours, recorder/ the engine only, server/ both. Read from the source with ast, so an import that
runs only sometimes (inside a function) counts as much as one that runs at import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]

#: The layers, lowest first (engine/__init__.py's docstring says the same). A module may
#: import modules of lower layers, and of its own layer where the layer is a package's insides.
ENGINE_LAYERS: list[set[str]] = [
    {
        "engine.backend",
        "engine.dtypes",
        "engine.random",
        "engine._format",
        "engine.sizes",
        "engine.pytorch_names",
    },
    {"engine.registry"},
    {"engine.ops"},
    {"engine.shape_ops", "engine.profiler"},
    {"engine.core"},  # grad mode, nodes, the backward loop: no Tensor
    {"engine.tensor"},
    {"engine.factories"},
    {"engine.shapes", "engine.comparisons", "engine.conversions", "engine.out"},
    {"engine.functions"},
    {"engine.function", "engine.higher", "engine.library", "engine.serialization"},
    {"engine.extras"},
    {"engine.autograd"},
    {"engine.autograd_functional"},
    {"engine.methods"},
    {"engine.optim.optimizer"},
    {
        "engine.optim.sgd",
        "engine.optim.adam",
        "engine.optim.rmsprop",
        "engine.optim.adagrad",
        "engine.optim.adadelta",
        "engine.optim.adamax",
        "engine.optim.nadam",
        "engine.optim.radam",
        "engine.optim.asgd",
        "engine.optim.lbfgs",
    },
    {"engine.optim.adamw"},
    {
        "engine.cuda",
        "engine.optim",
        "engine.optim.lr_scheduler",
        "engine.accelerator",
        "engine.backends",
        "engine.backends.cudnn",
        "engine.backends.mkl",
        "engine.backends.mps",
        "engine.backends.openmp",
    },
    {
        "engine.nn.conv_ops",
        "engine.nn.loss_ops",
        "engine.nn.rnn_ops",
        "engine.nn.init",
        "engine.nn.spatial",
        "engine.nn.losses",
        "engine.nn.functional",
        "engine.nn.modules",
        "engine.nn.utils",
        "engine.nn.conv",
        "engine.nn.rnn",
        "engine.nn.activation",
        "engine.nn.container",
        "engine.nn.distance",
        "engine.nn.layers",
        "engine.nn.loss",
        "engine.nn.normalization",
        "engine.nn",
    },
    {
        "engine.utils.data",
        "engine.utils",
        "engine.linalg",
        "engine.functional",
        "engine.testing",
        "engine.distributions.distribution",
    },
    {
        "engine.distributions.normal",
        "engine.distributions.uniform",
        "engine.distributions.bernoulli",
        "engine.distributions.categorical",
    },
    {"engine.distributions.multinomial", "engine.distributions"},
    {"engine"},
]

#: recorder/: the observer that keeps the passes, how values and captions read, a pass's walk,
#: the graph, a recording's passes and the replay, then record_passes putting them together.
RECORDER_LAYERS: list[set[str]] = [
    {"recorder.caption", "recorder.passlog"},
    {"recorder.summaries"},
    {"recorder.graph_walk"},
    {"recorder.graph"},
    {"recorder.pass_export", "recorder.replay"},
    {"recorder.record"},
    {"recorder"},
]

#: server/: the program (runs inside a worker, knows no process or web) below the jail that
#: runs it, below the routes that call the jail, below the app that mounts the routes.
SERVER_LAYERS: list[set[str]] = [
    {"server.lessons"},
    {"server", "server.settings", "server.schemas", "server.serialize", "server.clients",
     "server.metrics", "server.admission", "server.examples", "server.assets"},
    {"server.capacity"},
    # the program: parse, name, run, record (no process, no pipe, no web)
    {"server.program", "server.program.budgets", "server.program.source",
     "server.program.imports", "server.program.values", "server.program.values.record",
     "server.program.values.names", "server.program.packing", "server.program.known",
     "server.program.answer", "server.program.output", "server.program.clock",
     "server.program.practice"},
    {"server.program.values.groups"},
    {"server.program.values.observers", "server.program.values.graph"},
    {"server.program.values.observer", "server.program.values.compare"},
    {"server.program.runner"},
    # the jail that runs one program per process
    {"server.sandbox.protocol", "server.sandbox.jail", "server.sandbox.hostpaths",
     "server.sandbox.answers", "server.sandbox.config"},
    {"server.sandbox.worker"},
    {"server.sandbox.zygote"},
    {"server.sandbox.supervisor"},
    {"server.sandbox.drive"},
    {"server.sandbox.pool"},
    {"server.sandbox", "server.sandbox.startup"},
    # the run service: a request to its answer, around the jail (whole, streamed, live)
    {"server.runs", "server.runs.jobs", "server.runs.responses"},
    {"server.runs.stream"},
    {"server.runs.live"},
    {"server.runs.service"},
    # training (runs in the server process: its programs are the server's own)
    {"server.training", "server.training.errors", "server.training.toydata",
     "server.training.datasets",
     "server.training.model", "server.training.program", "server.training.schemas"},
    {"server.training.codec", "server.training.worker"},
    {"server.training.trainer"},
    {"server.training.live", "server.training.stream"},
    # the web
    {"server.middleware"},
    {"server.routes", "server.routes.deps", "server.routes.pages", "server.routes.meta",
     "server.routes.gallery"},
    {"server.routes.runs", "server.routes.train", "server.routes.notebook"},
    {"server.app"},
    {"server.serving"},
    {"server.__main__"},
    # build tooling: the page's tables from the op table (python -m server.page_tables)
    {"server.page_tables"},
]  # fmt: skip


def _modules(package: str) -> dict[str, Path]:
    found = {}
    for path in (ROOT / package).rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(path: Path, package: str, modules: dict[str, Path]) -> set[str]:
    """The package's modules a file imports anywhere in its body."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != package:
                continue
            for alias in node.names:  # from engine.nn import functional: the submodule
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
    return found


def _graph(package: str) -> dict[str, set[str]]:
    modules = _modules(package)
    return {name: _imports(path, package, modules) - {name} for name, path in modules.items()}


PACKAGES = {"engine": ENGINE_LAYERS, "recorder": RECORDER_LAYERS, "server": SERVER_LAYERS}

#: which of our packages each may import (engine/ knows nothing of the page)
MAY_IMPORT = {"engine": set(), "recorder": {"engine"}, "server": {"engine", "recorder"}}
GRAPHS = {package: _graph(package) for package in PACKAGES}


def _find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """Depth-first search for a back edge; the cycle it finds, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(name: str) -> list[str] | None:
        state[name] = 1
        path.append(name)
        for nxt in sorted(graph[name]):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (cycle := visit(nxt)) is not None:
                return cycle
        path.pop()
        state[name] = 2
        return None

    for name in sorted(graph):
        if name not in state and (cycle := visit(name)) is not None:
            return cycle
    return None


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_every_module_has_a_layer(package: str) -> None:
    placed = set().union(*PACKAGES[package])
    modules = set(GRAPHS[package])
    assert modules == placed, f"unplaced: {modules - placed}, gone: {placed - modules}"


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_imports_point_down_the_layers(package: str) -> None:
    layer = {name: i for i, names in enumerate(PACKAGES[package]) for name in names}
    wrong = [
        f"{a} (layer {layer[a]}) imports {b} (layer {layer[b]})"
        for a, targets in GRAPHS[package].items()
        for b in targets
        if layer[b] > layer[a]
    ]
    assert not wrong, "\n".join(wrong)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_no_import_cycle(package: str) -> None:
    cycle = _find_cycle(GRAPHS[package])
    assert cycle is None, "import cycle: " + " -> ".join(cycle or [])


def test_the_checker_sees_a_cycle_and_imports_inside_functions(tmp_path: Path) -> None:
    """The parser counts an import inside a function, and the search finds a cycle."""
    source = "def f():\n    from engine.tensor import Tensor\n    import engine.functions\n"
    (tmp_path / "mod.py").write_text(source)
    modules = _modules("engine")
    assert _imports(tmp_path / "mod.py", "engine", modules) == {"engine.tensor", "engine.functions"}
    graph = dict(GRAPHS["engine"])
    graph["engine.core"] = graph["engine.core"] | {"engine.tensor"}
    cycle = _find_cycle(graph)
    assert cycle is not None
    assert "engine.core -> engine.tensor -> engine.core" in " -> ".join(cycle)


def test_the_autograd_core_does_not_reach_tensor() -> None:
    seen: set[str] = set()
    todo = ["engine.core"]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(GRAPHS["engine"][name])
    assert "engine.tensor" not in seen


def test_the_program_knows_no_process_and_no_web() -> None:
    """server.program runs inside a jailed worker: it reaches neither the jail nor the web."""
    allowed = {"server", "server.program"}
    wrong = [
        f"{a} imports {b}"
        for a, targets in GRAPHS["server"].items()
        if a.startswith("server.program")
        for b in targets
        if not any(b == p or b.startswith(p + ".") for p in ("server.program",))
        and b not in allowed
    ]
    assert not wrong, "\n".join(wrong)


#: What a module would import to deal with processes, descriptors or the kernel: the jail's
#: business (server/sandbox), never the program's.
PROCESS_MODULES = frozenset(
    {"os", "socket", "subprocess", "select", "selectors", "resource", "multiprocessing",
     "ctypes", "fcntl", "mmap", "pty", "pyseccomp", "threading", "asyncio"}
)  # fmt: skip


def test_the_program_touches_no_process_descriptor_or_kernel() -> None:
    """server.program is the program's side only: parse, name, run, record. Forking, pipes,
    rlimits, seccomp and signals to others live in server.sandbox (issue 21, item 7)."""
    wrong = []
    for path in (ROOT / "server" / "program").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module]
                if isinstance(node, ast.ImportFrom) and node.module and node.level == 0
                else []
            )
            wrong += [
                f"{path.relative_to(ROOT)} imports {n}"
                for n in names
                if n.split(".")[0] in PROCESS_MODULES
            ]
    assert not wrong, "\n".join(wrong)


def _ours(path: Path) -> set[str]:
    """Our top-level packages a file imports anywhere in its body."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module.split(".")[0])
    return found & set(PACKAGES)


@pytest.mark.parametrize("package", sorted(PACKAGES))
def test_packages_import_down_only(package: str) -> None:
    """engine -> nothing of ours; recorder -> engine; server -> recorder, engine."""
    wrong = {
        name: sorted(others)
        for name, path in _modules(package).items()
        if (others := _ours(path) - {package} - MAY_IMPORT[package])
    }
    assert not wrong, wrong


def test_no_engine_module_names_the_recorder() -> None:
    """Not in an import (above), nor in a string an import by name could use."""
    naming = [
        f"{name}:{node.lineno}"
        for name, path in _modules("engine").items()
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and node.value.split(".")[0] in ("recorder", "server")
    ]
    assert not naming, naming
