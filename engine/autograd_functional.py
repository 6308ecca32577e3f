"""``torch.autograd.functional``: Jacobians, Hessians and their products with vectors, as
PyTorch 2.13 computes and shapes them (tuple inputs and outputs included).

Everything here is made of :func:`engine.autograd.grad` calls (one backward per output
element for a Jacobian; a backward through a recorded backward, ``create_graph=True``, for
second derivatives), so it carries no derivative rule of its own. ``vectorize`` and the
strategies are accepted and change nothing: the rows are computed one by one. ``hvp`` is
computed as ``vhp`` (vᵀH = (Hv)ᵀ: the Hessian of a twice continuously differentiable
function is symmetric), where PyTorch uses the double-backward trick; the two agree to
rounding.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from engine.autograd import grad
from engine.core import enable_grad
from engine.shapes import stack
from engine.tensor import Tensor

__all__ = ["hessian", "hvp", "jacobian", "jvp", "vhp", "vjp"]


def _as_tuple(value: Any, arg: str, fn: str) -> tuple[bool, tuple[Tensor, ...]]:
    """(was it a tuple, the tensors as a tuple), with PyTorch's error for anything else."""
    is_tuple = isinstance(value, tuple)
    values = value if is_tuple else (value,)
    for i, v in enumerate(values):
        if not isinstance(v, Tensor):
            if is_tuple:
                raise TypeError(
                    f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but "
                    f"the value at index {i} has type {type(v)}."
                )
            raise TypeError(
                f"The {arg} given to {fn} must be either a Tensor or a tuple of Tensors but the "
                f"given {arg} has type {type(v)}."
            )
    return is_tuple, values


def _prepare(inputs: tuple[Tensor, ...], create_graph: bool) -> tuple[Tensor, ...]:
    """The inputs the function is called with: new leaves that require grad; with
    ``create_graph``, inputs that already require grad are kept (so the result can be
    differentiated with respect to what they came from), as PyTorch's ``view_as`` keeps them."""
    out = []
    for t in inputs:
        if create_graph and t.requires_grad:
            out.append(t.view_as(t))
        else:
            out.append(t.detach().requires_grad_(True))
    return tuple(out)


def _finish(values: tuple[Any, ...], create_graph: bool) -> tuple[Any, ...]:
    """Results leave the graph unless a graph was asked for (nested tuples too)."""
    if create_graph:
        return values
    return tuple(
        v.detach() if isinstance(v, Tensor) else _finish(v, False) if isinstance(v, tuple) else v
        for v in values
    )


def _zeros(like: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros(like.shape, dtype=like._data.dtype))


def _unused(strict: bool, output: int | None, i: int) -> None:
    if strict:
        which = "The output" if output is None else f"Output {output}"
        raise RuntimeError(
            f"{which} of the user-provided function is independent of input {i}. This is not "
            "allowed in strict mode."
        )


def _grads(
    output: Tensor,
    inputs: tuple[Tensor, ...],
    seed: Tensor,
    create_graph: bool,
    strict: bool,
    index: int | None = None,
) -> list[Tensor]:
    """d(output · seed)/d(input) for each input, zeros for an input the output does not use."""
    if not output.requires_grad:
        for i in range(len(inputs)):
            _unused(strict, index, i)
        return [_zeros(t) for t in inputs]
    found = grad(
        output, inputs, seed, retain_graph=True, create_graph=create_graph, allow_unused=True
    )
    result = []
    for i, (g, t) in enumerate(zip(found, inputs, strict=True)):
        if g is None:
            _unused(strict, index, i)
            result.append(_zeros(t))
        else:
            result.append(g)
    return result


def _call(func: Callable[..., Any], inputs: tuple[Tensor, ...], fn: str) -> tuple[bool, Any]:
    with enable_grad():
        outputs = func(*inputs)
    return _as_tuple(outputs, "outputs of the user-provided function", fn)


