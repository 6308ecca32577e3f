"""Run one program as real Python and describe what happened as a ``RunResponse``-shaped dict.

A jailed worker calls :func:`run_program` once and exits (see :mod:`server.sandbox.worker`).
The program runs as the module ``__main__`` of a fresh namespace whose builtins import only
the preloaded modules; its output goes to a stream the caller provides (the worker's pipe);
tensors take the user's variable names (see :mod:`server.program.source`); every backward
pass is recorded as a graph. Errors become ``{type, message, line, col, traceback}`` from the
innermost frame of the user's program, with the user's frames only.

A notebook is run the same way, still one-shot: to show cell k, cells 1..k run in order in the
one namespace, each compiled on its own under its own name (``<cell 3>``), so line numbers are
the cell's and an error says ``cell 3, line 2`` (``cell`` in the error). Only cell k is
recorded: the backward passes it called (drawn whole, the nodes earlier cells recorded marked
``earlier``), or without one, the operations it recorded, the tensors earlier cells made drawn
as its inputs (:func:`recorder.graph.export_since`).
"""

from __future__ import annotations

import ast
import bisect
import builtins
import contextlib
import linecache
import random
import sys
import time
import traceback
import types
import warnings
import weakref
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy

from engine.core import next_seq as _next_seq
from engine.core import observing
from engine.dtypes import float32
from engine.factories import set_default_device
from engine.factories import tensor as new_tensor
from engine.nn import Module, Parameter
from engine.random import manual_seed
from engine.tensor import Tensor
from recorder.graph import (
    export,
    export_error,
    export_focus,
    export_pass_since,
    export_since,
    export_tensors,
    freeze_leaves,
)
from recorder.passlog import PassLog
from recorder.record import record_passes
from recorder.replay import export_as_it_was
from server.program import practice
from server.program import source as src
from server.program.answer import empty_answer
from server.program.budgets import Budgets, cut_answer_text
from server.program.clock import StoppedByUser, wall_clock
from server.program.imports import Importer
from server.program.known import known_names
from server.program.output import Output, ProgramStream
from server.program.values import graph as values_graph
from server.program.values.compare import compare_pass
from server.program.values.names import looks_like_value
from server.program.values.observer import ValueObserver, quiet_collector

IMPLICIT_BACKWARD_NOTICE = (
    "The program did not call backward(); the playground called backward() on the value of "
    "its last statement (a scalar that requires grad)."
)
MAX_RESULT_CHARS = 10_000


# ---- names ------------------------------------------------------------------------------------


