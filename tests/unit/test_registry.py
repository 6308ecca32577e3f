"""The op table is the registry: every public name a row declares resolves (``torch.<name>``,
``Tensor.<name>``, ``torch.nn.functional.<name>``) and records that row; every name in
``engine.__all__`` resolves (and is a name PyTorch has); the functions and methods made from a
row's dtype rule treat their inputs as PyTorch does."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine
from engine import ops
from engine.ops import OPS
from engine.registry import FUNCTIONS, METHODS

DECLARED = [
    (op.name, kind, name)
    for op in OPS.values()
    for kind, names in (
        ("function", op.function),
        ("method", op.method),
        ("inplace", op.inplace),
        ("functional", op.functional),
    )
    for name in names
]
GENERATED = [(op, name) for op in OPS.values() if op.dtype for name in op.function]


def _resolve(kind: str, name: str) -> Any:
    if kind == "function":
        return getattr(engine, name)
    if kind == "functional":
        return getattr(engine.nn.functional, name)
    return getattr(engine.Tensor, name)


@pytest.mark.parametrize(("row", "kind", "name"), DECLARED)
def test_every_declared_name_resolves(row: str, kind: str, name: str) -> None:
    assert callable(_resolve(kind, name)) or isinstance(_resolve(kind, name), property)


def test_every_exported_name_resolves() -> None:
    for name in engine.__all__:
        assert hasattr(engine, name), name
    assert set(FUNCTIONS) <= set(engine.__all__)
    # the table's new rows are exported under PyTorch's names
    for name in ("tan", "log1p", "expm1", "cumprod", "diag", "einsum", "arcsin", "fix"):
        assert name in engine.__all__


@pytest.mark.torch
def test_exported_and_declared_names_are_pytorchs() -> None:
    torch = pytest.importorskip("torch")
    assert [n for n in engine.__all__ if not hasattr(torch, n)] == []
    for _row, kind, name in DECLARED:
        owner = {"function": torch, "functional": torch.nn.functional}.get(kind, torch.Tensor)
        assert hasattr(owner, name), f"{kind} {name}"
    public_methods = [n for n in dir(engine.Tensor) if not n.startswith("_")]
    assert [n for n in public_methods if not hasattr(torch.Tensor, n)] == []


@pytest.mark.parametrize(("op", "name"), GENERATED, ids=[f"{o.name}-{n}" for o, n in GENERATED])
def test_generated_functions_and_methods_record_their_row(op: ops.Op, name: str) -> None:
    x = engine.tensor([0.25, 0.5], requires_grad=True)
    args: tuple[Any, ...] = (x,)
    if op.dtype == "promote":
        args = (x, 3.0)
    elif op.dtype == "tensors":
        args = (x, engine.tensor([0.5, 0.0]))
    expected = op.grad_fn
    for fn in (getattr(engine, name), getattr(engine.Tensor, name)):
        out = fn(*args)
        assert out.grad_fn is not None and out.grad_fn.name() == expected, name
    for inplace in op.inplace:
        y = x * 1.0
        out = getattr(y, inplace)(*args[1:])
        assert out is y and y.grad_fn.name() == expected and y._version == 1


@pytest.mark.torch
@pytest.mark.parametrize(("op", "name"), GENERATED, ids=[f"{o.name}-{n}" for o, n in GENERATED])
def test_generated_functions_treat_dtypes_as_pytorch(op: ops.Op, name: str) -> None:
    """Integer input: taken as float32 ("float"), refused ("float_only"), kept ("same"),
    copied ("whole"); promoted with a Python float ("promote") or a float tensor ("tensors").
    A non-tensor where PyTorch wants one: PyTorch's TypeError."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (engine, torch):
        args: tuple[Any, ...] = (lib.tensor([1, 2, 3]),)
        if op.dtype == "promote":
            args = (*args, 2.5)
        elif op.dtype == "tensors":
            args = (*args, lib.tensor([2.5, 0.5, 3.0]))
        try:
            results.append(getattr(lib, name)(*args))
        except NotImplementedError as exc:
            results.append(str(exc))
    got, ref = results
    if isinstance(ref, str):
        assert got == ref
        return
    assert str(got.dtype) == str(ref.dtype), name
    np.testing.assert_allclose(got.numpy(), ref.numpy(), rtol=1e-6, equal_nan=True)
    if op.dtype == "promote":
        return
    bad = (1.0,) if op.dtype != "tensors" else (engine.tensor([1.0]), 1.0)
    with pytest.raises(TypeError, match=rf"{name}\(\): argument '\w+' \(position \d\) must"):
        getattr(engine, name)(*bad)
    with pytest.raises(TypeError, match=rf"{name}\(\): argument"):
        getattr(torch, name)(*[torch.tensor(b._data) if hasattr(b, "_data") else b for b in bad])


def test_a_row_is_one_declaration() -> None:
    """A new elementwise row needs no code beyond its declaration: a row made here, with a
    dtype rule, gets its function and methods from the same generators the table uses."""
    from engine.functions import from_row

    row = ops.Op(
        "cube_test",
        "CubeTestBackward0",
        lambda xp, a: a**3,
        lambda xp, g, out, xs, at, n: (g * 3 * xs[0] ** 2,),
        ("3·{a}²",),
        "{a}³",
        function=("cube_test",),
        dtype="float",
    )
    cube = from_row(row, "cube_test")
    x = engine.tensor([1, 2])  # integers: taken as float32
    assert cube(x).tolist() == [1.0, 8.0] and cube(x).dtype == engine.float32
    w = engine.tensor([2.0], requires_grad=True)
    cube(w).sum().backward()
    assert w.grad.tolist() == [12.0]
    assert "cube_test" not in FUNCTIONS  # nothing was registered by making it


def test_hand_written_methods_are_not_defined_twice() -> None:
    own = set(vars(engine.Tensor)) - set(engine.methods.BOUND)
    assert not own & set(METHODS)
