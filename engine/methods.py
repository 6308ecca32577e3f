"""Tensor's methods from the registry: the function API seen from a tensor (``x.exp()``).

Bound once, at import, onto the class: the methods the op table's rows declare, made from
their dtype rule (``Tensor.exp``, ``Tensor.exp_`` ...), and the hand-written ones registered
with ``@method`` / ``@public(..., method=True)`` in engine.functions, engine.factories and
engine.autograd. A name the class defines itself (tensor.py: attributes, conversions, the
operators) may not also be registered: that would be two implementations of one method.
"""

from __future__ import annotations

from typing import Any

from engine import autograd as _autograd  # noqa: F401 - registers Tensor.backward
from engine import library as _library  # noqa: F401 - registers its functions and methods
from engine import ops as O
from engine.functions import dim_aliases, from_row
from engine.registry import AXIS_ALIASED, FUNCTIONS, METHODS
from engine.tensor import Tensor


def _inplace(name: str, fn: Any) -> Any:
    """``x.exp_()``: the function's result written back into x (recorded as PyTorch records
    it: ExpBackward0 on x's history)."""

    def inplace(self: Tensor) -> Tensor:
        return self._inplace_binary(lambda a, _: fn(a), None)

    inplace.__name__ = inplace.__qualname__ = name
    return inplace


def bind() -> dict[str, Any]:
    """Every method of the registry and the table, as bound onto Tensor (by name)."""
    own = set(vars(Tensor))
    clash = own & set(METHODS)
    if clash:
        raise RuntimeError(f"Tensor methods defined twice (class and registry): {sorted(clash)}")
    table = dict(METHODS)
    for op in O.OPS.values():
        if not op.dtype:
            continue
        for name in op.method:
            if name not in own and name not in table:
                table[name] = from_row(op, name, as_method=True)
        for name in op.inplace:
            if name not in table:
                table[name] = _inplace(name, FUNCTIONS[name[:-1]])
    for name, impl in table.items():
        if name in AXIS_ALIASED:
            impl = dim_aliases(impl)
        setattr(Tensor, name, impl)
    return table


BOUND = bind()
