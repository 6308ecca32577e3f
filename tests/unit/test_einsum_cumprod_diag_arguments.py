"""The rows added as "one row plus its test case" (cumprod, diag, einsum; tan, log1p, expm1
by their function names): their gradients are checked by the table-driven tests
(test_op_table.py, test_higher_order.py); here, what those cannot show: PyTorch's errors for
bad arguments, integer inputs, and the budgets a sandboxed program runs under."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine

BAD_EINSUM = [
    ("ij,jk->ik", [(2, 3), (2, 3)]),  # j has two sizes
    ("ij,jk->ik", [(2, 3)]),  # fewer operands
    ("i->i", [(2,), (2,)]),  # more operands
    ("ij->k", [(2, 3)]),  # output index from nowhere
    ("ijk->", [(2, 3)]),  # wrong number of subscripts
    ("i1->i", [(2, 3)]),  # not a letter
]


def _message(fn: Any) -> str:
    try:
        fn()
    except (RuntimeError, TypeError) as exc:
        return f"{type(exc).__name__}: {exc}"
    return "no error"


@pytest.mark.torch
@pytest.mark.parametrize(("equation", "shapes"), BAD_EINSUM)
def test_einsum_errors_are_pytorchs(equation: str, shapes: list[tuple[int, ...]]) -> None:
    torch = pytest.importorskip("torch")
    ours = _message(lambda: engine.einsum(equation, *[engine.ones(*s) for s in shapes]))
    theirs = _message(lambda: torch.einsum(equation, *[torch.ones(*s) for s in shapes]))
    assert ours == theirs


@pytest.mark.torch
def test_einsum_dtype_mismatch_and_implicit_output_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    ours = _message(lambda: engine.einsum("i,i->", engine.ones(3), engine.ones(3).double()))
    theirs = _message(lambda: torch.einsum("i,i->", torch.ones(3), torch.ones(3).double()))
    assert ours == theirs
    a, b = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    out = engine.einsum("ij,jk", engine.tensor(a), engine.tensor(b))  # implicit: -> ik
    ref = torch.einsum("ij,jk", torch.tensor(a), torch.tensor(b))
    np.testing.assert_allclose(out.numpy(), ref.numpy())


def test_einsum_refuses_what_it_does_not_support_with_a_clear_error() -> None:
    with pytest.raises(RuntimeError, match="repeat an index within one operand"):
        engine.einsum("ii->", engine.ones(2, 2))
    with pytest.raises(RuntimeError, match="ellipsis"):
        engine.einsum("...ij->...ji", engine.ones(2, 2))


@pytest.mark.torch
def test_cumprod_and_diag_on_integers_and_errors_as_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for fn in (
        lambda T: T.cumprod(T.tensor([1, 2, 3]), 0),
        lambda T: T.tensor([[1, 2], [3, 4]], dtype=T.int32).cumprod(dim=1),
        lambda T: T.diag(T.tensor([1, 2])),
        lambda T: T.diag(T.arange(12).reshape(3, 4), -1),
    ):
        ours, theirs = fn(engine), fn(torch)
        assert str(ours.dtype) == str(theirs.dtype)
        assert ours.tolist() == theirs.tolist()
    for fn in (lambda T: T.cumprod(T.ones(3)), lambda T: T.diag(T.ones(2, 2, 2))):
        assert _message(lambda fn=fn: fn(engine)) == _message(lambda fn=fn: fn(torch))
