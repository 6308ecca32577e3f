"""Names a program knows without importing them: the maths a learner types first.

``tanh(w*x + b)``, ``exp(-x)*sin(x)``, ``relu(x) + sigmoid(y)``, ``torch.tanh(...)`` and
``F.relu(...)`` run as they are: the functions the op table's rows name ``bare`` (``Op.bare``:
``tanh``, ``sigmoid``, ``relu`` ...) and ``torch``, ``nn``, ``F`` (``torch.nn.functional``)
are in the program's builtins, so a bare expression with bindings needs no import line, and any
name the program defines or imports itself (``from math import exp``, ``def relu(v): ...``)
shadows them as Python's own scoping does. Python's own builtins (``abs``, ``sum``, ``max``,
``min``, ``pow``, ``round``) stay Python's: ``abs(t)`` and ``max(a, b)`` already work on
tensors through the operators they call.

The page offers a slider for every other name of an expression: its list of these names
(KNOWN_NAMES) is generated from this one (server/page_tables.py).
"""

from __future__ import annotations

import builtins
import functools
from collections.abc import Callable, Mapping
from types import ModuleType
from typing import Any

from engine.ops import OPS

_BARE = [(name, op) for op in OPS.values() for name in op.bare]
#: torch functions known by their bare names (engine.<name>): the rows' ``bare`` names
TORCH_FUNCTIONS: tuple[str, ...] = tuple(name for name, op in _BARE if name in op.function)
#: torch.nn.functional activations known by their bare names (``bare`` names only there)
FUNCTIONAL: tuple[str, ...] = tuple(name for name, op in _BARE if name not in op.function)
#: modules known without an import: torch, torch.nn, torch.nn.functional
MODULES: tuple[str, ...] = ("torch", "nn", "F")
#: every bare name this module adds
KNOWN: tuple[str, ...] = (*MODULES, *TORCH_FUNCTIONS, *FUNCTIONAL)


def _accepting_numbers(fn: Callable[..., Any], tensor_type: type, to_tensor: Any) -> Any:
    """``fn`` taking a plain number too (``tanh(2)``): PyTorch's functions want a tensor, but a
    learner's expression may hold a constant."""

    @functools.wraps(fn)
    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        if (
            not isinstance(x, tensor_type)
            and isinstance(x, int | float)
            and not isinstance(x, bool)
        ):
            x = to_tensor(float(x))
        return fn(x, *args, **kwargs)

    return call


def known_names(modules: Mapping[str, ModuleType]) -> dict[str, Any]:
    """The names to add to a program's builtins (never one of Python's own)."""
    torch = modules["torch"]
    functional = modules["torch.nn.functional"]
    names: dict[str, Any] = {"torch": torch, "nn": modules["torch.nn"], "F": functional}
    for name in TORCH_FUNCTIONS:
        names[name] = _accepting_numbers(getattr(torch, name), torch.Tensor, torch.tensor)
    for name in FUNCTIONAL:
        names[name] = _accepting_numbers(getattr(functional, name), torch.Tensor, torch.tensor)
    clash = set(names) & set(vars(builtins))
    assert not clash, f"would replace Python's own builtins: {clash}"
    return names
