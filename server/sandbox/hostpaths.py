"""No host layout in a program's reach: neutral file names in code objects, no path caches.

The zygote loads the engine, NumPy and the standard library from files, and Python remembers
where: every code object carries its file's absolute path (``co_filename``), which a program
reaches through any function (``torch.nn.Linear.forward.__code__``), a traceback or a frame,
and a few caches keep paths too (``linecache``, the import system's finders, ``site``).
:func:`rename_code` gives every code object loaded so far a neutral name instead, as PyTorch
users know them (``<torch>/nn/modules.py``, ``<numpy>/core/fromnumeric.py``,
``<python>/json/decoder.py``); :func:`forget_caches` empties the caches. Both run in the
zygote over whatever it has loaded, whatever that is, before any worker is forked;
:func:`forget_process` runs in each worker, before its jail, for what only a process knows
(its environment, its command line, the interpreter's location).

This is hygiene, not the boundary: a program that reads raw memory through ``ctypes`` can
still find paths (the dynamic loader's list of libraries); it can open none of them (the jail).
"""

from __future__ import annotations

import collections
import contextlib
import functools
import gc
import linecache
import os
import sys
import sysconfig
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = str(Path(__file__).resolve().parents[2])

#: top-level directories shown under another name (the engine is presented as ``torch``)
PRESENTED_AS = {"engine": "torch"}

#: modules whose paths are left as they are: a CUDA worker, after the fork, loads the CUDA
#: libraries from where CuPy found them at import
KEEP_PATHS_IN = ("cupy", "cupyx", "cupy_backends", "nvidia", "fastrlock")


def _roots() -> list[tuple[str, str, bool]]:
    """(directory, label, by package), longest first. A file under a directory "by package"
    is named by its top-level package (``<numpy>/core/fromnumeric.py``), else by the label
    (``<python>/json/decoder.py``); the directory itself is ``<label>``."""
    roots: dict[str, tuple[str, bool]] = {}
    for prefix, label in (
        (sys.base_prefix, "python-prefix"), (sys.base_exec_prefix, "python-prefix"),
        (sys.prefix, "venv"), (sys.exec_prefix, "venv"),
    ):  # fmt: skip
        if prefix:
            roots[prefix] = (label, False)
    paths = sysconfig.get_paths()
    for key in ("stdlib", "platstdlib"):
        roots[paths[key]] = ("python", False)
    stdlib = getattr(sys, "_stdlib_dir", None)
    if stdlib:
        roots[stdlib] = ("python", False)
    for entry in sys.path:
        if entry and os.path.isabs(entry):
            roots.setdefault(entry, (os.path.basename(entry) or "path", True))
    for key in ("purelib", "platlib"):
        roots[paths[key]] = ("site-packages", True)
    roots[ROOT] = ("app", True)
    ordered = sorted(
        ((os.path.normpath(d), label, by_package) for d, (label, by_package) in roots.items()),
        key=lambda root: -len(root[0]),
    )
    return [root for root in ordered if root[0] != os.sep]


def neutral_name(path: str, roots: list[tuple[str, str, bool]] | None = None) -> str:
    """``/…/site-packages/numpy/core/fromnumeric.py`` -> ``<numpy>/core/fromnumeric.py``;
    names that are not absolute paths (``<frozen os>``, ``<program>``) are kept."""
    if not os.path.isabs(path):
        return path
    for directory, label, by_package in _roots() if roots is None else roots:
        if path == directory:
            return f"<{label}>"
        if not path.startswith(directory + os.sep):
            continue
        rel = path[len(directory) + 1 :]
        if not by_package:
            return f"<{label}>/{rel}"
        head, sep, tail = rel.partition(os.sep)
        head = PRESENTED_AS.get(head, head)
        return f"<{head}>/{tail}" if sep else f"<{head.removesuffix('.py')}>"
    return f"<{os.path.basename(path)}>"


def neutral_text(text: str, roots: list[tuple[str, str, bool]] | None = None) -> str:
    """A path as :func:`neutral_name` names it; in other text (``-L/usr/…/lib -lm``), each
    host directory replaced by its label."""
    roots = _roots() if roots is None else roots
    if os.path.isabs(text) and not any(c.isspace() for c in text):
        return neutral_name(text, roots)
    for directory, label, _ in roots:
        text = text.replace(directory, f"<{label}>")
    return text


def _renamed(
    code: types.CodeType,
    roots: list[tuple[str, str, bool]],
    done: dict[int, tuple[types.CodeType, types.CodeType]],
) -> types.CodeType:
    """``code`` with neutral file names, its nested code objects (inner functions, lambdas,
    comprehensions, class bodies) too; the same object when there is nothing to rename."""
    seen = done.get(id(code))
    if seen is not None:
        return seen[1]
    consts = tuple(
        _renamed(c, roots, done) if isinstance(c, types.CodeType) else c for c in code.co_consts
    )
    name = neutral_name(code.co_filename, roots)
    same_consts = all(a is b for a, b in zip(consts, code.co_consts, strict=True))
    new = (
        code
        if name == code.co_filename and same_consts
        else code.replace(co_filename=name, co_consts=consts)
    )
    done[id(code)] = (code, new)  # the old one kept alive: its id is not reused meanwhile
    return new


