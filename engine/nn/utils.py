"""``torch.nn.utils``: clipping gradients, parameters to one vector and back."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from engine.core import no_grad
from engine.factories import tensor
from engine.shapes import cat
from engine.tensor import Tensor

__all__ = [
    "clip_grad_norm",
    "clip_grad_norm_",
    "clip_grad_value_",
    "get_total_norm",
    "parameters_to_vector",
    "vector_to_parameters",
]


def _tensors(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def get_total_norm(
    tensors: Tensor | Iterable[Tensor],
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The norm of the tensors' norms (PyTorch's total gradient norm)."""
    items = _tensors(tensors)
    if not items:
        return tensor(0.0)
    with no_grad():
        norms = [_vector_norm(t._data, norm_type) for t in items]
        data = np.asarray(norms, dtype=items[0]._data.dtype)
        total = _vector_norm(data, norm_type)
    if error_if_nonfinite and not np.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {float(norm_type)} for gradients from `parameters` is "
            "non-finite, so it cannot be clipped. To disable this error and scale the "
            "gradients by the non-finite norm anyway, set `error_if_nonfinite=False`"
        )
    return Tensor._wrap(np.asarray(total, dtype=items[0]._data.dtype))


def _vector_norm(data: Any, norm_type: float) -> Any:
    a = np.abs(np.asarray(data, dtype=np.float64)).reshape(-1)
    dtype = np.asarray(data).dtype
    if norm_type == float("inf"):
        value = a.max() if a.size else 0.0
    elif norm_type == 0:
        value = float(np.count_nonzero(a))
    else:
        value = (a**norm_type).sum() ** (1.0 / norm_type)
    return np.asarray(value).astype(dtype if dtype.kind == "f" else np.float32)


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale the gradients so that their total norm is at most ``max_norm``; the total norm
    (before clipping) is returned, as in PyTorch."""
    params = _tensors(parameters)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, float(norm_type), error_if_nonfinite)
    if not grads:
        return total
    dtype = total._data.dtype
    coef = dtype.type(max_norm) / (total._data + dtype.type(1e-6))
    coef = np.minimum(coef, dtype.type(1.0)).astype(dtype)
    with no_grad():
        for g in grads:
            g._data *= coef.astype(g._data.dtype)
            g._bump()
    return total


def clip_grad_norm(*args: Any, **kwargs: Any) -> Tensor:
    """The deprecated name of :func:`clip_grad_norm_`, with PyTorch's warning."""
    import warnings

    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of "
        "`torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(*args, **kwargs)


def clip_grad_value_(
    parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None
) -> None:
    """Clamp every gradient into ``[-clip_value, clip_value]`` in place."""
    value = float(clip_value)
    with no_grad():
        for p in _tensors(parameters):
            if p.grad is not None:
                np.clip(p.grad._data, -value, value, out=p.grad._data)
                p.grad._bump()


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """The parameters flattened into one vector (a new tensor, recorded like any other)."""
    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy slices of ``vec`` into the parameters' data, in order."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[offset : offset + n].view_as(p).data
        offset += n
