"""The builtin functions a program can call (print, range, len, sum ...), each bounded."""

from __future__ import annotations

import ast
import builtins as _py
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from server.sandbox.errors import UserError
from server.sandbox.formatting import safe_format

if TYPE_CHECKING:
    from server.sandbox.interpreter import Interpreter

_MISSING = object()
_ADD = ast.Add
_POW = ast.Pow


def make_builtins(interp: Interpreter) -> dict[str, Any]:
    """Builtins bound to one interpreter (its budgets and its output)."""
    b = interp.b

    def print(*args: Any, sep: Any = " ", end: Any = "\n", flush: bool = False) -> None:
        if sep is None:
            sep = " "
        if end is None:
            end = "\n"
        if not isinstance(sep, str):
            raise UserError("TypeError", f"sep must be None or a string, not {type(sep).__name__}")
        if not isinstance(end, str):
            raise UserError("TypeError", f"end must be None or a string, not {type(end).__name__}")
        for i, arg in enumerate(args):
            if i:
                interp.write(sep)
            interp.write(interp.repr.str(arg))
        interp.write(end)

    def str_(obj: Any = "") -> str:
        return interp.repr.str(obj)

    def repr_(obj: Any) -> str:
        return repr(obj) if isinstance(obj, str) else interp.repr.repr(obj)

    def format_(value: Any, spec: str = "") -> str:
        return safe_format(value, spec, b.max_str_len, interp.repr.str)

    def list_(iterable: Any = ()) -> list[Any]:
        return interp.materialize(iterable)

    def tuple_(iterable: Any = ()) -> tuple[Any, ...]:
        return tuple(interp.materialize(iterable))

    def set_(iterable: Any = ()) -> set[Any]:
        return set(interp.materialize(iterable))

    def dict_(*args: Any, **kwargs: Any) -> dict[Any, Any]:
        if len(args) > 1:
            raise UserError("TypeError", f"dict expected at most 1 argument, got {len(args)}")
        result: dict[Any, Any] = {}
        if args:
            source = args[0]
            pairs = source.items() if isinstance(source, dict) else interp.materialize(source)
            for pair in pairs:
                k, v = pair
                result[k] = v
        result.update(kwargs)
        interp.check_len(len(result), "dict")
        return result

    def sum_(iterable: Any, start: Any = 0) -> Any:
        total = start
        for item in interp.iterate(iterable):
            total = interp.binop(_ADD, total, item)
        return total

    def _extreme(name: str, pick: Callable[..., Any], args: tuple[Any, ...], default: Any) -> Any:
        if not args:
            raise UserError("TypeError", f"{name} expected at least 1 argument, got 0")
        items = interp.materialize(args[0]) if len(args) == 1 else list(args)
        if not items:
            if default is not _MISSING:
                return default
            raise UserError("ValueError", f"{name}() iterable argument is empty")
        return pick(items)

    def min_(*args: Any, default: Any = _MISSING) -> Any:
        return _extreme("min", _py.min, args, default)

    def max_(*args: Any, default: Any = _MISSING) -> Any:
        return _extreme("max", _py.max, args, default)

    def sorted_(iterable: Any, *, reverse: bool = False) -> list[Any]:
        return _py.sorted(interp.materialize(iterable), reverse=reverse)

    def any_(iterable: Any) -> bool:
        return _py.any(interp.truth(x) for x in interp.iterate(iterable))

    def all_(iterable: Any) -> bool:
        return _py.all(interp.truth(x) for x in interp.iterate(iterable))

    def pow_(base: Any, exp: Any) -> Any:
        return interp.binop(_POW, base, exp)

    def enumerate_(iterable: Any, start: int = 0) -> Any:
        return _py.enumerate(interp.iterate(iterable), start)

    def zip_(*iterables: Any, strict: bool = False) -> Any:
        return _py.zip(*(interp.iterate(it) for it in iterables), strict=strict)

    def reversed_(seq: Any) -> Any:
        return _py.reversed(
            seq if isinstance(seq, list | tuple | range | str) else interp.materialize(seq)
        )

    def isinstance_(obj: Any, kinds: Any) -> bool:
        allowed = (int, float, bool, str, list, tuple, dict, set, range)
        kinds_t = kinds if isinstance(kinds, tuple) else (kinds,)
        for k in kinds_t:
            if k not in allowed and not _is_engine_class(k):
                raise UserError("TypeError", "isinstance() arg 2 must be a type or tuple of types")
        return _py.isinstance(obj, kinds_t)

    def int_(x: Any = 0, *base: int) -> int:
        if isinstance(x, str) and len(x) > 1000:
            raise UserError("ValueError", "int() argument too long for the playground")
        return _py.int(x, *base)

    return {
        "print": print,
        "range": _py.range,
        "len": _py.len,
        "abs": _py.abs,
        "round": _py.round,
        "min": min_,
        "max": max_,
        "sum": sum_,
        "float": _py.float,
        "int": int_,
        "bool": _py.bool,
        "str": str_,
        "repr": repr_,
        "format": format_,
        "list": list_,
        "tuple": tuple_,
        "set": set_,
        "dict": dict_,
        "enumerate": enumerate_,
        "zip": zip_,
        "sorted": sorted_,
        "reversed": reversed_,
        "any": any_,
        "all": all_,
        "pow": pow_,
        "divmod": _py.divmod,
        "isinstance": isinstance_,
        "True": True,
        "False": False,
        "None": None,
    }


def _is_engine_class(k: Any) -> bool:
    return isinstance(k, type) and (k.__module__ or "").split(".")[0] == "engine"
