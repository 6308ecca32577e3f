"""``torch.functional``: the functions PyTorch defines in that module, the same objects as
``torch.<name>`` (those the playground has; the others say so, engine.registry.missing)."""

from __future__ import annotations

import sys as _sys
from typing import Any

from engine.registry import FUNCTIONS as _FUNCTIONS
from engine.registry import missing as _missing

#: PyTorch 2.13's torch.functional.__all__
_PYTORCH = [
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "broadcast_shapes",
    "broadcast_tensors",
    "cartesian_prod",
    "block_diag",
    "cdist",
    "chain_matmul",
    "einsum",
    "istft",
    "lu",
    "norm",
    "meshgrid",
    "pca_lowrank",
    "split",
    "stft",
    "svd_lowrank",
    "tensordot",
    "unique",
    "unique_consecutive",
    "unravel_index",
]

__all__ = [name for name in _PYTORCH if name in _FUNCTIONS]
globals().update({name: _FUNCTIONS[name] for name in __all__})


def __getattr__(name: str) -> Any:
    """``torch.functional.<name>`` for a name not here: saying so where PyTorch has it."""
    raise _missing("torch.functional", f"module {__name__!r}", name, _sys.modules[__name__])
