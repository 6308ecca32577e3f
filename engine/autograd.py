"""``torch.autograd``: backward and grad, custom Functions and grad-mode managers.

The loop itself is :func:`engine.core.run_backward`; here the roots are seeded, checked as
PyTorch checks them, and a backward with ``create_graph=True`` is given the tensor rules of
:mod:`engine.higher` (with grad mode on, so the gradients it computes are recorded).
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from engine import function
from engine.backend import array_module
from engine.core import (
    ANOMALY,
    Node,
    enable_grad,
    is_grad_enabled,
    no_grad,
    run_backward,
    seed_grads,
)
from engine.function import Function, FunctionCtx, once_differentiable
from engine.functions import inference_mode, set_grad_enabled
from engine.higher import GRAPHED
from engine.registry import method
from engine.tensor import Tensor

__all__ = [
    "Function",
    "FunctionCtx",
    "Node",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "function",
    "grad",
    "inference_mode",
    "is_grad_enabled",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
    "Variable",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
]


def backward(
    tensors: Tensor | Sequence[Tensor],
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """torch.autograd.backward: accumulate d(tensors)/d(leaf) into every leaf's ``.grad``."""
    if grad_tensors is None and tensors.__class__ is Tensor and not create_graph:
        # The common case, ``loss.backward()``: a scalar float root seeded with 1.
        d = tensors._data  # type: ignore[union-attr]
        if tensors.requires_grad and d.size == 1 and d.dtype.kind == "f":  # type: ignore[union-attr]
            xp = np if d.__class__ is np.ndarray else array_module(d)
            run_backward((tensors,), (xp.ones(d.shape, d.dtype),), bool(retain_graph))
            return
    roots = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    seeds = _seeds(roots, grad_tensors, create_graph)
    if create_graph:
        with enable_grad():
            run_backward(roots, seeds, True, graphed=GRAPHED)
        return
    run_backward(roots, seeds, bool(retain_graph))


@method("backward")
def _tensor_backward(
    self: Tensor,
    gradient: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    inputs: Any = None,
) -> None:
    """``loss.backward()``: accumulate d(self)/d(leaf) into every leaf's ``.grad``."""
    backward(self, gradient, retain_graph, create_graph, inputs)


def _seeds(roots: list[Tensor], given: Any, create_graph: bool) -> list[Any]:
    """The seed gradients of a backward pass from its roots: ``given`` (one per root; a tensor
    or None stands for all) checked against them; for a recorded backward, as tensors."""
    if given is None or isinstance(given, Tensor):
        given = [given] * len(roots)
    arrays = seed_grads(roots, list(given))
    if not create_graph:
        return arrays
    with enable_grad():
        return _seed_tensors(list(given), arrays)


def _seed_tensors(given: list[Any], arrays: list[Any]) -> list[Tensor]:
    """Seeds for a recorded backward: the caller's tensors (they may require grad), else the
    checked arrays as constants."""
    seeds = []
    for g, arr in zip(given, arrays, strict=True):
        if isinstance(g, Tensor):
            seeds.append(g if g._data.dtype == arr.dtype else g.to(Tensor._wrap(arr).dtype))
        else:
            seeds.append(Tensor._wrap(arr))
    return seeds


def grad(
    outputs: Tensor | Sequence[Tensor],
    inputs: Tensor | Sequence[Tensor],
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    allow_unused: bool | None = None,
    materialize_grads: bool = False,
) -> tuple[Tensor | None, ...]:
    """torch.autograd.grad: gradients of outputs w.r.t. inputs, leaving ``.grad`` untouched."""
    outs = [outputs] if isinstance(outputs, Tensor) else list(outputs)
    ins = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    for t in ins:
        if not t.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad")
    seeds = _seeds(outs, grad_outputs, create_graph)
    if create_graph:
        with enable_grad():
            found = run_backward(outs, seeds, True, ins, accumulate=False, graphed=GRAPHED)
    else:
        found = run_backward(outs, seeds, bool(retain_graph), ins, accumulate=False)
    result: list[Tensor | None] = []
    for i, t in enumerate(ins):
        g = found.get(id(t))
        if g is None:
            if materialize_grads:
                result.append(Tensor._wrap(array_module(t._data).zeros_like(t._data)))
                continue
            if not allow_unused:
                raise RuntimeError(
                    f"The differentiated Tensor at index {i} appears to not have been used in "
                    "the graph. Set allow_unused=True if this is the desired behavior."
                )
            result.append(None)
        elif isinstance(g, Tensor):  # create_graph: a recorded gradient
            result.append(g)
        else:
            result.append(
                Tensor._wrap(
                    np.asarray(g) if g.__class__ is not np.ndarray and array_module(g) is np else g
                )
            )
    return tuple(result)


class _VariableMeta(type):
    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor)


class Variable(metaclass=_VariableMeta):
    """torch.autograd.Variable: since PyTorch 0.4 every Tensor is one. ``Variable(t,
    requires_grad=True)`` gives a new leaf sharing t's data, as PyTorch's does."""

    def __new__(  # type: ignore[misc]
        cls, data: Any = None, requires_grad: bool = False, volatile: bool = False
    ) -> Tensor:
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with torch.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            data = Tensor._wrap(np.zeros((0,), dtype=np.float32))
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


class set_detect_anomaly:
    """Anomaly mode on or off: backward then raises, naming the node, where a gradient it
    computes is NaN. A call sets it; used as a context manager it is undone on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = ANOMALY.enabled
        self.prev_check_nan = ANOMALY.check_nan
        ANOMALY.enabled = bool(mode)
        ANOMALY.check_nan = bool(check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *exc: object) -> None:
        ANOMALY.enabled = self.prev
        ANOMALY.check_nan = self.prev_check_nan


class detect_anomaly:
    """``with torch.autograd.detect_anomaly():``: anomaly mode inside the block."""

    def __init__(self, check_nan: bool = True) -> None:
        self.prev = ANOMALY.enabled
        self.check_nan = check_nan
        self.prev_check_nan = ANOMALY.check_nan
        warnings.warn(
            "Anomaly Detection has been enabled. This mode will increase the runtime and should "
            "only be enabled for debugging.",
            UserWarning,
            stacklevel=2,
        )

    def __enter__(self) -> None:
        ANOMALY.enabled = True
        ANOMALY.check_nan = self.check_nan

    def __exit__(self, *exc: object) -> None:
        ANOMALY.enabled = self.prev
        ANOMALY.check_nan = self.prev_check_nan

    def __call__(self, fn: Any) -> Any:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        return wrapped


def is_anomaly_enabled() -> bool:
    return ANOMALY.enabled


def is_anomaly_check_nan_enabled() -> bool:
    return ANOMALY.check_nan
