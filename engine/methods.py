"""Tensor's methods from the registry: the function API seen from a tensor (``x.exp()``).

Bound once, at import, onto the class: the methods the op table's rows declare, made from
their dtype rule (``Tensor.exp``), every in-place method a row declares (``Tensor.exp_``,
``Tensor.add_``: the function written back), and the hand-written ones registered
with ``@method`` / ``@public(..., method=True)`` in engine.functions, engine.factories and
engine.autograd. A name the class defines itself (tensor.py: attributes, conversions, the
operators) may not also be registered: that would be two implementations of one method.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import autograd as _autograd  # noqa: F401 - registers Tensor.backward
from engine import extras as _extras  # noqa: F401 - registers its functions and methods
from engine import library as _library  # noqa: F401 - registers its functions and methods
from engine import ops as O
from engine.functions import dim_aliases, from_row
from engine.pytorch_names import NAMES
from engine.registry import AXIS_ALIASED, FUNCTIONS, METHODS
from engine.tensor import Tensor


def _inplace(name: str, fn: Any, update: Any = None) -> Any:
    """``x.<name>_(...)``: the function's result written back into x (recorded as PyTorch
    records it: ``x.exp_()`` is ExpBackward0 on x's history). ``update``: the row's NumPy ufunc,
    for the unrecorded update in place (``p.add_(d)`` under no_grad, see Tensor._inplace_fast)."""

    def inplace(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        other = args[0] if args else None
        if (
            update is not None
            and len(args) == 1
            and not kwargs
            and self._inplace_fast(update, other)
        ):
            return self
        return self._inplace_binary(lambda a, _: fn(a, *args, **kwargs), other)

    inplace.__name__ = inplace.__qualname__ = name
    return inplace


#: PyTorch's in-place methods that are not "the function's result written back": they change
#: the shape or the storage (the others, ``x.<name>_(...)`` for each ``x.<name>`` the engine
#: has, are made here from PyTorch's own list, engine.pytorch_names)
_NOT_WRITTEN_BACK = frozenset(
    {"swapaxes_", "swapdims_", "t_", "transpose_", "squeeze_", "unsqueeze_", "resize_",
     "resize_as_", "set_", "as_strided_", "detach_", "requires_grad_", "share_memory_",
     "apply_", "map_", "map2_", "copy_", "zero_", "fill_", "data_"}
)  # fmt: skip

#: the rows whose in-place methods NumPy can do in place when nothing is recorded
_UPDATES = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def bind() -> dict[str, Any]:
    """Every method of the registry and the table, as bound onto Tensor (by name)."""
    own = set(vars(Tensor))
    clash = own & set(METHODS)
    if clash:
        raise RuntimeError(f"Tensor methods defined twice (class and registry): {sorted(clash)}")
    table = dict(METHODS)
    for op in O.OPS.values():
        for name in op.method if op.dtype else ():
            if name not in own and name not in table:
                table[name] = from_row(op, name, as_method=True)
        for name in op.inplace:
            if name in table:
                raise RuntimeError(f"in-place method {name!r} is made from the table")
            base = FUNCTIONS.get(name[:-1]) or table[name[:-1]]
            table[name] = _inplace(name, base, _UPDATES.get(op.name))
    for name in sorted(NAMES["Tensor"] - own - set(table) - _NOT_WRITTEN_BACK):
        base = name[:-1]
        if name.endswith("_") and not name.startswith("_") and (base in table or base in own):
            table[name] = _inplace(name, FUNCTIONS.get(base) or getattr(Tensor, base, None)
                                   or table[base])  # fmt: skip
    for name, impl in table.items():
        if name in AXIS_ALIASED:
            impl = dim_aliases(impl)
        setattr(Tensor, name, impl)
    return table


BOUND = bind()