class Namer:
    """The hooks the naming pass calls: give tensors and modules the user's names.

    A name given at the top level wins over one given inside a function (``loss`` over a
    helper's ``out``); the first name of each kind sticks. ``self.fc1 = nn.Linear(...)`` names
    the module ``fc1``; a module assigned to a variable names its parameters by their path in
    it (``fc1.weight`` for a user's ``Net``, ``model.0.weight`` for a bare ``Sequential``).
    """

    def __init__(self, values: ValueObserver | None = None) -> None:
        self.tensor_type: type = Tensor
        self.module_type: type = Module
        self.engine = (self.tensor_type, self.module_type)
        self.exact_tensors = frozenset((Tensor, Parameter))
        self.values = values  # the program's own autograd objects (micrograd's Value ...)
        # id -> weakref of tensors named inside a function (not a WeakSet: tensors compare
        # elementwise, so they do not belong in hashed collections)
        self._local: dict[int, weakref.ref[Any]] = {}

    def _is_local(self, t: Any) -> bool:
        ref = self._local.get(id(t))
        return ref is not None and ref() is t

    def _mark(self, t: Any, local: bool | str) -> None:
        if local:
            self._local[id(t)] = weakref.ref(t)
        else:
            self._local.pop(id(t), None)

    def name(self, name: str, value: Any, local: bool | str = False) -> Any:
        try:
            # By type, not isinstance: isinstance may ask a program's object for __class__.
            t = type(value)
            if t in self.exact_tensors:  # most assignments in a training loop: first, and short
                self._tensor(name, value, local)
                return value
            values = self.values
            if values is not None and t in values.classes and not issubclass(t, self.engine):
                values.names.name(name, value, local)
            elif issubclass(t, self.tensor_type):
                self._tensor(name, value, local)
            elif issubclass(t, self.module_type):
                self._module(name, value, local)
            elif values is not None and (t is list or t is tuple or t is dict) and name[0] != ".":
                values.names.name(name, value, local)
        except Exception:  # naming is cosmetic: never the program's error
            pass
        return value

    def expression(self, text: str, value: Any, local: bool | str = False) -> Any:
        """An indexed name's value (``X[train]``): a tensor without a name takes its text, as
        a name given inside a function (any assignment's name wins over it)."""
        try:
            if isinstance(value, self.tensor_type) and getattr(value, "_name", "") is None:
                setattr(value, "_name", text)  # noqa: B010 (a tensor's own attribute)
                self._mark(value, True)
        except Exception:  # naming is cosmetic: never the program's error
            pass
        return value

    def loop(self, names: Any, value: Any, local: bool | str = False) -> None:
        """A ``for`` loop's target (``for xb, yb in batches``): the tensors it binds take its
        names (only tensors: a loop over the program's own Values costs it nothing more)."""
        try:
            if isinstance(names, tuple) and type(value) is tuple:
                for n, v in zip(names, value, strict=False):
                    if n is not None:
                        self.loop(n, v, local)
            elif isinstance(names, str) and isinstance(value, self.tensor_type):
                self._tensor(names, value, local)
        except Exception:  # naming is cosmetic: never the program's error
            pass

    def names(self, names: Any, value: Any, local: bool | str = False) -> Any:
        if isinstance(names, tuple) and isinstance(value, tuple | list):
            for n, v in zip(names, value, strict=False):
                if n is not None:
                    self.names(n, v, local)
        elif isinstance(names, str):
            self.name(names, value, local)
        return value

    def _tensor(self, name: str, t: Any, local: bool | str) -> None:
        current = t._name
        if name[:1] == ".":  # an attribute (self.w = ...): named as if inside a function
            if current is None:
                t._name = name.lstrip(".")
                self._mark(t, True)
        elif current is None or (not local and self._local and self._is_local(t)):
            t._name = name
            self._mark(t, local)

    def _module(self, name: str, module: Any, local: bool | str) -> None:
        attribute = name.startswith(".")
        name = name.lstrip(".")
        if getattr(module, "_name", None) is None or (not local and not attribute):
            object.__setattr__(module, "_name", name)
        if attribute:
            return  # its parameters are named when the whole model is assigned
        user_defined = type(module).__module__ == "__main__"
        for path, param in module.named_parameters():
            full = path if user_defined else f"{name}.{path}"
            if param._name is None or (not local and self._is_local(param)):
                param._name = full
                self._mark(param, local)


# ---- errors -----------------------------------------------------------------------------------


def _user_frames(tb: types.TracebackType | None) -> traceback.StackSummary:
    frames = [f for f in traceback.extract_tb(tb) if src.is_program_file(f.filename)]
    return traceback.StackSummary.from_list(frames)


def _exception_text(exc: BaseException) -> str:
    lines = traceback.format_exception_only(type(exc), exc)
    return "".join(lines).rstrip("\n")


def error_info(
    exc: BaseException,
    fallback: tuple[int | None, int | None] = (None, None),
    fallback_file: str = src.FILENAME,
) -> dict[str, Any]:
    """``{type, message, line, col, traceback}`` from the innermost user frame (and ``cell``
    when that frame is a notebook cell's); without one, at ``fallback`` in ``fallback_file``."""
    frames = _user_frames(exc.__traceback__)
    line, col = fallback
    filename = fallback_file
    end_line = end_col = None
    if frames:
        last = frames[-1]
        filename = last.filename
        line = last.lineno
        colno = getattr(last, "colno", None)
        col = colno + 1 if colno is not None else None
        end_colno = getattr(last, "end_colno", None)
        if end_colno is not None and col is not None:
            end_line = getattr(last, "end_lineno", None) or line
            end_col = end_colno + 1  # 1-based, exclusive: the span Python's carets mark
    message = str(exc)
    if isinstance(exc, KeyError) and len(exc.args) == 1:
        message = repr(exc.args[0])
    if isinstance(exc, MemoryError):
        note = "the program ran out of memory (budget: sandbox_memory_limit_bytes)"
        message = f"{message} — {note}" if message else note
    text = ""
    if frames:
        text = "Traceback (most recent call last):\n" + "".join(frames.format())
    text += _exception_text(exc)
    info: dict[str, Any] = {
        "type": type(exc).__name__,
        "message": message,
        "line": line,
        "col": col,
        "traceback": text,
    }
    if end_col is not None:
        info["end_line"], info["end_col"] = end_line, end_col
    cell = src.cell_of(filename)
    if cell is not None:
        info["cell"] = cell
    return info