def jacobian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    strategy: str = "reverse-mode",
) -> Any:
    """The Jacobian of func at inputs: for each output and input, a tensor of shape
    ``output.shape + input.shape`` (tuples of them as the inputs and outputs are tuples)."""
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(
            'Expected strategy to be either "forward-mode" or "reverse-mode". Hint: If your '
            'function has a single output, you might want to use "reverse-mode"'
        )
    in_tuple, given = _as_tuple(inputs, "inputs", "jacobian")
    with enable_grad():
        ins = _prepare(given, create_graph)
        out_tuple, outs = _call(func, ins, "jacobian")
        table = _table(outs, ins, create_graph, strict)
    result = _finish(tuple(table), create_graph)
    if not out_tuple and not in_tuple:
        return result[0][0]
    if not out_tuple:
        return result[0]
    if not in_tuple:
        return tuple(r[0] for r in result)
    return result


def _table(
    outs: tuple[Tensor, ...], ins: tuple[Tensor, ...], create_graph: bool, strict: bool
) -> tuple[tuple[Tensor, ...], ...]:
    """d(output i)/d(input j) for each pair, one backward per output element."""
    table: list[tuple[Tensor, ...]] = []
    for index, out in enumerate(outs):
        rows: list[list[Tensor]] = [[] for _ in ins]
        for k in range(out.numel()):
            seed = Tensor._wrap(np.zeros(out.shape, dtype=out._data.dtype))
            seed._data.reshape(-1)[k] = 1
            for j, g in enumerate(_grads(out, ins, seed, create_graph, strict, index)):
                rows[j].append(g)
        blocks = []
        for r, t in zip(rows, ins, strict=True):
            shape = tuple(out.shape) + tuple(t.shape)
            if r:
                blocks.append(stack(r).reshape(shape))
            else:  # an empty output
                blocks.append(Tensor._wrap(np.zeros(shape, dtype=out._data.dtype)))
        table.append(tuple(blocks))
    return tuple(table)


def hessian(
    func: Callable[..., Any],
    inputs: Any,
    create_graph: bool = False,
    strict: bool = False,
    vectorize: bool = False,
    outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a function with one single-element output: for each pair of inputs, a
    tensor of shape ``input_i.shape + input_j.shape``."""
    in_tuple, given = _as_tuple(inputs, "inputs", "hessian")

    def scalar(*args: Tensor) -> Tensor:
        out = func(*args)
        is_tuple, outs = _as_tuple(out, "outputs of the user-provided function", "hessian")
        if is_tuple:
            raise RuntimeError("The function given to hessian should return a single Tensor")
        if outs[0].numel() != 1:
            raise RuntimeError(
                "The Tensor returned by the function given to hessian should contain a single "
                "element"
            )
        return outs[0].squeeze()

    def first(*args: Tensor) -> tuple[Tensor, ...]:
        jac = jacobian(scalar, args, create_graph=True, strict=strict)
        return tuple(jac)

    result = jacobian(first, tuple(given), create_graph=create_graph, strict=strict)
    if not in_tuple:
        return result[0][0]
    return result


def _vector(v: Any, like: tuple[Tensor, ...], fn: str, what: str) -> tuple[Tensor, ...]:
    _, vs = _as_tuple(v, "v", fn)
    if len(vs) != len(like):
        raise RuntimeError(
            f"v is a tuple of invalid length: should be {len(like)} but got {len(vs)}."
        )
    for i, (a, b) in enumerate(zip(vs, like, strict=True)):
        if tuple(a.shape) != tuple(b.shape):
            raise RuntimeError(
                f"Entry {i} in v has invalid size: should be {list(b.shape)} but got "
                f"{list(a.shape)}."
            )
    return vs


def _single_element(values: tuple[Tensor, ...], message: str) -> None:
    if len(values) != 1 or values[0].numel() != 1:
        raise RuntimeError(message)


def vjp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), vᵀ · J): the vector-Jacobian product at inputs."""
    in_tuple, given = _as_tuple(inputs, "inputs", "vjp")
    with enable_grad():
        ins = _prepare(given, create_graph)
        out_tuple, outs = _call(func, ins, "vjp")
        if v is None:
            _single_element(
                outs,
                "The vector v can only be None if the user-provided function returns a single "
                "Tensor with a single element.",
            )
            vs: tuple[Tensor, ...] = (Tensor._wrap(np.ones(outs[0].shape, outs[0]._data.dtype)),)
        else:
            vs = _vector(v, outs, "vjp", "outputs")
        total = [_zeros(t) for t in ins]
        used = [False] * len(ins)
        for out, seed in zip(outs, vs, strict=True):
            if not out.requires_grad:
                continue
            found = grad(
                out, ins, seed, retain_graph=True, create_graph=create_graph, allow_unused=True
            )
            for i, g in enumerate(found):
                if g is not None:
                    total[i] = g if not used[i] else total[i] + g
                    used[i] = True
        for i, u in enumerate(used):
            if not u:
                _unused(strict, None, i)
    outputs = _finish(outs, create_graph)
    grads = _finish(tuple(total), create_graph)
    return (outputs if out_tuple else outputs[0]), (grads if in_tuple else grads[0])


def jvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), J · v): the Jacobian-vector product at inputs (here as the Jacobian's
    rows contracted with v)."""
    _, given = _as_tuple(inputs, "inputs", "jvp")
    if v is None:
        _single_element(
            given,
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element.",
        )
        vs: tuple[Tensor, ...] = (Tensor._wrap(np.ones(given[0].shape, given[0]._data.dtype)),)
    else:
        vs = _vector(v, given, "jvp", "inputs")
    with enable_grad():
        ins = _prepare(given, create_graph)
        out_tuple, outs = _call(func, ins, "jvp")
        jac = _table(outs, ins, create_graph, strict)
        products = []
        for out, row in zip(outs, jac, strict=True):
            total: Tensor | None = None
            for j_block, vec in zip(row, vs, strict=True):
                part = (j_block.reshape(out.numel(), vec.numel()) @ vec.reshape(-1)).reshape(
                    tuple(out.shape)
                )
                total = part if total is None else total + part
            products.append(total)
    outputs = _finish(outs, create_graph)
    result = _finish(tuple(products), create_graph)
    return (outputs if out_tuple else outputs[0]), (result if out_tuple else result[0])


def vhp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), vᵀ · H) for a function with one single-element output: a backward
    through the recorded gradient."""
    return _hessian_product(func, inputs, v, create_graph, strict, "vhp")


