"""A stand-in for ``cupyx``: only ``scatter_add``, which the engine's index_add uses."""

from __future__ import annotations

from typing import Any

import numpy as _np


def scatter_add(a: Any, slices: Any, value: Any) -> None:
    """a[slices] += value, accumulating repeated indices (CuPy's ``cupyx.scatter_add``)."""
    _np.add.at(a, slices, value)