def source_error_info(
    exc: src.SourceError, source: str, filename: str = src.FILENAME
) -> dict[str, Any]:
    """A syntax or budget error found before running: Python's own text for a SyntaxError."""
    text = f"{exc.type_name}: {exc.message}"
    if exc.line is not None:
        lines = source.splitlines()
        shown = lines[exc.line - 1] if 0 < exc.line <= len(lines) else ""
        caret = ""
        if exc.col is not None and shown:
            stripped = shown.lstrip()
            indent = len(shown) - len(stripped)
            caret = "\n    " + " " * max(exc.col - 1 - indent, 0) + "^"
        text = f'  File "{filename}", line {exc.line}\n    {shown.strip()}{caret}\n' + text
    info: dict[str, Any] = {
        "type": exc.type_name,
        "message": exc.message,
        "line": exc.line,
        "col": exc.col,
        "traceback": text,
    }
    cell = src.cell_of(filename)
    if cell is not None:
        info["cell"] = cell
    return info


# ---- warnings ---------------------------------------------------------------------------------


class _WarningLog:
    """Warnings shown as Python shows them once per location: ``Line 7: UserWarning: ...``."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def show(
        self,
        message: Warning | str,
        category: type[Warning],
        filename: str,
        lineno: int,
        file: Any = None,
        line: str | None = None,
    ) -> None:
        at = (filename, lineno) if src.is_program_file(filename) else _innermost_program_line()
        place = src.place(*at) if at is not None else ""
        where = f"{place[:1].upper()}{place[1:]}: " if place else ""
        text = f"{where}{category.__name__}: {message}"
        if text not in self.lines:
            self.lines.append(text)


def _innermost_program_line() -> tuple[str, int] | None:
    frame = sys._getframe(1)
    while frame is not None:
        if src.is_program_file(frame.f_code.co_filename):
            return frame.f_code.co_filename, frame.f_lineno
        frame = frame.f_back  # type: ignore[assignment]
    return None


# ---- the run ------------------------------------------------------------------------------------


def _binding_tensor(name: str, spec: Any) -> Any:
    requires_grad = True
    value = spec
    if isinstance(spec, dict):
        value = spec.get("value")
        requires_grad = bool(spec.get("requires_grad", True))
    t = new_tensor(value, dtype=float32, requires_grad=requires_grad)
    t._name = name
    return t


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)


def _seed_everything(seed: int) -> None:
    """One seed for every generator a program may draw from without seeding it: torch's,
    NumPy's global one and Python's ``random`` (a forked worker would otherwise repeat the
    zygote's state in every run; with the request's seed, a run is reproducible)."""
    manual_seed(seed)
    numpy.random.seed(seed % 2**32)
    random.seed(seed)


def _implicit_root(last: Any) -> Any:
    """The last statement's value when it is a scalar tensor that requires grad."""
    if not isinstance(last, Tensor):
        return None
    try:
        if last.requires_grad and last.numel() == 1:
            return last
    except Exception:
        return None
    return None


def _safe_repr(value: Any) -> str:
    text = repr(value)
    if len(text) > MAX_RESULT_CHARS:
        text = text[:MAX_RESULT_CHARS] + " …"
    return text


@dataclass(frozen=True)
class _Cell:
    """One compiled piece of source: the program, or one of a notebook's cells."""

    number: int  # 1-based (a program is cell 1)
    filename: str  # <program>, or <cell 3>
    source: str
    tree: ast.Module
    code: types.CodeType
    has_last: bool  # it ends with an expression (whose value is its result)