def rename_code() -> int:
    """Give every live function's code a neutral file name; returns how many were renamed.

    Functions are found through the collector (every function object is tracked), so methods,
    lambdas kept in tables, closures and decorated wrappers are all reached, whoever holds
    them. Frames that are running keep their code (only the zygote's own, which no worker
    runs)."""
    roots = _roots()
    done: dict[int, tuple[types.CodeType, types.CodeType]] = {}
    renamed = 0
    for obj in gc.get_objects():
        if type(obj) is not types.FunctionType:
            continue
        code = obj.__code__
        if not os.path.isabs(code.co_filename):  # renamed already, or never a file's
            continue
        new = _renamed(code, roots, done)
        if new is not code:
            obj.__code__ = new
            renamed += 1
    return renamed


def forget_caches() -> None:
    """Empty what keeps paths in the zygote once everything is loaded: the source lines of
    files seen in tracebacks, the import system's finders, functions' caches that hold one;
    and rename every other path reachable from a loaded module (module constants such as
    ``logging._srcfile`` or ``sysconfig``'s, specs' loader states, ``license``'s files,
    defaults such as ``platform.architecture``'s ``sys.executable``) as code is renamed.

    Walks everything the loaded modules reach (as a program could, through the collector),
    so it covers whatever is preloaded. ``sys.path`` and the environment are left to
    :func:`forget_process`, and CuPy's modules alone (a CUDA worker still imports and loads
    libraries after the fork)."""
    linecache.clearcache()
    sys.path_importer_cache.clear()
    with contextlib.suppress(AttributeError):
        sysconfig._CONFIG_VARS = None  # type: ignore[attr-defined]
    roots = _roots()
    needles = tuple(directory for directory, _, _ in roots)

    byte_needles = tuple(os.fsencode(n) for n in needles)

    def host(value: object) -> bool:
        if isinstance(value, bytes):  # multiprocessing keeps sys.executable as bytes
            return any(n in value for n in byte_needles)
        return isinstance(value, str) and any(n in value for n in needles)

    def neutral(value: Any) -> Any:
        if isinstance(value, bytes):
            return os.fsencode(neutral_text(os.fsdecode(value), roots))
        return neutral_text(value, roots)

    keep = {id(sys.path), id(os.environ), id(getattr(os.environ, "_data", None))}
    seen: set[int] = set(keep)
    queue: collections.deque[object] = collections.deque(sys.modules.values())
    while queue:
        obj = queue.popleft()
        if id(obj) in seen or isinstance(obj, str | bytes | int | float):
            continue
        seen.add(id(obj))
        if isinstance(obj, types.ModuleType) and obj.__name__.startswith(KEEP_PATHS_IN):
            continue
        if isinstance(obj, type):
            # through setattr, not the class's dict: the interpreter caches class lookups
            namespace = vars(obj)
            seen.add(id(namespace))
            for key, value in list(namespace.items()):
                if host(value):
                    with contextlib.suppress(AttributeError, TypeError):
                        setattr(obj, key, neutral(value))
            queue.extend(namespace.values())
            queue.extend(obj.__bases__)
            continue
        if isinstance(obj, dict):
            for key, value in list(obj.items()):
                if host(value):
                    obj[key] = neutral(value)
                if host(key):
                    obj[neutral(key)] = obj.pop(key)
        elif isinstance(obj, list):
            for i, value in enumerate(obj):
                if host(value):
                    obj[i] = neutral(value)
        elif isinstance(obj, types.FunctionType):
            defaults = obj.__defaults__
            if defaults and any(host(d) for d in defaults):
                obj.__defaults__ = tuple(neutral(d) if host(d) else d for d in defaults)
        elif type(obj).__name__ == "_NamespacePath":  # a namespace package's parent path
            last = getattr(obj, "_last_parent_path", None)
            if isinstance(last, tuple) and any(host(p) for p in last):
                renamed = tuple(neutral(p) if host(p) else p for p in last)
                obj._last_parent_path = renamed  # type: ignore[attr-defined]
        elif isinstance(obj, functools._lru_cache_wrapper):
            if _mentions(obj, host):
                obj.cache_clear()
            queue.append(obj.__wrapped__)
            continue
        queue.extend(gc.get_referents(obj))


def _mentions(obj: object, host: Callable[[object], bool], depth: int = 3) -> bool:
    """Whether a host path is among ``obj``'s referents, ``depth`` levels down."""
    level = [obj]
    for _ in range(depth):
        level = [r for o in level for r in gc.get_referents(o)]
        if any(host(r) for r in level):
            return True
    return False


def forget_process() -> None:
    """In a worker, before its jail: no environment but the locale (the process's, and the
    copy Python took at start-up), no import path, no interpreter location, no command line
    (nothing is imported after this)."""
    os.environ.clear()
    os.environ["LANG"] = "C.UTF-8"
    posix = sys.modules.get("posix")
    if posix is not None and isinstance(getattr(posix, "environ", None), dict):
        posix.environ.clear()
    sys.path[:] = []
    for name in (
        "executable", "_base_executable", "prefix", "exec_prefix", "base_prefix",
        "base_exec_prefix", "_stdlib_dir", "_home", "pycache_prefix",
    ):  # fmt: skip
        with contextlib.suppress(AttributeError, TypeError):
            setattr(sys, name, "" if name != "pycache_prefix" else None)
    sys.argv[:] = ["<program>"]
    with contextlib.suppress(AttributeError, TypeError):
        sys.orig_argv = ["python", "<program>"]  # type: ignore[misc]
