"""The function API's comparisons and predicates (``torch.eq``, ``isclose``, ``logical_and``
...): outside the graph, as in PyTorch (their results do not require grad)."""

from __future__ import annotations

from typing import Any

import numpy as np

from engine import ops as O
from engine.backend import array_module, to_numpy
from engine.factories import tensor
from engine.registry import public
from engine.tensor import Tensor, binary


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else tensor(x)


@public("allclose", method=True)
def allclose(a: Tensor, b: Tensor, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
    return bool(np.allclose(to_numpy(a._data), to_numpy(b._data), rtol=rtol, atol=atol))


@public("equal", method=True)
def equal(a: Tensor, b: Tensor) -> bool:
    return a.shape == b.shape and bool((a._data == b._data).all())


@public("eq", method=True)
def eq(a: Any, b: Any) -> Tensor:
    return _as_tensor(a) == b


@public("ne", "not_equal", method=True)
def ne(a: Any, b: Any) -> Tensor:
    return _as_tensor(a) != b


@public("lt", "less", method=True)
def lt(a: Any, b: Any) -> Tensor:
    return _as_tensor(a) < b


@public("le", "less_equal", method=True)
def le(a: Any, b: Any) -> Tensor:
    return _as_tensor(a) <= b


@public("gt", "greater", method=True)
def gt(a: Any, b: Any) -> Tensor:
    return _as_tensor(a) > b


@public("ge", "greater_equal", method=True)
def ge(a: Any, b: Any) -> Tensor:
    return _as_tensor(a) >= b


def _predicate(fn: Any, name: str) -> Any:
    def predicate(a: Tensor) -> Tensor:
        if not isinstance(a, Tensor):
            raise TypeError(
                f"{name}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}"
            )
        return Tensor._wrap(fn(a._data))

    predicate.__name__ = predicate.__qualname__ = name
    return public(name, method=True)(predicate)


isfinite = _predicate(np.isfinite, "isfinite")


isinf = _predicate(np.isinf, "isinf")


isnan = _predicate(np.isnan, "isnan")


logical_not = _predicate(np.logical_not, "logical_not")


def _logical(fn: Any, name: str) -> Any:
    def logical(a: Tensor, b: Tensor) -> Tensor:
        a = _as_tensor(a)
        b = _as_tensor(b)
        if a._data.__class__ is not b._data.__class__:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two devices"
            )
        try:
            return Tensor._wrap(fn(a._data, b._data))
        except ValueError:
            # PyTorch's broadcast message, through the engine's arithmetic
            binary(O.ADD, a.float(), b.float())
            raise

    logical.__name__ = logical.__qualname__ = name
    return public(name, method=True)(logical)


logical_and = _logical(np.logical_and, "logical_and")


logical_or = _logical(np.logical_or, "logical_or")


logical_xor = _logical(np.logical_xor, "logical_xor")


@public("isclose", method=True)
def isclose(
    a: Tensor, b: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False
) -> Tensor:
    xp = array_module(a._data)
    return Tensor._wrap(xp.isclose(a._data, b._data, rtol=rtol, atol=atol, equal_nan=equal_nan))