def _compile(number: int, filename: str, source: str, budgets: Budgets) -> _Cell:
    """Parse (within the budgets), rewrite and compile; SourceError when it cannot run."""
    try:
        tree = src.parse(
            source,
            src.SourceBudgets(
                budgets.max_source_bytes, budgets.max_ast_nodes, budgets.max_ast_depth
            ),
            filename,
        )
        tree, has_last = src.rewrite(tree)
        code = compile(tree, filename, "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as exc:  # found by the compiler, not the parser
        line = getattr(exc, "lineno", None)
        col = getattr(exc, "offset", None)
        msg = getattr(exc, "msg", None) or str(exc)
        raise src.SourceError(type(exc).__name__, msg, line, col) from None
    return _Cell(number, filename, source, tree, code, has_last)


def _sources(job: Mapping[str, Any]) -> tuple[list[str], int] | None:
    """A notebook job's cells and the cell to show (1-based, within them); None for a program."""
    cells = job.get("cells")
    if cells is None:
        return None
    sources = [str(c) for c in cells] or [""]
    shown = int(job.get("cell") or len(sources))
    return sources, max(1, min(shown, len(sources)))


def _notebook_too_long(sources: list[str], budgets: Budgets) -> dict[str, Any] | None:
    """The budget on source applies to a notebook's cells together."""
    size = sum(len(s.encode("utf-8", "surrogatepass")) for s in sources)
    if size <= budgets.max_source_bytes:
        return None
    return {
        "type": "BudgetExceeded",
        "message": f"notebook too long: {size:,} bytes of code, at most "
        f"{budgets.max_source_bytes:,} (budget: max_source_bytes)",
        "line": None,
        "col": None,
        "traceback": None,
    }


def run_program(
    job: Mapping[str, Any],
    output: Output,
    modules: Mapping[str, types.ModuleType],
    timed: bool = True,
    on_cell: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """:func:`_run_program`, its free text (the error's message and traceback, the notice, the
    results) cut to the output cap: ``raise ValueError("E" * 10**8)`` answers 100,000
    characters, not 100 MB.

    The program runs as ``sys.modules["__main__"]``; the caller's ``__main__`` is back when this
    returns (a process that runs programs in-process, the zygote's warm-up or a test, would
    otherwise start its later subprocesses from the program's ``<program>``, which
    ``multiprocessing`` cannot re-import)."""
    caller_main = sys.modules.get("__main__")
    try:
        result = _run_program(job, output, modules, timed, on_cell)
    finally:
        if caller_main is not None:
            sys.modules["__main__"] = caller_main
    limit = Budgets(**job.get("budgets", {})).max_output_chars
    return cut_answer_text(result, limit)


def _run_program(
    job: Mapping[str, Any],
    output: Output,
    modules: Mapping[str, types.ModuleType],
    timed: bool = True,
    on_cell: Callable[[int], None] | None = None,
) -> dict[str, Any]:
    """Run ``job`` = {source, device, seed, bindings, budgets}; return the response dict
    (``stdout`` empty: the caller collects what ``output`` received).

    A notebook's job has ``cells`` (the code cells' sources) and ``cell`` (the one to show,
    1-based) instead of ``source``: cells 1..cell run, and the answer says, in ``cells``, how
    each that ran ended (``{cell, ok, result}``) and, in ``cell``, whose graphs it holds (the
    cell asked for, or the earlier one that stopped the run). ``on_cell`` is told each cell's
    number as it starts, before it prints anything (the worker tells the server, which so
    knows which cell printed what).

    ``modules`` are the importable modules (:func:`server.program.imports.preload`); ``timed``
    arms the soft wall clock (a signal: only in a worker's main thread).

    Three steps: prepare (compile every cell, build the namespace), execute (run the cells,
    recording), describe (the passes, the notices, the timings).
    """
    run = _Run(job, output, modules)
    if run.prepare():
        run.execute(timed, on_cell)
        run.describe()
    return run.result


class _Run:
    """One program's (or notebook's) run: what :func:`_run_program` prepares, executes and
    describes, and the answer it fills in as it goes."""

    def __init__(
        self, job: Mapping[str, Any], output: Output, modules: Mapping[str, types.ModuleType]
    ) -> None:
        self.started = time.perf_counter()
        self.job = job
        self.modules = modules
        self.budgets = Budgets(**job.get("budgets", {}))
        self.device = str(job.get("device", "cpu"))
        self.notebook = _sources(job)
        self.sources, self.shown = (
            self.notebook if self.notebook is not None else ([str(job.get("source", ""))], 1)
        )
        self.result = empty_answer(self.device, None if self.notebook is None else self.shown)
        self.cell_runs: list[dict[str, Any]] = self.result.get("cells", [])
        self.timing: dict[str, float] = self.result["timing_ms"]
        self.stream = ProgramStream(output, self.budgets.max_output_chars)
        self.warning_log = _WarningLog()
        self.notices: list[str] = []
        self.cells: list[_Cell] = []
        self.values = ValueObserver(
            self.budgets.max_graph_nodes,
            self.budgets.max_drawn_numbers,
            self.budgets.max_recorded_passes,
        )
        # a notebook watches only the cell it shows: the earlier ones run unrecorded
        self.values.watching = self.notebook is None
        self.last: list[Any] = []
        self.namespace: dict[str, Any] = {}
        self.root: Any = None
        self.log: Any = None
        self.since = -1  # the sequence number the current cell's recording starts at

    # ---- prepare ------------------------------------------------------------------------------

    def prepare(self) -> bool:
        """Compile every cell and build the program's namespace; False (the answer says why)
        when a cell does not compile or a notebook is over its budget."""
        if self.notebook is not None:
            self.result["error"] = _notebook_too_long(self.sources, self.budgets)
            if self.result["error"] is not None:
                return False
        for number, source in enumerate(self.sources[: self.shown], 1):
            filename = src.cell_filename(number) if self.notebook is not None else src.FILENAME
            try:
                self.cells.append(_compile(number, filename, source, self.budgets))
            except src.SourceError as exc:
                self.result["error"] = source_error_info(exc, source, filename)
                if self.notebook is not None:
                    self.result["cell"] = number
                self.timing["total"] = _ms(self.started)
                return False
        self.timing["parse"] = _ms(self.started)
        for cell in self.cells:
            linecache.cache[cell.filename] = (
                len(cell.source), None, cell.source.splitlines(True), cell.filename,
            )  # fmt: skip
        self.namespace = self._namespace()
        return True

    def _namespace(self) -> dict[str, Any]:
        """A fresh ``__main__`` whose builtins import only the preloaded modules, know the
        usual names (tanh, torch, F ...), and carry the naming pass's hooks."""
        namer = Namer(self.values)
        importer = Importer(self.modules)
        importer.bind_sys_streams(self.stream, self.stream)
        program_builtins = dict(vars(builtins))
        program_builtins.update(known_names(self.modules))  # tanh, exp, torch, F ... (known.py)
        observe = self.job.get("observe_values", True)
        program_builtins.update(
            __import__=importer,
            input=_no_input,
            **{
                src.NAME_HOOK: namer.name,
                src.NAMES_HOOK: namer.names,
                src.EXPR_HOOK: namer.expression,
                src.LOOP_HOOK: namer.loop,
                src.LAST_HOOK: self.last.append,
                # watching can be switched off (bench/values_cost.py measures what it costs)
                src.CLASS_HOOK: self.values.register_class if observe else _same,
            },
        )
        main = types.ModuleType("__main__")
        namespace = main.__dict__
        namespace["__builtins__"] = program_builtins
        namespace["__file__"] = self.cells[0].filename
        sys.modules["__main__"] = main
        return namespace

    # ---- execute ------------------------------------------------------------------------------

    def execute(self, timed: bool, on_cell: Callable[[int], None] | None) -> None:
        """Run the cells in order, recording; the program's error (whatever it is) is the
        answer's, at its line."""
        budgets, job = self.budgets, self.job
        current = self.cells[0]
        next_seq = _next_seq  # (bound at import: the program may replace what it can reach)
        run_started = time.perf_counter()
        with contextlib.ExitStack() as stack:
            stack.enter_context(contextlib.redirect_stdout(self.stream))  # type: ignore[type-var]
            stack.enter_context(contextlib.redirect_stderr(self.stream))  # type: ignore[type-var]
            stack.enter_context(warnings.catch_warnings())
            warnings.simplefilter("default")
            warnings.showwarning = self.warning_log.show
            # ``record`` off: the program runs unrecorded (bench/layers.py measures what it costs)
            if self.notebook is None and job.get("record", True):
                self.log = stack.enter_context(
                    record_passes(
                        budgets.max_recorded_passes, budgets.max_graph_nodes, budgets.max_kept_nodes
                    )
                )
                self.values.tensor_log = self.log
            try:
                _seed_everything(int(job.get("seed", 0)))
                set_default_device(self.device)
                for name, spec in (job.get("bindings") or {}).items():
                    self.namespace[name] = _binding_tensor(name, spec)
                with wall_clock(budgets.wall_clock_s, timed):
                    for current in self.cells:
                        if self.notebook is not None:
                            self._enter_cell(current, stack, next_seq, on_cell)
                        if self._run_cell(current):
                            break
                self.result["ok"] = True
            except BaseException as exc:  # the program's error, whatever it is
                self._failed(exc, current)
            finally:
                with contextlib.suppress(Exception):
                    self.stream.finish()  # the tail of an output past the budget, after its cut
        if self.notebook is not None:
            self.result["cell"] = current.number
        self.timing["run"] = _ms(run_started)

    def _enter_cell(
        self,
        cell: _Cell,
        stack: contextlib.ExitStack,
        next_seq: Callable[[], int],
        on_cell: Callable[[int], None] | None,
    ) -> None:
        """A notebook's cell starts: its output is its own, and the cell shown is recorded."""
        if on_cell is not None:
            self.stream.new_cell()  # what the cell before printed is that cell's
            on_cell(cell.number)
        self.since = next_seq()
        self.cell_runs.append({"cell": cell.number, "ok": False, "result": None})
        if cell is self.cells[-1]:  # the cell shown: record it
            self.log = stack.enter_context(_cell_passes(self.budgets, self.since))
            self.values.tensor_log = self.log
            self.values.watching = True

    def _run_cell(self, cell: _Cell) -> bool:
        """Run one cell (a program is one); True when it ended the program (``exit()``)."""
        self.last.clear()
        ended = False
        try:
            exec(cell.code, self.namespace)
        except SystemExit as exc:
            if exc.code not in (None, 0):
                raise
            ended = True  # the program ends here, cleanly
        value = self.last[-1] if self.last else None
        if cell is self.cells[-1] and self.log is not None and _unwalked(self.log, self.values):
            self.root = _implicit_root(value)
            if self.root is not None:
                try:
                    self.root.backward()
                except Exception as exc:
                    raise exc.with_traceback(None) from None
                self.notices.append(IMPLICIT_BACKWARD_NOTICE)
        shown_value = None
        if cell.has_last and value is not None:
            shown_value = _safe_repr(value)
        if self.notebook is None:
            self.result["result"] = shown_value
        else:
            self.cell_runs[-1].update(ok=True, result=shown_value)
        return ended

    def _failed(self, exc: BaseException, current: _Cell) -> None:
        """The program's error as the answer's, at its line, with the graph around it."""
        stopped = isinstance(exc, StoppedByUser)
        if stopped:
            # Stop: said as Jupyter says it, where the program was
            exc = KeyboardInterrupt(*exc.args).with_traceback(exc.__traceback__)
        elif isinstance(exc, KeyboardInterrupt | GeneratorExit):
            exc = RuntimeError(type(exc).__name__)
        result, max_nodes = self.result, self.budgets.max_graph_nodes
        result["error"] = error_info(exc, src.last_position(current.tree), current.filename)
        # A program stopped by the learner did nothing wrong: what it shows is the last pass
        # it recorded, not the operation it happened to be in.
        if stopped:
            return
        _add_focus(result, exc, max_nodes)
        if result["graph"] is None:
            _add_failed_op(result, exc, self.namespace, max_nodes, self.since)

    # ---- describe -----------------------------------------------------------------------------

    def describe(self) -> None:
        """The passes recorded (or, without a backward, what was recorded), the notices and
        the timings, into the answer."""
        result, budgets, log, values = self.result, self.budgets, self.log, self.values
        export_started = time.perf_counter()
        tensor_graphs = list(log.graphs) if log is not None else []
        tensor_total = log.count if log is not None else 0
        deadline = self.started + max(budgets.wall_clock_s - 0.1, 0.1)
        graphs = merge_passes(
            tensor_graphs,
            _value_graphs(values, bool(self.job.get("compare")), deadline),
            values.tensor_counts,
            budgets.max_recorded_passes,
        )
        result["passes_total"] = tensor_total + values.count
        if not graphs and result["ok"] and log is not None:
            graphs = self._unwalked_graphs()
        notices = self.notices
        notices.extend(values.notices)
        if log is not None and log.failures:  # the program ran; only its drawing failed
            notices.append(f"The playground could not draw {log.failures[0]}")
        truncated = [g for g in graphs if g.get("truncated")]
        if truncated:
            notices.append(_truncated_notice(truncated, len(graphs)))
        if self.stream.truncated:  # the page says so by the output (a REST client reads these)
            result["output_truncated"] = True
            result["output_chars"] = self.stream.written
        if self.job.get("practice"):  # what each step asks the learner (practice mode)
            for graph in graphs:
                graph["practice"] = practice.exercises(graph)
        result["passes"] = graphs
        if result["graph"] is None:
            result["graph"] = graphs[-1] if graphs else None
        notices.extend(self.warning_log.lines)
        result["notice"] = "\n".join(notices) if notices else None
        self.timing["export"] = _ms(export_started)
        if log is not None:  # of which (and of run) exporting kept passes, freezing pending
            self.timing["passes_export"] = round(log.export_s * 1000, 3)
            self.timing["passes_freeze"] = round(log.freeze_s * 1000, 3)
        self.timing["total"] = _ms(self.started)

    def _unwalked_graphs(self) -> list[dict[str, Any]]:
        """A program that ran no backward: the graph of its last value (the implicit root's),
        its own Value objects, or what it recorded, so that the page still shows a graph."""
        values, max_nodes = self.values, self.budgets.max_graph_nodes
        value = self.last[-1] if self.last else None
        tensor = self.root if self.root is not None else value
        graphs: list[dict[str, Any]] = []
        with contextlib.suppress(Exception):
            if isinstance(tensor, Tensor) and self.notebook is None:
                graphs = [export(tensor, max_nodes=max_nodes)]
            elif not values.called and (fallback := _value_fallback(values, value)):
                graphs = fallback  # the program's own Value objects, without a walk
            else:
                graphs = _recorded_graph(self.namespace, tensor, self.since, max_nodes)
        return graphs


def _unwalked(log: Any, values: ValueObserver) -> bool:
    """No backward pass ran while recording (of tensors, nor of the program's own Values)."""
    return bool(log.count == 0 and not values.called)


def _cell_passes(budgets: Budgets, since: int) -> Any:
    """Record a notebook cell's backward passes: each drawn whole (the walk is what the cell
    ran), the nodes recorded before ``since`` (by earlier cells) marked ``earlier``."""
    export = partial(export_pass_since, since=since, max_nodes=budgets.max_graph_nodes)
    freeze = partial(freeze_leaves, max_nodes=budgets.max_graph_nodes)
    log = PassLog(
        budgets.max_recorded_passes,
        export,
        freeze,
        budgets.max_kept_nodes,
        export_as_it_was,  # (the passes not kept run unwalked, as a program's do)
    )
    return observing(log)


def _recorded_graph(namespace: Mapping[str, Any], last: Any, since: int, max_nodes: int) -> Any:
    """A run without backward: the operations it recorded that made the tensors it holds (and
    its last statement's value). In a notebook (``since`` >= 0), the shown cell's operations
    only: a tensor an earlier cell made is drawn as an input."""
    held = _live_tensors(namespace, {"": last})
    recorded = [t for t in held if t.grad_fn is not None]
    if not recorded:
        return []
    if since < 0:
        return [export_tensors(recorded, max_nodes)]
    graph = export_since(recorded, since, max_nodes)
    return [graph] if graph["nodes"] else []


# ---- the program's own autograd -----------------------------------------------------------------


def _truncated_notice(truncated: list[dict[str, Any]], kept: int) -> str:
    """What the drawing budget left out, said once for the passes it cut."""
    cut = truncated[-1]["truncated"]
    total = f"more than {cut['total_nodes']:,}" if cut["more_than"] else f"{cut['total_nodes']:,}"
    also = f" ({len(truncated)} of the {kept} graphs kept are cut so)" if kept > 1 else ""
    return (
        f"The program ran to its end, but its graph has {total} nodes: the page draws the "
        f"{cut['drawn_nodes']:,} nearest its output{also} (budget: max_graph_nodes)."
    )


def _value_graphs(values: ValueObserver, compare: bool, deadline: float) -> list[dict[str, Any]]:
    """The observed passes as graphs; with ``compare``, checked against PyTorch (the last pass
    first: it is the one the page shows)."""
    graphs = []
    with quiet_collector():
        for record in values.passes:
            with contextlib.suppress(Exception):  # a graph is a bonus: never the program's error
                graphs.append((record, values_graph.export_pass(record)))
    if compare:
        for record, graph in reversed(graphs):
            try:
                compare_pass(record, graph, deadline)
            except Exception as exc:
                graph["compare"] = {"skipped": f"{type(exc).__name__}: {exc}"}
    return [graph for _, graph in graphs]


def _value_fallback(values: ValueObserver, last_value: Any) -> list[dict[str, Any]]:
    """No backward() was called: the graph of the last statement's value, else of the last
    object assigned, if it is one of the program's autograd objects (no walk)."""
    for candidate in (last_value, values.names.last_candidate):
        if candidate is None or not looks_like_value(candidate):
            continue
        with contextlib.suppress(Exception):
            record = values.snapshot(candidate)
            if record is not None:
                return [values_graph.export_pass(record)]
    return []


def merge_passes(
    tensor_graphs: list[dict[str, Any]],
    value_graphs: list[dict[str, Any]],
    value_counts: list[int],
    max_passes: int,
) -> list[dict[str, Any]]:
    """Tensor and Value passes in the order they ran, renumbered, bounded like each alone (the
    first ``max_passes - 1`` and the last). ``value_counts[j]``: tensor passes before Value
    pass j (each graph's ``pass_index`` is its index among its own kind)."""
    if not value_graphs:
        return tensor_graphs
    for graph in tensor_graphs:
        graph["pass_index"] += bisect.bisect_right(value_counts, graph["pass_index"])
    for graph in value_graphs:
        graph["pass_index"] += value_counts[graph["pass_index"]]
    merged = sorted(tensor_graphs + value_graphs, key=lambda g: int(g["pass_index"]))
    if len(merged) > max_passes:
        merged = merged[: max(1, max_passes) - 1] + merged[-1:]
    return merged


def _same(cls: Any) -> Any:
    return cls


def _no_input(prompt: Any = "") -> str:
    raise EOFError("input(): the playground has no keyboard input; assign the value instead")


def _add_focus(result: dict[str, Any], exc: BaseException, max_nodes: int) -> None:
    """An autograd error: send the graph it happened in, and which node it concerns."""
    if getattr(exc, "autograd_focus", None) is None:
        return
    with contextlib.suppress(Exception):  # best effort: the error itself is already reported
        exported = export_focus(exc, max_nodes)
        if exported is not None:
            graph, node_id = exported
            result["graph"] = graph
            result["error"]["node"] = node_id


def _live_tensors(*namespaces: Mapping[str, Any]) -> list[Any]:
    """The tensors a program holds in these namespaces (variables, and a module's parameters
    are reached through the modules' own graphs), each once."""
    seen: dict[int, Any] = {}
    for space in namespaces:
        for value in list(space.values()):
            if isinstance(value, Tensor):
                seen.setdefault(id(value), value)
    return list(seen.values())


def _add_failed_op(
    result: dict[str, Any],
    exc: BaseException,
    namespace: Mapping[str, Any],
    max_nodes: int,
    since: int = -1,
) -> None:
    """A forward error inside a recorded op: the graph recorded up to it, the op marked (in a
    notebook, ``since`` >= 0: of the variables, those the failing cell recorded)."""
    failed = getattr(exc, "failed_op", None)
    if failed is None:
        return
    frames = [
        frame.f_locals
        for frame, _ in traceback.walk_tb(exc.__traceback__)
        if src.is_program_file(frame.f_code.co_filename)
    ]
    held = _live_tensors(namespace)
    if since >= 0:
        held = [t for t in held if t.grad_fn is not None and t.grad_fn.seq >= since]
    with contextlib.suppress(Exception):  # best effort: the error itself is already reported
        graph, node_id = export_error([*held, *_live_tensors(*frames)], failed, max_nodes)
        result["graph"] = graph
        result["error"]["node"] = node_id
