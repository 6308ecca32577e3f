"""A stand-in for ``cupyx``: ``scatter_add`` (the engine's index_add) and ``scipy.special.erf``."""

from __future__ import annotations

from typing import Any

import numpy as _np


def scatter_add(a: Any, slices: Any, value: Any) -> None:
    """a[slices] += value, accumulating repeated indices (CuPy's ``cupyx.scatter_add``)."""
    _np.add.at(a, slices, value)
