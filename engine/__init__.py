"""A small autograd engine with PyTorch's API and semantics, on NumPy (CPU) or CuPy (GPU).

``import engine as torch`` runs lesson code unchanged within the supported subset.
"""

from __future__ import annotations

import builtins as _builtins
import math as _math

import numpy as _np

from engine import autograd, backend, dtypes, limits
from engine.autograd import enable_grad, is_grad_enabled, no_grad
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

# engine.tensor first: its classes are what factories and functions build on
from engine.tensor import (
    Size,
    Tensor,
)
from engine.factories import (
    arange,
    as_tensor,
    BoolTensor,
    DoubleTensor,
    empty,
    eye,
    FloatTensor,
    from_numpy,
    full,
    full_like,
    get_default_device,
    IntTensor,
    linspace,
    LongTensor,
    normal,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    randperm,
    set_default_device,
    tensor,
    zeros,
    zeros_like,
)
from engine.functions import (
    abs,
    add,
    allclose,
    amax,
    amin,
    argmax,
    argmin,
    acos,
    arccos,
    arcsin,
    arctan,
    argsort,
    asin,
    atan,
    broadcast_to,
    cat,
    ceil,
    chunk,
    clamp,
    clip,
    concat,
    concatenate,
    cos,
    cosh,
    cumsum,
    div,
    divide,
    dot,
    eq,
    equal,
    erf,
    exp,
    expand,
    expm1,
    flatten,
    fix,
    floor,
    frac,
    gather,
    ge,
    greater,
    greater_equal,
    gt,
    hstack,
    index_select,
    inference_mode,
    is_tensor,
    isclose,
    isfinite,
    isinf,
    isnan,
    le,
    less,
    less_equal,
    log,
    log10,
    log1p,
    log2,
    log_softmax,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
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
    mv,
    ne,
    neg,
    negative,
    nonzero,
    norm,
    not_equal,
    numel,
    outer,
    permute,
    pow,
    prod,
    reciprocal,
    relu,
    reshape,
    round,
    row_stack,
    rsqrt,
    sigmoid,
    set_grad_enabled,
    sign,
    sin,
    sinh,
    softmax,
    sort,
    split,
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
    topk,
    transpose,
    tril,
    triu,
    true_divide,
    trunc,
    unsqueeze,
    var,
    vstack,
    where,
)

from engine import cuda, nn, optim
from engine import functions as _functions

# torch.sum(x, axis=0), torch.cat(xs, axis=0): NumPy's keyword names, as PyTorch accepts them
for _name in _functions.AXIS_ALIASED:
    if _name in globals():
        globals()[_name] = _functions.dim_aliases(globals()[_name])

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
