"""A small autograd engine with PyTorch's API and semantics, on NumPy (CPU) or CuPy (GPU).

``import engine as torch`` runs lesson code unchanged within the supported subset.
"""

from __future__ import annotations

import builtins as _builtins

import numpy as _np

from engine import autograd, backend, dtypes, limits
from engine.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from engine.backend import Device as device
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
from engine.random import initial_seed, manual_seed, seed
from engine.tensor import (
    BoolTensor,
    DoubleTensor,
    FloatTensor,
    IntTensor,
    LongTensor,
    Size,
    Tensor,
    abs,
    add,
    allclose,
    amax,
    amin,
    arange,
    argmax,
    argmin,
    as_tensor,
    broadcast_to,
    argsort,
    cat,
    ceil,
    cumsum,
    clamp,
    clip,
    concat,
    concatenate,
    cos,
    div,
    divide,
    dot,
    empty,
    equal,
    erf,
    exp,
    expm1,
    expand,
    eye,
    flatten,
    floor,
    from_numpy,
    full,
    full_like,
    get_default_device,
    gather,
    is_tensor,
    isnan,
    linspace,
    log,
    log1p,
    log2,
    log10,
    log_softmax,
    masked_fill,
    matmul,
    max,
    maximum,
    mean,
    min,
    minimum,
    mm,
    mul,
    multiply,
    neg,
    nonzero,
    negative,
    norm,
    normal,
    numel,
    ones,
    ones_like,
    outer,
    permute,
    pow,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    reciprocal,
    relu,
    reshape,
    round,
    set_default_device,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sort,
    softmax,
    sqrt,
    square,
    squeeze,
    stack,
    std,
    sub,
    subtract,
    sum,
    swapaxes,
    t,
    tanh,
    tensor,
    topk,
    transpose,
    true_divide,
    unsqueeze,
    var,
    where,
    zeros,
    zeros_like,
)

from engine import cuda, nn, optim

_builtin_bool = _builtins.bool

# PyTorch semantics: overflow, division by zero and invalid operations silently give inf/nan.
_np.seterr(all="ignore")
__version__ = "0.1.0"


def get_default_dtype() -> dtype:
    return float32


def is_floating_point(input: Tensor) -> _builtin_bool:
    return input.is_floating_point()
