"""``torch.linalg``: norms (from the table's rows), and the inverse, determinant and solve of
square matrices (rows of their own)."""

from __future__ import annotations

import sys as _sys
from typing import Any

from engine import ops as O
from engine.core import rename
from engine.extras import linalg_svd as svd
from engine.extras import svdvals
from engine.functions import matmul
from engine.functions import norm as _norm_of
from engine.registry import missing as _missing
from engine.tensor import Tensor, apply


def _vector(out: Tensor) -> Tensor:
    if out.grad_fn is not None:
        rename(out.grad_fn, "LinalgVectorNormBackward0")
    return out


__all__ = ["det", "inv", "matrix_norm", "norm", "solve", "svd", "svdvals", "vector_norm"]


def vector_norm(
    x: Tensor, ord: float = 2, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> Tensor:
    """The vector norm of all elements (or along ``dim``)."""
    x = x if dtype is None else x.to(dtype)
    return _vector(_norm_of(x, ord, dim, keepdim))


def matrix_norm(A: Tensor, ord: Any = "fro", dim: Any = (-2, -1), keepdim: bool = False) -> Tensor:
    if ord != "fro":
        raise NotImplementedError(f"linalg.matrix_norm(ord={ord!r}): only 'fro' in the playground")
    return _norm_of(A, 2, dim, keepdim)


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False) -> Tensor:
    """torch.linalg.norm: the 2-norm of a vector, Frobenius of a matrix (the defaults)."""
    if ord in (None, "fro"):
        return _vector(_norm_of(A, 2, dim, keepdim))
    if isinstance(ord, str):
        raise NotImplementedError(f"linalg.norm(ord={ord!r}) is not in the playground")
    return _vector(_norm_of(A, ord, dim, keepdim))


def _square(A: Tensor, fname: str) -> None:
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(
            f"linalg.{fname}: A must be batches of square matrices, but they are "
            f"{A.shape[-2] if A.dim() > 1 else 1} by {A.shape[-1]} matrices"
        )


def inv(A: Tensor) -> Tensor:
    _square(A, "inv")
    return apply(O.INV, (A,))


def det(A: Tensor) -> Tensor:
    _square(A, "det")
    return apply(O.DET, (A,))


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """A⁻¹B (or BA⁻¹ with ``left=False``), as the inverse's row and a product."""
    _square(A, "solve")
    return matmul(inv(A), B) if left else matmul(B, inv(A))


def __getattr__(name: str) -> Any:
    """``torch.linalg.<name>`` for a name not here: saying so where PyTorch has it."""
    raise _missing("torch.linalg", f"module {__name__!r}", name, _sys.modules[__name__])