def hvp(
    func: Callable[..., Any],
    inputs: Any,
    v: Any = None,
    create_graph: bool = False,
    strict: bool = False,
) -> tuple[Any, Any]:
    """(func(inputs), H · v) for a function with one single-element output (computed as
    vᵀ · H: see the module docstring)."""
    return _hessian_product(func, inputs, v, create_graph, strict, "hvp")


def _hessian_product(
    func: Callable[..., Any], inputs: Any, v: Any, create_graph: bool, strict: bool, fn: str
) -> tuple[Any, Any]:
    in_tuple, given = _as_tuple(inputs, "inputs", fn)
    if v is None:
        _single_element(
            given,
            "The vector v can only be None if the input to the user-provided function is a "
            "single Tensor with a single element.",
        )
        vs: tuple[Tensor, ...] = (Tensor._wrap(np.ones(given[0].shape, given[0]._data.dtype)),)
    else:
        vs = _vector(v, given, fn, "inputs")
    with enable_grad():
        ins = _prepare(given, create_graph)
        out_tuple, outs = _call(func, ins, fn)
        if out_tuple:
            raise RuntimeError(f"The function given to {fn} should return a single Tensor")
        _single_element(
            outs,
            f"The Tensor returned by the function given to {fn} should contain a single element",
        )
        out = outs[0]
        first = _grads(out.sum(), ins, _ones_like(out.sum()), True, strict)
        total: list[Tensor | None] = [None] * len(ins)
        for g, vec in zip(first, vs, strict=True):
            if not g.requires_grad:
                continue
            found = grad(g, ins, vec, retain_graph=True, create_graph=create_graph,
                         allow_unused=True)  # fmt: skip
            for i, h in enumerate(found):
                if h is not None:
                    total[i] = h if total[i] is None else total[i] + h  # type: ignore[operator]
        result = []
        for i, (h, t) in enumerate(zip(total, ins, strict=True)):
            if h is None:
                _unused(strict, None, i)
                h = _zeros(t)
            result.append(h)
    outputs = _finish((out,), create_graph)
    products = _finish(tuple(result), create_graph)
    return outputs[0], (products if in_tuple else products[0])


def _ones_like(t: Tensor) -> Tensor:
    return Tensor._wrap(np.ones(t.shape, dtype=t._data.dtype))
