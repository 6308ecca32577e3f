"""Safe string conversion and formatting: Python's output, with sizes bounded.

``str()`` of a container is rebuilt here so that a huge or self-referencing structure cannot
run unbounded C code; ``format`` specs are checked before any padding is allocated; and
``str.format`` refuses attribute and index fields (``"{0.__class__}"``).
"""

from __future__ import annotations

import builtins
import re
import string
import types
from collections.abc import Callable
from typing import Any

from server.sandbox.errors import BudgetError, UserError

_DIGITS = re.compile(r"\d+")


def check_spec(spec: str, max_len: int) -> None:
    """Refuse a format spec whose width or precision would allocate more than max_len."""
    for digits in _DIGITS.findall(spec):
        if len(digits) > 9 or int(digits) > max_len:
            raise BudgetError(
                "max_str_len", f"format width or precision {digits[:12]} is too large"
            )


def safe_format(value: Any, spec: str, max_len: int, to_str: Callable[[Any], str]) -> str:
    """``format(value, spec)`` with the spec checked first; containers go through to_str."""
    check_spec(spec, max_len)
    if spec == "" and isinstance(value, list | tuple | dict | set | frozenset):
        return to_str(value)
    return format(value, spec)


def public_repr(value: Any) -> str | None:
    """How a function, class or engine object prints in the playground: PyTorch-style names,
    never the host's module paths (``<function _unary.<locals>.fn at 0x...>``). None when the
    value's own repr is already what a learner should see."""
    if isinstance(value, type):
        module = value.__module__ or ""
        if module.startswith("engine"):
            prefix = "torch.nn" if module.startswith("engine.nn") else "torch"
            name = "device" if value.__name__ == "Device" else value.__name__
            return f"<class '{prefix}.{name}'>"
        return f"<class '{value.__name__}'>"
    if callable(value) and isinstance(
        value, types.FunctionType | types.BuiltinFunctionType | types.MethodType
    ):
        return f"<built-in function {getattr(value, '__name__', 'function')}>"
    text = builtins.repr(value)
    if text.startswith("<engine.") or text.startswith("<server."):
        return f"<torch.{type(value).__name__} object>"
    return None


class Repr:
    """Python's str/repr of values, rebuilt for containers with an element and size bound."""

    def __init__(self, max_len: int, max_items: int) -> None:
        self.max_len = max_len
        self.max_items = max_items

    def str(self, value: Any) -> builtins.str:
        """Python's str(): containers show their items' repr; other values their own str
        (``print(x.device)`` shows ``cpu``, not ``device(type='cpu')``)."""
        if isinstance(value, builtins.str):
            return value
        kind = type(value)
        if (
            kind is list
            or kind is tuple
            or kind is set
            or kind is frozenset
            or isinstance(value, dict)
        ):
            return self.repr(value)
        text = public_repr(value) or builtins.str(value)
        if len(text) > self.max_len:
            raise BudgetError(
                "max_str_len", f"string too long: more than {self.max_len} characters"
            )
        return text

    def repr(self, value: Any) -> builtins.str:
        parts: list[builtins.str] = []
        self._items = 0
        self._size = 0
        self._emit(value, parts, set())
        return "".join(parts)

    def _add(self, parts: list[builtins.str], text: builtins.str) -> None:
        self._size += len(text)
        if self._size > self.max_len:
            raise BudgetError(
                "max_str_len", f"string too long: more than {self.max_len} characters"
            )
        parts.append(text)

    def _emit(self, value: Any, parts: list[builtins.str], active: set[int]) -> None:
        self._items += 1
        if self._items > self.max_items:
            raise BudgetError(
                "max_list_len", f"value too large to print: more than {self.max_items} items"
            )
        kind = type(value)
        if (
            kind is list
            or kind is tuple
            or kind is set
            or kind is frozenset
            or isinstance(value, dict)
        ):
            if id(value) in active:
                self._add(
                    parts,
                    "[...]" if kind is list else "{...}" if isinstance(value, dict) else "(...)",
                )
                return
            active.add(id(value))
            try:
                self._emit_container(value, parts, active)
            finally:
                active.discard(id(value))
            return
        self._add(parts, public_repr(value) or repr(value))

    def _emit_container(self, value: Any, parts: list[builtins.str], active: set[int]) -> None:
        kind = type(value)
        if isinstance(value, dict):
            if kind is not dict and not value:  # OrderedDict(): an empty state_dict()
                self._add(parts, f"{kind.__name__}()")
                return
            if kind is not dict:
                self._add(parts, f"{kind.__name__}(")
            self._add(parts, "{")
            for i, (k, v) in enumerate(value.items()):
                if i:
                    self._add(parts, ", ")
                self._emit(k, parts, active)
                self._add(parts, ": ")
                self._emit(v, parts, active)
            self._add(parts, "}")
            if kind is not dict:
                self._add(parts, ")")
            return
        if kind is set or kind is frozenset:
            if not value:
                self._add(parts, "set()" if kind is set else "frozenset()")
                return
            open_, close = ("{", "}") if kind is set else ("frozenset({", "})")
        elif kind is list:
            open_, close = "[", "]"
        else:
            open_, close = "(", ",)" if len(value) == 1 else ")"
        self._add(parts, open_)
        for i, item in enumerate(value):
            if i:
                self._add(parts, ", ")
            self._emit(item, parts, active)
        self._add(parts, close)


class SafeFormatter(string.Formatter):
    """``str.format`` without attribute or index lookups in fields."""

    def __init__(self, max_len: int, to_str: Callable[[Any], str]) -> None:
        self.max_len = max_len
        self.to_str = to_str

    def get_field(self, field_name: str, args: Any, kwargs: Any) -> Any:
        if "." in field_name or "[" in field_name:
            raise UserError(
                "ValueError",
                f"format field {field_name!r}: attribute and index lookups are not supported in the playground",
            )
        return super().get_field(field_name, args, kwargs)

    def format_field(self, value: Any, format_spec: str) -> str:
        return safe_format(value, format_spec, self.max_len, self.to_str)

    def convert_field(self, value: Any, conversion: str | None) -> Any:
        if conversion == "r":
            return self.to_str(value) if isinstance(value, str) is False else repr(value)
        if conversion == "s":
            return self.to_str(value)
        if conversion == "a":
            return ascii(value)
        return value
