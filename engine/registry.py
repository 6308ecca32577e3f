"""The public names of the engine: ``torch.<name>`` functions and ``Tensor.<name>`` methods.

Two sources fill these tables: the op table's rows (``engine.ops``: each row declares the
names that record it, and for simple rows a dtype rule from which ``engine.functions`` makes
the function and ``engine.methods`` the methods), and hand-written implementations, which
register here next to their code: with :func:`implements` under the names their row declares,
or with :func:`public` / :func:`method` where no row declares them (argument parsing,
PyTorch's overloads, composites and functions outside the graph). ``engine.methods`` binds
:data:`METHODS` onto Tensor, ``engine/__init__`` exports :data:`FUNCTIONS` (its ``__all__``),
and tests/unit/test_registry.py checks that every declared name resolves.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from engine.pytorch_names import NAMES

F = TypeVar("F", bound=Callable[..., Any])

#: ``torch.<name>``: every public function, by name (aliases share one implementation).
FUNCTIONS: dict[str, Callable[..., Any]] = {}
#: ``Tensor.<name>``: hand-written methods (functions, or properties), bound by engine.methods.
METHODS: dict[str, Any] = {}
#: Functions and methods whose ``dim`` / ``keepdim`` PyTorch also accepts as NumPy's ``axis`` /
#: ``keepdims`` (``x.sum(axis=0)``, ``torch.max(x, axis=1)``, ``torch.cat(xs, axis=0)``).
AXIS_ALIASED: set[str] = set()
#: Hand-written functions that take PyTorch's ``out=`` (a row declares its own: ``Op.out``).
OUT: set[str] = set()


def _add(table: dict[str, Any], names: tuple[str, ...], fn: Any, kind: str) -> None:
    for name in names:
        if name in table and table[name] is not fn:
            raise RuntimeError(f"{kind} {name!r} is registered twice")
        table[name] = fn


def public(
    *names: str, method: bool | tuple[str, ...] = False, axis: bool = False, out: bool = False
) -> Callable[[F], F]:
    """Register ``torch.<name>`` for each name; ``method=True`` registers the same function as
    ``Tensor.<name>`` (its first argument is the tensor), a tuple registers other method names.
    ``axis=True``: also accept NumPy's ``axis=`` / ``keepdims=`` keywords; ``out=True``: the
    functions take PyTorch's ``out=`` (engine.out)."""

    def register(fn: F) -> F:
        _add(FUNCTIONS, names, fn, "function")
        methods = names if method is True else (method or ())
        _add(METHODS, methods, fn, "method")
        if axis:
            AXIS_ALIASED.update(names, methods)
        if out:
            OUT.update(names)
        return fn

    return register


def implements(op: Any, *names: str, method: bool = True, axis: bool = False) -> Callable[[F], F]:
    """Register the hand-written implementation of an op table row (``engine.ops``) under the
    public names the row declares: all of its ``torch`` names, or those given where the row is
    recorded by several functions (``where``, ``masked_fill``, ``tril`` ...); each is also
    ``Tensor.<name>`` where the row declares that method (``method=False``: the method is
    written apart, its arguments differ). A name the row does not declare is refused."""

    def register(fn: F) -> F:
        chosen = names or op.function
        undeclared = [n for n in chosen if n not in op.function and n not in op.method]
        if undeclared:
            raise RuntimeError(f"row {op.name!r} declares no name {undeclared}")
        _add(FUNCTIONS, tuple(n for n in chosen if n in op.function), fn, "function")
        if method:
            _add(METHODS, tuple(n for n in chosen if n in op.method), fn, "method")
        if axis:
            AXIS_ALIASED.update(chosen)
        return fn

    return register


def method(*names: str, axis: bool = False) -> Callable[[F], F]:
    """Register a hand-written ``Tensor.<name>`` (a function of ``self``, or a property)."""

    def register(fn: F) -> F:
        _add(METHODS, names, fn, "method")
        if axis:
            AXIS_ALIASED.update(names)
        return fn

    return register


class NotInPlaygroundError(AttributeError, NotImplementedError):
    """A name PyTorch has that the playground lacks: an AttributeError, so that ``hasattr`` and
    ``getattr(torch, name, default)`` probe as they do for any absent name, and a
    NotImplementedError, which is what it means (``except NotImplementedError`` catches it)."""


def missing(namespace: str, shown: str, name: str, obj: Any = None) -> AttributeError:
    """The error for ``<namespace>.<name>`` that the engine does not have: saying so where
    PyTorch has it (engine.pytorch_names), else Python's own AttributeError. ``shown`` is how
    Python names the object in its message (``module 'torch'``, ``'Tensor' object``)."""
    if not name.startswith("_") and name in NAMES.get(namespace, ()):
        prefix = "torch." if namespace == "Tensor" else ""
        return NotInPlaygroundError(
            f"{prefix}{namespace}.{name} is part of PyTorch, but the playground does not have "
            "it yet",
            name=name,
        )
    return AttributeError(f"{shown} has no attribute '{name}'", name=name, obj=obj)
