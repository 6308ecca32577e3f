"""A small autograd engine with PyTorch's API and semantics, on NumPy (CPU) or CuPy (GPU).

``import engine as torch`` runs lesson code unchanged within the supported subset. Its
functions are the registry's (engine.registry): those the op table's rows declare and the
hand-written ones; ``__all__`` lists them with the dtypes, classes and submodules.

The modules form layers without import cycles (tests/test_layers.py):
backend, dtypes, random, sizes, registry -> ops (the table's builders and most rows) ->
shape_ops -> core (grad mode, nodes, the backward loop and its observer interface) -> tensor
-> factories -> shapes, comparisons, conversions, out -> functions -> function, higher ->
autograd -> methods (binds Tensor's methods, makes the in-place ones) -> optim (one module per
optimizer), cuda -> nn (its rows in nn/conv_ops.py and nn/loss_ops.py) -> this package. The
playground's recorder (recorder/) watches the backward loop through ``core.observing``; nothing
here imports it.
"""

from __future__ import annotations

import builtins as _builtins
import sys as _sys
import math as _math
from typing import Any

import numpy as _np

from engine import autograd, backend, dtypes, methods, serialization
from engine.backend import Device as device
from engine.core import enable_grad, is_grad_enabled, no_grad
from engine.dtypes import (
    DType as dtype,
    bool_ as bool,
    double,
    float,
    float16,
    float32,
    float64,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
)
from engine.factories import BoolTensor, DoubleTensor, FloatTensor, IntTensor, LongTensor
from engine.out import accepts_out as _accepts_out
from engine.out import out_functions as _out_functions
from engine.functions import dim_aliases as _dim_aliases
from engine.library import finfo, iinfo
from engine._format import set_printoptions
from engine.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from engine.registry import AXIS_ALIASED as _AXIS_ALIASED
from engine.registry import FUNCTIONS as _FUNCTIONS
from engine.registry import missing as _missing
from engine.sizes import Size
from engine.tensor import Tensor

from engine import (
    accelerator,
    backends,
    cuda,
    distributions,
    linalg,
    nn,
    optim,
    random,
    testing,
    utils,
)
from engine.autograd import is_anomaly_check_nan_enabled, is_anomaly_enabled
from engine import autograd_functional, functional, profiler

autograd.functional = autograd_functional  # type: ignore[attr-defined]  # torch.autograd.functional
autograd.profiler = profiler  # type: ignore[attr-defined]  # torch.autograd.profiler
from engine.optim import lr_scheduler as _lr_scheduler  # torch.optim.lr_scheduler


def __getattr__(name: str) -> Any:
    """``torch.<name>`` for a name not here: saying so where PyTorch has it (typed loosely,
    so that the registry's functions, set below, are typed too)."""
    raise _missing("torch", f"module {__name__!r}", name, _sys.modules[__name__])


# torch.exp, torch.sum ...: every registered function (torch.sum(x, axis=0) too, NumPy's
# keyword names, as PyTorch accepts them)
globals().update(
    {
        _name: _dim_aliases(_fn) if _name in _AXIS_ALIASED else _fn
        for _name, _fn in _FUNCTIONS.items()
    }
)
# ... with out= where PyTorch's have it
globals().update(
    {
        _name: _accepts_out(globals()[_name], _name)
        for _name in _out_functions()
        if _name in _FUNCTIONS
    }
)

_builtin_bool = _builtins.bool

# PyTorch semantics: overflow, division by zero and invalid operations silently give inf/nan.
_np.seterr(all="ignore")
__version__ = "0.1.0"

# torch.pi, torch.e, torch.inf, torch.nan: plain Python floats, as in PyTorch
pi = _math.pi
e = _math.e
inf = _math.inf
nan = _math.nan


def get_default_dtype() -> dtype:
    return float32


def is_floating_point(input: Tensor) -> _builtin_bool:
    return input.is_floating_point()


__all__ = sorted(
    {
        *_FUNCTIONS,
        *[
            "Tensor",
            "Size",
            "device",
            "dtype",
            "FloatTensor",
            "DoubleTensor",
            "LongTensor",
            "IntTensor",
            "BoolTensor",
            "bool",
            "double",
            "float",
            "float16",
            "float32",
            "float64",
            "half",
            "int",
            "int8",
            "int16",
            "int32",
            "int64",
            "long",
            "short",
            "uint8",
            "no_grad",
            "enable_grad",
            "is_grad_enabled",
            "manual_seed",
            "seed",
            "initial_seed",
            "Generator",
            "default_generator",
            "get_rng_state",
            "set_rng_state",
            "set_printoptions",
            "is_anomaly_enabled",
            "is_anomaly_check_nan_enabled",
            "accelerator",
            "backends",
            "distributions",
            "linalg",
            "testing",
            "finfo",
            "iinfo",
            "random",
            "utils",
            "get_default_dtype",
            "is_floating_point",
            "pi",
            "e",
            "inf",
            "nan",
            "autograd",
            "nn",
            "optim",
            "cuda",
        ],
    }
)
