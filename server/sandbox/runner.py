"""Run one program in this process: parse, bind, interpret under budgets, collect graphs.

This is what a worker process executes for each request (see :mod:`server.sandbox.pool`).
The result is a plain dict shaped like ``RunResponse``.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import time
from collections.abc import Iterator
from typing import Any

from server.sandbox import namespace
from server.sandbox.budgets import Budgets
from server.sandbox.errors import UserError, from_exception
from server.sandbox.interpreter import Interpreter
from server.sandbox.validate import parse

IMPLICIT_BACKWARD_NOTICE = (
    "The program did not call backward(); the playground called backward() on the value of "
    "its last statement (a scalar that requires grad)."
)


class _NullPasses:
    graphs: list[dict[str, Any]] = []  # noqa: RUF012
    count = 0


@contextlib.contextmanager
def _recording(engine: Any, max_passes: int) -> Iterator[Any]:
    """engine.autograd.record_passes, or a stand-in that records nothing."""
    hook = getattr(getattr(engine, "autograd", None), "record_passes", None)
    if hook is None:
        yield _NullPasses()
        return
    with hook(max_passes) as log:
        yield log


@contextlib.contextmanager
def _limited(engine: Any, budgets: Budgets) -> Iterator[None]:
    """engine.limits.limited(Limits(...)), or nothing while the engine lacks it."""
    limits = getattr(engine, "limits", None)
    if limits is None:
        with contextlib.suppress(Exception):
            import importlib

            limits = importlib.import_module("engine.limits")
    if limits is None or not hasattr(limits, "limited"):
        yield
        return
    spec = limits.Limits(
        max_tensor_elements=budgets.max_tensor_elements,
        max_total_elements=budgets.max_total_elements,
        max_flops=budgets.max_flops,
        max_graph_nodes=budgets.max_graph_nodes,
    )
    with limits.limited(spec):
        yield


def _is_tensor(engine: Any, value: Any) -> bool:
    cls = getattr(engine, "Tensor", None)
    return isinstance(cls, type) and isinstance(value, cls)


def _name_values(engine: Any) -> Any:  # returns the hook
    """A hook that gives tensors (and a module's parameters) the user's variable names."""
    tensor_cls: Any = getattr(engine, "Tensor", None)
    module_cls: Any = getattr(getattr(engine, "nn", None), "Module", None)

    def hook(name: str, value: Any) -> None:
        obj: Any = value
        if isinstance(tensor_cls, type) and isinstance(value, tensor_cls):
            if getattr(value, "_name", None) is None:
                with contextlib.suppress(Exception):
                    obj._name = name  # engine hook: graph nodes take the user's names
        elif isinstance(module_cls, type) and isinstance(value, module_cls):
            with contextlib.suppress(Exception):
                for pname, param in obj.named_parameters():
                    if getattr(param, "_name", None) is None:
                        param._name = f"{name}.{pname}"

    return hook


def _binding_tensor(engine: Any, name: str, spec: Any) -> Any:
    requires_grad = True
    value = spec
    if isinstance(spec, dict):
        value = spec.get("value")
        requires_grad = bool(spec.get("requires_grad", True))
    t = engine.tensor(value, dtype=engine.float32, requires_grad=requires_grad)
    with contextlib.suppress(Exception):
        t._name = name
    return t


def _export(engine: Any, root: Any) -> dict[str, Any] | None:
    export = getattr(getattr(engine, "graph", None), "export", None)
    if export is None:
        with contextlib.suppress(Exception):
            import importlib

            export = importlib.import_module("engine.graph").export
    if export is None:
        return None
    result: dict[str, Any] = export(root)
    return result


@functools.lru_cache(maxsize=128)
def _parse_cached(
    source: str, max_source_bytes: int, max_ast_nodes: int, max_ast_depth: int
) -> ast.Module:
    """Parse + validate once per distinct source (sliders re-run one program with new bindings).

    Safe to share: the interpreter never mutates the tree.
    """
    budgets = Budgets(
        max_source_bytes=max_source_bytes, max_ast_nodes=max_ast_nodes, max_ast_depth=max_ast_depth
    )
    return parse(source, budgets)


def run_program(job: dict[str, Any]) -> dict[str, Any]:
    """Run ``job`` = {source, device, seed, bindings, budgets} and return the response dict."""
    started = time.perf_counter()
    budgets = Budgets(**job.get("budgets", {}))
    device = job.get("device", "cpu")
    result: dict[str, Any] = {
        "ok": False, "stdout": "", "error": None, "graph": None, "passes": [],
        "device": device, "notice": None, "timing_ms": {},
    }  # fmt: skip
    timing = result["timing_ms"]
    interp: Interpreter | None = None
    try:
        tree = _parse_cached(
            job["source"], budgets.max_source_bytes, budgets.max_ast_nodes, budgets.max_ast_depth
        )
        timing["parse"] = _ms(started)
        engine = namespace.load_engine()
        interp = Interpreter(budgets)
        if engine is not None:
            interp.name_hook = _name_values(engine)
        with contextlib.ExitStack() as stack:
            log = stack.enter_context(_recording(engine, budgets.max_recorded_passes))
            stack.enter_context(_limited(engine, budgets))
            if engine is not None:
                _prepare_engine(engine, device, int(job.get("seed", 0)))
            for name, spec in (job.get("bindings") or {}).items():
                if engine is None:
                    raise UserError("RuntimeError", "the tensor engine is not available")
                interp.globals.vars[name] = _binding_tensor(engine, name, spec)
            run_started = time.perf_counter()
            last = interp.run(tree)
            timing["run"] = _ms(run_started)
            root = None
            if not interp.ctx.backward_called and log.count == 0 and engine is not None:
                root = _implicit_root(engine, last)
                if root is not None:
                    try:
                        root.backward()
                    except Exception as exc:
                        raise from_exception(exc, *_last_pos(tree)) from None
                    result["notice"] = IMPLICIT_BACKWARD_NOTICE
            graphs = list(getattr(log, "graphs", []))
        if engine is not None:
            if not graphs and root is not None:
                exported = _export(engine, root)
                graphs = [exported] if exported else []
            if not graphs and _is_tensor(engine, last):
                with contextlib.suppress(Exception):
                    exported = _export(engine, last)
                    graphs = [exported] if exported else []
        result["passes"] = graphs
        result["graph"] = graphs[-1] if graphs else None
        result["ok"] = True
    except UserError as exc:
        result["error"] = exc.as_dict()
        _add_focus(result, exc)
    except Exception as exc:
        error = from_exception(exc)
        result["error"] = error.as_dict()
        _add_focus(result, error)
    if interp is not None:
        result["stdout"] = interp.stdout()
        if interp.ctx.warnings:  # what PyTorch would print to stderr, shown beside the output
            notes = [n for n in (result.get("notice"), *interp.ctx.warnings) if n]
            result["notice"] = "\n".join(notes)
    timing["total"] = _ms(started)
    return result


def _add_focus(result: dict[str, Any], error: UserError) -> None:
    """An autograd error: send the graph it happened in, and which node it concerns."""
    if error.autograd_focus is None:
        return
    from engine.graph import export_focus

    with contextlib.suppress(Exception):  # best effort: the error itself is already reported
        exported = export_focus(error)
        if exported is not None:
            graph, node_id = exported
            result["graph"] = graph
            result["error"]["node"] = node_id


def _implicit_root(engine: Any, last: Any) -> Any:
    """The last statement's value when it is a scalar tensor that requires grad."""
    if not _is_tensor(engine, last):
        return None
    try:
        if last.requires_grad and last.numel() == 1:
            return last
    except Exception:
        return None
    return None


def _last_pos(tree: Any) -> tuple[int | None, int | None]:
    if not tree.body:
        return None, None
    node = tree.body[-1]
    return node.lineno, node.col_offset + 1


def _prepare_engine(engine: Any, device: str, seed: int) -> None:
    seed_fn = getattr(engine, "manual_seed", None)
    if seed_fn is not None:
        seed_fn(seed)
    # Always set it: workers are reused, and a cuda job must not leak into the next cpu one.
    engine.set_default_device(device)


def _ms(since: float) -> float:
    return round((time.perf_counter() - since) * 1000, 3)
