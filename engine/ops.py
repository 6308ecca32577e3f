"""The primitive table: one row per differentiable primitive.

A row (:class:`Op`) holds everything about a primitive in one place, like PyTorch's
``derivatives.yaml`` or HIPS/autograd's ``defvjp``:

- ``name``     the public name (``mul``), ``grad_fn`` PyTorch's node name (``MulBackward0``);
- ``forward``  ``(xp, *arrays, **attrs) -> array``;
- ``vjp``      ``(xp, g, out, xs, attrs, needs) -> tuple`` of one gradient per input, ``None``
               where ``needs[i]`` is false. Rules are pure functions of (upstream grad, output,
               inputs, attributes) and may return a gradient in the *broadcast* shape: the
               backward loop sums it back to the input's shape, once, for every rule;
- ``local``    per input, the local derivative as a formula over ``{a}``, ``{b}``, ``{c}`` (the
               inputs), ``{out}``, ``{N}`` (a count: the elements averaged) and attributes
               (``{p}``), shown by the walk's captions; written in engine.caption's notation
               (``1 − {out}²``, ``[{a} > 0]``), which parses it into a tree: with numbers
               substituted it must evaluate to the rule's result (tests/unit/test_captions.py);
- ``chain``    per input, how the contribution is formed from ``{g}`` (the upstream gradient)
               when it is not simply ``local · g`` (matrix products, reductions, reshapes);
- ``symbol``   how the forward reads, for node labels (``{a} · {b}``);
- ``saves``    what backward reads: ``""`` nothing, ``"in"`` inputs, ``"out"`` the output,
               ``"both"``. It decides which version counters backward checks, and whether a
               second backward through a freed graph is an error (as in PyTorch).

Where the row appears in the public API (the registry: ``engine.functions`` makes the simple
functions from it, ``engine.methods`` binds the methods, ``engine.__all__`` lists them, and
tests/unit/test_registry.py checks every name resolves):

- ``function``   names in ``torch`` that record this row (the canonical name first);
- ``method``     names on ``Tensor`` (operators included), ``inplace`` the in-place methods;
- ``functional`` names in ``torch.nn.functional``;
- ``dtype``      how a *generated* wrapper treats its input, for rows simple enough to need no
                 hand-written argument parsing: ``"float"`` integer and bool inputs are taken
                 as float32 (``torch.exp(int_tensor)``), ``"float_only"`` they are refused as
                 PyTorch refuses them (``frac``), ``"same"`` any dtype as it is, ``"whole"``
                 integers are already whole (a copy, as ``floor``); ``"promote"`` a binary op
                 with PyTorch's type promotion (a tensor and a tensor or number), ``"tensors"``
                 the same for two tensors. Rows without it have hand-written functions in
                 ``engine.functions`` (argument parsing, PyTorch's overloads).

Composites (``mse``-style helpers in ``nn.functional``, ``square``, ``rdiv`` ...) are built
from these rows and carry no backward code.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from engine.backend import device_of, erf, index_add, move

Array = Any
Grads = tuple[Array | None, ...]


@dataclass(frozen=True, slots=True)
class Op:
    name: str
    grad_fn: str
    forward: Callable[..., Array]
    vjp: Callable[..., Grads]
    local: tuple[str, ...]
    symbol: str
    saves: str = "in"
    chain: tuple[str, ...] | None = None
    #: the forward on NumPy arrays without the ``xp`` argument (a C callable such as
    #: ``np.tanh``), for the hot paths to call directly; set below for the commonest rows
    host: Callable[..., Array] | None = None
    # where the row appears in the public API (see the module docstring)
    function: tuple[str, ...] = ()
    method: tuple[str, ...] = ()
    inplace: tuple[str, ...] = ()
    functional: tuple[str, ...] = ()
    dtype: str = ""


OPS: dict[str, Op] = {}


def _row(op: Op) -> Op:
    OPS[op.name] = op
    return op


def _elementwise(*names: str, dtype: str) -> dict[str, Any]:
    """The public names of an elementwise row: ``torch.exp``, ``Tensor.exp``, ``Tensor.exp_``
    (and the same for each alias), made by engine.functions / engine.methods from ``dtype``."""
    return {
        "function": names,
        "method": names,
        "inplace": tuple(f"{n}_" for n in names),
        "dtype": dtype,
    }


# --- helpers used by several rules --------------------------------------------------------------
def _keep(g: Array, axis: Any, keepdim: bool, ndim: int) -> Array:
    """Re-insert reduced axes into g so it broadcasts against the reduction's input."""
    if keepdim or axis is None or ndim == 0:
        return g
    axes = (axis,) if isinstance(axis, int) else axis
    axes = tuple(a % ndim for a in axes)
    shape = list(g.shape)
    for a in sorted(axes):
        shape.insert(a, 1)
    return g.reshape(shape)


def _expand_reduced(g: Array, x: Array, axis: Any, keepdim: bool) -> Array:
    if axis is None:
        return g  # scalar g broadcasts over x
    return _keep(g, axis, keepdim, x.ndim)


_ONES: dict[tuple[int, Any], Array] = {}  # host vectors of ones, reused (never written)


def sum_rows(xp: ModuleType, m: Array) -> Array:
    """``m.sum(axis=0)`` of a 2-D array; for floats as ``ones @ m`` (one BLAS matrix-vector
    product, 2-3x faster than NumPy's axis-0 reduction on the small batches of the lessons;
    the same float32 rounding class as PyTorch's own bias-gradient sum)."""
    if m.dtype.kind == "f" and m.shape[0] > 1:
        if xp is not np:
            return xp.ones(m.shape[0], dtype=m.dtype) @ m
        key = (m.shape[0], m.dtype)
        ones = _ONES.get(key)
        if ones is None:
            if len(_ONES) > 32:  # a few batch sizes per program: keep the cache small
                _ONES.clear()
            ones = _ONES[key] = np.ones(m.shape[0], dtype=m.dtype)
            ones.flags.writeable = False
        return ones @ m
    return m.sum(axis=0)


# --- elementwise arithmetic ---------------------------------------------------------------------
ADD = _row(
    Op(
        "add",
        "AddBackward0",
        lambda xp, a, b: a + b,
        lambda xp, g, out, xs, at, n: (g if n[0] else None, g if n[1] else None),
        ("1", "1"),
        "{a} + {b}",
        saves="",
        function=("add",),
        method=("add", "__add__", "__radd__", "__iadd__"),
        inplace=("add_",),
    )
)
SUB = _row(
    Op(
        "sub",
        "SubBackward0",
        lambda xp, a, b: a - b,
        lambda xp, g, out, xs, at, n: (g if n[0] else None, -g if n[1] else None),
        ("1", "−1"),
        "{a} − {b}",
        saves="",
        function=("sub", "subtract"),
        method=("sub", "subtract", "__sub__", "__isub__"),
        inplace=("sub_",),
    )
)
# scalar - tensor: PyTorch records RsubBackward1 (inputs: the tensor, then the scalar).
RSUB = _row(
    Op(
        "rsub",
        "RsubBackward1",
        lambda xp, a, b: b - a,
        lambda xp, g, out, xs, at, n: (-g if n[0] else None, g if n[1] else None),
        ("−1", "1"),
        "{b} − {a}",
        saves="",
        method=("__rsub__",),
    )
)
MUL = _row(
    Op(
        "mul",
        "MulBackward0",
        lambda xp, a, b: a * b,
        lambda xp, g, out, xs, at, n: (g * xs[1] if n[0] else None, g * xs[0] if n[1] else None),
        ("{b}", "{a}"),
        "{a} · {b}",
        function=("mul", "multiply"),
        method=("mul", "multiply", "__mul__", "__rmul__", "__imul__"),
        inplace=("mul_",),
        dtype="promote",
    )
)
DIV = _row(
    Op(
        "div",
        "DivBackward0",
        lambda xp, a, b: a / b,
        lambda xp, g, out, xs, at, n: (
            g / xs[1] if n[0] else None,
            -g * xs[0] / (xs[1] * xs[1]) if n[1] else None,
        ),
        ("1/{b}", "−{a}/{b}²"),
        "{a} / {b}",
        function=("div", "divide", "true_divide"),
        method=("div", "divide", "true_divide", "__truediv__", "__itruediv__"),
        inplace=("div_",),
    )
)
NEG = _row(
    Op(
        "neg",
        "NegBackward0",
        lambda xp, a: -a,
        lambda xp, g, out, xs, at, n: (-g,),
        ("−1",),
        "−{a}",
        saves="",
        function=("neg", "negative"),
        method=("neg", "negative", "__neg__"),
        inplace=("neg_", "negative_"),
        dtype="same",
    )
)
RECIPROCAL = _row(
    Op(
        "reciprocal",
        "ReciprocalBackward0",
        lambda xp, a: 1 / a,
        lambda xp, g, out, xs, at, n: (-g * out * out,),
        ("−1/{a}²",),
        "1/{a}",
        saves="out",
        function=("reciprocal",),
        method=("reciprocal", "__rtruediv__"),
        inplace=("reciprocal_",),
        dtype="float",
    )
)


def _pow_scalar_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    p = at["p"]
    if p == 0:
        return (xp.zeros_like(g),)
    return (g * (p * xs[0] ** (p - 1)),)


POW = _row(
    Op(
        "pow",
        "PowBackward0",
        lambda xp, a, p: a**p,
        _pow_scalar_vjp,
        ("{p} · {a}^{pm1}",),
        "{a}^{p}",
        function=("pow", "square"),
        method=("pow", "square", "__pow__"),
        inplace=("pow_", "square_"),
    )
)


def _pow_tensor_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, b = xs
    ga = g * b * a ** (b - 1) if n[0] else None
    gb = None
    if n[1]:
        with np.errstate(divide="ignore", invalid="ignore"):
            gb = g * xp.where((a == 0) & (b >= 0), 0, out * xp.log(a))
    return ga, gb


POW_T = _row(
    Op(
        "pow_tensor",
        "PowBackward1",
        lambda xp, a, b: a**b,
        _pow_tensor_vjp,
        ("{b} · {a}^({b} − 1)", "{out} · ln({a})"),
        "{a}^{b}",
        saves="both",
        method=("__pow__",),
    )
)


def _rpow_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    base = at["base"]
    if base == 0:
        return (g * xp.where(xs[0] >= 0, 0, out * -np.inf),)
    return (g * out * np.log(base),)


RPOW = _row(
    Op(
        "rpow",
        "PowBackward2",
        lambda xp, a, base: base**a,
        _rpow_vjp,
        ("{out} · ln({base})",),
        "{base}^{a}",
        saves="both",
        method=("__rpow__",),
    )
)

# --- elementwise functions ----------------------------------------------------------------------
EXP = _row(
    Op(
        "exp",
        "ExpBackward0",
        lambda xp, a: xp.exp(a),
        lambda xp, g, out, xs, at, n: (g * out,),
        ("exp({a})",),
        "exp({a})",
        saves="out",
        **_elementwise("exp", dtype="float"),
    )
)
LOG = _row(
    Op(
        "log",
        "LogBackward0",
        lambda xp, a: xp.log(a),
        lambda xp, g, out, xs, at, n: (g / xs[0],),
        ("1/{a}",),
        "ln({a})",
        **_elementwise("log", dtype="float"),
    )
)
LOG1P = _row(
    Op(
        "log1p",
        "Log1PBackward0",
        lambda xp, a: xp.log1p(a),
        lambda xp, g, out, xs, at, n: (g / (1 + xs[0]),),
        ("1/(1 + {a})",),
        "ln(1 + {a})",
        **_elementwise("log1p", dtype="float"),
    )
)
SQRT = _row(
    Op(
        "sqrt",
        "SqrtBackward0",
        lambda xp, a: xp.sqrt(a),
        lambda xp, g, out, xs, at, n: (g / (2 * out),),
        ("1/(2 · √{a})",),
        "√{a}",
        saves="out",
        **_elementwise("sqrt", dtype="float"),
    )
)
RSQRT = _row(
    Op(
        "rsqrt",
        "RsqrtBackward0",
        lambda xp, a: 1 / xp.sqrt(a),
        lambda xp, g, out, xs, at, n: (-0.5 * g * out * out * out,),
        ("−1/(2 · {a}^1.5)",),
        "1/√{a}",
        saves="out",
        **_elementwise("rsqrt", dtype="float"),
    )
)
ABS = _row(
    Op(
        "abs",
        "AbsBackward0",
        lambda xp, a: xp.abs(a),
        lambda xp, g, out, xs, at, n: (g * xp.sign(xs[0]),),
        ("sign({a})",),
        "|{a}|",
        function=("abs", "absolute"),
        method=("abs", "absolute", "__abs__"),
        inplace=("abs_", "absolute_"),
        dtype="same",
    )
)
SIN = _row(
    Op(
        "sin",
        "SinBackward0",
        lambda xp, a: xp.sin(a),
        lambda xp, g, out, xs, at, n: (g * xp.cos(xs[0]),),
        ("cos({a})",),
        "sin({a})",
        **_elementwise("sin", dtype="float"),
    )
)
COS = _row(
    Op(
        "cos",
        "CosBackward0",
        lambda xp, a: xp.cos(a),
        lambda xp, g, out, xs, at, n: (-g * xp.sin(xs[0]),),
        ("−sin({a})",),
        "cos({a})",
        **_elementwise("cos", dtype="float"),
    )
)
TANH = _row(
    Op(
        "tanh",
        "TanhBackward0",
        lambda xp, a: xp.tanh(a),
        lambda xp, g, out, xs, at, n: (g * (1 - out * out),),
        ("1 − {out}²",),
        "tanh({a})",
        saves="out",
        **_elementwise("tanh", dtype="float"),
    )
)


def _sigmoid(xp: ModuleType, a: Array) -> Array:
    # NOTE: 1/(1+e^-a) as PyTorch's CPU kernel computes it; e^-a may overflow to inf for very
    # negative a, giving exactly 0 as PyTorch does (the engine silences NumPy's FP warnings).
    return 1 / (1 + xp.exp(-a))


SIGMOID = _row(
    Op(
        "sigmoid",
        "SigmoidBackward0",
        _sigmoid,
        lambda xp, g, out, xs, at, n: (g * out * (1 - out),),
        ("{out} · (1 − {out})",),
        "σ({a})",
        saves="out",
        **_elementwise("sigmoid", dtype="float"),
    )
)
SINH = _row(
    Op(
        "sinh",
        "SinhBackward0",
        lambda xp, a: xp.sinh(a),
        lambda xp, g, out, xs, at, n: (g * xp.cosh(xs[0]),),
        ("cosh({a})",),
        "sinh({a})",
        **_elementwise("sinh", dtype="float"),
    )
)
COSH = _row(
    Op(
        "cosh",
        "CoshBackward0",
        lambda xp, a: xp.cosh(a),
        lambda xp, g, out, xs, at, n: (g * xp.sinh(xs[0]),),
        ("sinh({a})",),
        "cosh({a})",
        **_elementwise("cosh", dtype="float"),
    )
)
ASIN = _row(
    Op(
        "asin",
        "AsinBackward0",
        lambda xp, a: xp.arcsin(a),
        lambda xp, g, out, xs, at, n: (g / xp.sqrt(1 - xs[0] * xs[0]),),
        ("1/√(1 − {a}²)",),
        "asin({a})",
        **_elementwise("asin", "arcsin", dtype="float"),
    )
)
ACOS = _row(
    Op(
        "acos",
        "AcosBackward0",
        lambda xp, a: xp.arccos(a),
        lambda xp, g, out, xs, at, n: (-g / xp.sqrt(1 - xs[0] * xs[0]),),
        ("−1/√(1 − {a}²)",),
        "acos({a})",
        **_elementwise("acos", "arccos", dtype="float"),
    )
)
ATAN = _row(
    Op(
        "atan",
        "AtanBackward0",
        lambda xp, a: xp.arctan(a),
        lambda xp, g, out, xs, at, n: (g / (1 + xs[0] * xs[0]),),
        ("1/(1 + {a}²)",),
        "atan({a})",
        **_elementwise("atan", "arctan", dtype="float"),
    )
)
# trunc's derivative is 0 almost everywhere (PyTorch: zeros), frac's is 1
TRUNC = _row(
    Op(
        "trunc",
        "TruncBackward0",
        lambda xp, a: xp.trunc(a),
        lambda xp, g, out, xs, at, n: (xp.zeros_like(g),),
        ("0",),
        "trunc({a})",
        saves="",
        **_elementwise("trunc", "fix", dtype="whole"),
    )
)
FRAC = _row(
    Op(
        "frac",
        "FracBackward0",
        lambda xp, a: a - xp.trunc(a),
        lambda xp, g, out, xs, at, n: (g,),
        ("1",),
        "frac({a})",
        saves="",
        **_elementwise("frac", dtype="float_only"),
    )
)
TAN = _row(
    Op(
        "tan",
        "TanBackward0",
        lambda xp, a: xp.tan(a),
        lambda xp, g, out, xs, at, n: (g * (1 + out * out),),
        ("1 + {out}²",),
        "tan({a})",
        saves="out",
        **_elementwise("tan", dtype="float"),
    )
)
LOG2 = _row(
    Op(
        "log2",
        "Log2Backward0",
        lambda xp, a: xp.log2(a),
        lambda xp, g, out, xs, at, n: (g / (xs[0] * math.log(2.0)),),
        ("1/({a} · ln(2))",),
        "log₂({a})",
        **_elementwise("log2", dtype="float"),
    )
)
LOG10 = _row(
    Op(
        "log10",
        "Log10Backward0",
        lambda xp, a: xp.log10(a),
        lambda xp, g, out, xs, at, n: (g / (xs[0] * math.log(10.0)),),
        ("1/({a} · ln(10))",),
        "log₁₀({a})",
        **_elementwise("log10", dtype="float"),
    )
)
EXPM1 = _row(
    Op(
        "expm1",
        "Expm1Backward0",
        lambda xp, a: xp.expm1(a),
        lambda xp, g, out, xs, at, n: (g * (out + 1),),
        ("exp({a})",),
        "e^{a} − 1",
        saves="out",
        **_elementwise("expm1", dtype="float"),
    )
)


def _erf(xp: ModuleType, a: Array) -> Array:
    return erf(xp, a)


_SQRT_2_OVER_PI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

ERF = _row(
    Op(
        "erf",
        "ErfBackward0",
        _erf,
        lambda xp, g, out, xs, at, n: (g * _SQRT_2_OVER_PI * xp.exp(-xs[0] * xs[0]),),
        ("2/√π · exp(−{a}²)",),
        "erf({a})",
        **_elementwise("erf", dtype="float"),
    )
)


def _gelu(xp: ModuleType, a: Array) -> Array:
    return a * 0.5 * (1.0 + _erf(xp, a * _INV_SQRT_2))


def _gelu_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    cdf = 0.5 * (1.0 + _erf(xp, a * _INV_SQRT_2))
    pdf = xp.exp(-0.5 * a * a) * _INV_SQRT_2PI
    return (g * (cdf + a * pdf),)


GELU = _row(
    Op(
        "gelu",
        "GeluBackward0",
        _gelu,
        _gelu_vjp,
        ("Φ({a}) + {a} · φ({a})",),
        "gelu({a})",
        functional=("gelu",),
    )
)


def _leaky_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (xp.where(xs[0] > 0, g, g * at["slope"]),)


LEAKY_RELU = _row(
    Op(
        "leaky_relu",
        "LeakyReluBackward0",
        lambda xp, a, slope: xp.where(a > 0, a, a * slope),
        _leaky_vjp,
        ("[{a} > 0] + {slope} · [{a} ≤ 0]",),
        "leaky_relu({a})",
        functional=("leaky_relu",),
    )
)


def _softplus(xp: ModuleType, a: Array, beta: float, threshold: float) -> Array:
    # PyTorch: x for beta·x > threshold, else log(1 + e^(beta·x)) / beta
    z = a * beta
    return xp.where(z > threshold, a, xp.log1p(xp.exp(xp.minimum(z, threshold))) / beta)


def _softplus_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    z = xs[0] * at["beta"]
    e = xp.exp(xp.minimum(z, at["threshold"]))
    return (xp.where(z > at["threshold"], g, g * e / (1 + e)),)


SOFTPLUS = _row(
    Op(
        "softplus",
        "SoftplusBackward0",
        _softplus,
        _softplus_vjp,
        ("σ({beta} · {a})",),
        "softplus({a})",
        functional=("softplus",),
    )
)


def _elu_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (xp.where(xs[0] > 0, g, g * (out + at["alpha"])),)


ELU = _row(
    Op(
        "elu",
        "EluBackward0",
        lambda xp, a, alpha: xp.where(a > 0, a, alpha * xp.expm1(xp.minimum(a, 0))),
        _elu_vjp,
        ("[{a} > 0] + ({out} + {alpha}) · [{a} ≤ 0]",),
        "elu({a})",
        saves="both",
        functional=("elu",),
    )
)


def _silu_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    s = _sigmoid(xp, xs[0])
    return (g * s * (1 + xs[0] * (1 - s)),)


SILU = _row(
    Op(
        "silu",
        "SiluBackward0",
        lambda xp, a: a * _sigmoid(xp, a),
        _silu_vjp,
        ("σ({a}) · (1 + {a} · (1 − σ({a})))",),
        "silu({a})",
        functional=("silu",),
    )
)


def _relu_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    grad = g * (out > 0)
    # + 0.0 turns g·0's −0. into +0. where dead, as PyTorch's threshold gives (np.where would
    # too, but costs ~10x on a random mask: branch mispredictions); in place where it can be
    grad += 0.0
    return (grad,)


RELU = _row(
    Op(
        "relu",
        "ReluBackward0",
        lambda xp, a: xp.maximum(a, 0),
        _relu_vjp,
        ("[{a} > 0]",),
        "relu({a})",
        saves="out",
        function=("relu",),
        method=("relu",),
        inplace=("relu_",),
        functional=("relu", "relu_"),
        dtype="same",
    )
)


def _clamp_fwd(xp: ModuleType, a: Array, lo: Any, hi: Any) -> Array:
    out = a
    if lo is not None:
        out = xp.maximum(out, lo)
    if hi is not None:
        out = xp.minimum(out, hi)
    return out.astype(a.dtype, copy=False)


def _clamp_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, lo, hi = xs[0], at["lo"], at["hi"]
    mask = xp.ones(a.shape, dtype=bool)
    if lo is not None:
        mask &= a >= lo
    if hi is not None:
        mask &= a <= hi
    return (g * mask + 0.0,)  # + 0.0: +0. outside, as PyTorch (g * mask alone gives -0.)


CLAMP = _row(
    Op(
        "clamp",
        "ClampBackward1",
        _clamp_fwd,
        _clamp_vjp,
        ("[{lo} ≤ {a} ≤ {hi}]",),
        "clamp({a})",
        function=("clamp", "clip"),
        method=("clamp", "clip"),
        inplace=("clamp_", "clip_"),
    )
)


def _max_min_vjp(pick_a: Callable[[Array, Array], Array]) -> Callable[..., Grads]:
    def vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
        a, b = xs
        tie = a == b
        half = xp.where(tie, g / 2, g)
        return (
            xp.where(pick_a(a, b) | tie, half, 0) if n[0] else None,
            xp.where(~pick_a(a, b) | tie, half, 0) if n[1] else None,
        )

    return vjp


MAXIMUM = _row(
    Op(
        "maximum",
        "MaximumBackward0",
        lambda xp, a, b: xp.maximum(a, b),
        _max_min_vjp(lambda a, b: a > b),
        ("[{a} ≥ {b}]", "[{b} ≥ {a}]"),
        "max({a}, {b})",
        function=("maximum",),
        method=("maximum",),
        dtype="tensors",
    )
)
MINIMUM = _row(
    Op(
        "minimum",
        "MinimumBackward0",
        lambda xp, a, b: xp.minimum(a, b),
        _max_min_vjp(lambda a, b: a < b),
        ("[{a} ≤ {b}]", "[{b} ≤ {a}]"),
        "min({a}, {b})",
        function=("minimum",),
        method=("minimum",),
        dtype="tensors",
    )
)
WHERE = _row(
    Op(
        "where",
        "WhereBackward0",
        lambda xp, c, a, b: xp.where(c, a, b),
        lambda xp, g, out, xs, at, n: (
            None,
            xp.where(xs[0], g, 0) if n[1] else None,
            xp.where(xs[0], 0, g) if n[2] else None,
        ),
        ("", "[{a}]", "1 − [{a}]"),
        "where({a}, {b}, {c})",
        function=("where", "masked_fill", "tril", "triu"),
        method=("where", "masked_fill", "tril", "triu"),
        inplace=("masked_fill_",),
    )
)


def _round_fwd(xp: ModuleType, a: Array, decimals: int) -> Array:
    return xp.round(a, decimals)


ROUND = _row(
    Op(
        "round",
        "RoundBackward0",
        _round_fwd,
        lambda xp, g, out, xs, at, n: (xp.zeros_like(g),),
        ("0",),
        "round({a})",
        saves="",
        function=("round",),
        method=("round",),
        inplace=("round_",),
    )
)
FLOOR = _row(
    Op(
        "floor",
        "FloorBackward0",
        lambda xp, a: xp.floor(a),
        lambda xp, g, out, xs, at, n: (xp.zeros_like(g),),
        ("0",),
        "⌊{a}⌋",
        saves="",
        **_elementwise("floor", dtype="whole"),
    )
)
CEIL = _row(
    Op(
        "ceil",
        "CeilBackward0",
        lambda xp, a: xp.ceil(a),
        lambda xp, g, out, xs, at, n: (xp.zeros_like(g),),
        ("0",),
        "⌈{a}⌉",
        saves="",
        **_elementwise("ceil", dtype="whole"),
    )
)


def _cumsum_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    d = at["dim"]
    return (xp.flip(xp.cumsum(xp.flip(g, axis=d), axis=d), axis=d),)


CUMSUM = _row(
    Op(
        "cumsum",
        "CumsumBackward0",
        lambda xp, a, dim: xp.cumsum(a, axis=dim),
        _cumsum_vjp,
        ("1 for every later position",),
        "cumsum({a})",
        saves="",
        chain=("reversed cumulative sum of {g}",),
        function=("cumsum",),
        method=("cumsum",),
    )
)


def _cumprod_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    """∂/∂a_i of Σ_j g_j·Π_{k≤j} a_k = (Π_{k<i} a_k)·S_i with S_i = g_i + a_{i+1}·S_{i+1}.

    Without zeros in a (on arrays), the same as the reversed cumulative sum of g·out divided
    by a, in three vectorised calls; otherwise the recurrence, exact with zeros (as PyTorch's
    rule is), one step per position along the dim (and made of recorded operations when the
    backward is itself differentiated)."""
    a, d = xs[0], at["dim"]
    if a.ndim == 0:
        return (g * 1,)
    if (xp is np or type(a).__module__.startswith("cupy")) and bool((a != 0).all()):
        return (xp.flip(xp.cumsum(xp.flip(g * out, axis=d), axis=d), axis=d) / a,)
    size = a.shape[d]
    items = [xp.take(a, i, axis=d) for i in range(size)]
    gs = [xp.take(g, i, axis=d) for i in range(size)]
    tail = [gs[-1]]  # S_i, from the last position back
    for i in range(size - 2, -1, -1):
        tail.append(gs[i] + items[i + 1] * tail[-1])
    tail.reverse()
    parts = [tail[0]]
    before = None  # Π_{k<i} a_k
    for i in range(1, size):
        before = items[i - 1] if before is None else before * items[i - 1]
        parts.append(before * tail[i])
    return (xp.stack(parts, axis=d),)


CUMPROD = _row(
    Op(
        "cumprod",
        "CumprodBackward0",
        lambda xp, a, dim: xp.cumprod(a, axis=dim),
        _cumprod_vjp,
        ("Π of the earlier elements",),
        "cumprod({a})",
        saves="both",
        chain=("Σ over later positions of {g} times Π of the others",),
        function=("cumprod",),
        method=("cumprod",),
    )
)

# --- reductions ---------------------------------------------------------------------------------


def _sum_fwd(xp: ModuleType, a: Array, axis: Any, keepdim: bool) -> Array:
    return a.sum(axis=axis, keepdims=keepdim)


def _prod_fwd(xp: ModuleType, a: Array, axis: Any, keepdim: bool) -> Array:
    return a.prod(axis=axis, keepdims=keepdim)


def _prod_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    """g times the product of the *other* elements, from exclusive running products from
    both ends (exact with zeros, where out / a would divide by zero)."""
    a, axis = xs[0], at["axis"]
    flat, ax = (a.reshape(-1), 0) if axis is None else (a, axis % max(a.ndim, 1))
    if flat.ndim == 0:
        return (g * xp.ones_like(a),)
    edge = list(flat.shape)
    edge[ax] = 1
    one = xp.ones(edge, dtype=a.dtype)
    size = flat.shape[ax]
    lead = (slice(None),) * ax
    before = xp.cumprod(flat, axis=ax)[(*lead, slice(0, size - 1))]
    after = xp.flip(xp.cumprod(xp.flip(flat, ax), axis=ax), ax)[(*lead, slice(1, size))]
    others = xp.concatenate([one, before], axis=ax) * xp.concatenate([after, one], axis=ax)
    grad = _expand_reduced(g, a, axis, at["keepdim"]) * others.reshape(a.shape)
    return (grad,)


PROD = _row(
    Op(
        "prod",
        "ProdBackward0",
        _prod_fwd,
        _prod_vjp,
        ("Π of the other elements",),
        "Π {a}",
        chain=("{g} times the product of the other elements",),
        function=("prod",),
        method=("prod",),
    )
)


def _filled(xp: ModuleType, g: Array, shape: tuple[int, ...]) -> Array:
    """g broadcast to shape, as a fresh array (np.broadcast_to costs ~6 µs a call)."""
    out = xp.empty(shape, dtype=g.dtype)
    out[...] = g
    return out


def _sum_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    return (_filled(xp, _expand_reduced(g, a, at["axis"], at["keepdim"]), a.shape),)


SUM = _row(
    Op(
        "sum",
        "SumBackward0",
        _sum_fwd,
        _sum_vjp,
        ("1",),
        "Σ {a}",
        saves="",
        chain=None,
        function=("sum",),
        method=("sum",),
    )
)


def _mean_fwd(xp: ModuleType, a: Array, axis: Any, keepdim: bool) -> Array:
    # sum / count rather than ndarray.mean, whose Python-level wrapper costs microseconds
    total = a.sum(axis=axis, keepdims=keepdim)
    return total / (a.size // max(total.size, 1) if a.size else 0)


def _mean_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    count = a.size // max(out.size, 1) if a.size else 1
    g = _expand_reduced(g, a, at["axis"], at["keepdim"]) / count
    return (_filled(xp, g, a.shape),)


MEAN = _row(
    Op(
        "mean",
        "MeanBackward0",
        _mean_fwd,
        _mean_vjp,
        ("1/{N}",),
        "mean({a})",
        saves="",
        chain=None,
        function=("mean",),
        method=("mean",),
    )
)


def _amax_fwd(xp: ModuleType, a: Array, axis: Any, keepdim: bool, mode: str) -> Array:
    return (
        a.max(axis=axis, keepdims=keepdim) if mode == "max" else a.min(axis=axis, keepdims=keepdim)
    )


def _amax_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    # PyTorch spreads the gradient evenly over ties for max()/amax() without indices.
    a = xs[0]
    o = _expand_reduced(out, a, at["axis"], at["keepdim"])
    mask = a == o
    count = mask.sum(axis=at["axis"], keepdims=True)
    g = _expand_reduced(g, a, at["axis"], at["keepdim"])
    return (xp.where(mask, g / count, 0).astype(a.dtype, copy=False),)


AMAX = _row(
    Op(
        "amax",
        "AmaxBackward0",
        _amax_fwd,
        _amax_vjp,
        ("[{a} = {out}] / {N}",),
        "max({a})",
        saves="both",
        chain=None,
        function=("amax", "amin", "max", "min"),
        method=("amax", "amin", "max", "min"),
    )
)


def _max_dim_fwd(xp: ModuleType, a: Array, axis: int, keepdim: bool, indices: Array) -> Array:
    return xp.take_along_axis(a, xp.expand_dims(indices, axis), axis).reshape(
        indices.shape if not keepdim else xp.expand_dims(indices, axis).shape
    )


def _max_dim_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, axis = xs[0], at["axis"]
    idx = xp.expand_dims(at["indices"], axis)
    grad = xp.zeros(a.shape, dtype=g.dtype)
    gk = g if at["keepdim"] else xp.expand_dims(g, axis)
    xp.put_along_axis(grad, idx, gk, axis)
    return (grad,)


MAX_DIM = _row(
    Op(
        "max_dim",
        "MaxBackward0",
        _max_dim_fwd,
        _max_dim_vjp,
        ("[{a} is the max]",),
        "max({a}, dim)",
        saves="",
        chain=("{g} to the arg-max of {a}",),
        function=("max", "min"),
        method=("max", "min"),
    )
)


def _rows(kind: str, a: Array, dim: int) -> Array:
    """``a.sum`` or ``a.max`` over ``dim``, keeping it; for a 2-D host array reduced over up
    to 4 columns (the 2- and 3-class logits of the lessons and the train page) as column-wise
    ufunc calls, 5-8x faster than NumPy's short-axis reduction and bit-identical (NumPy adds
    fewer than 8 elements in order)."""
    if a.__class__ is np.ndarray and a.ndim == 2 and dim % 2 == 1 and 1 < a.shape[1] <= 4:
        ufunc = np.add if kind == "sum" else np.maximum
        r = ufunc(a[:, 0], a[:, 1])
        for j in range(2, a.shape[1]):
            ufunc(r, a[:, j], out=r)
        return r[:, None]
    return a.sum(axis=dim, keepdims=True) if kind == "sum" else a.max(axis=dim, keepdims=True)


def _softmax_fwd(xp: ModuleType, a: Array, dim: int) -> Array:
    e = xp.exp(a - _rows("max", a, dim))
    return e / _rows("sum", e, dim)


def _log_softmax_fwd(xp: ModuleType, a: Array, dim: int) -> Array:
    shifted = a - _rows("max", a, dim)
    return shifted - xp.log(_rows("sum", xp.exp(shifted), dim))


# NOTE: softmax and log_softmax get fused rules (not exp/sum/div) for numerical stability.
SOFTMAX = _row(
    Op(
        "softmax",
        "SoftmaxBackward0",
        _softmax_fwd,
        lambda xp, g, out, xs, at, n: (out * (g - _rows("sum", g * out, at["dim"])),),
        ("s · (δ − s)",),
        "softmax({a})",
        saves="out",
        chain=("{out} · ({g} − Σ ({g} · {out}))",),
        function=("softmax",),
        method=("softmax",),
        functional=("softmax",),
    )
)
LOG_SOFTMAX = _row(
    Op(
        "log_softmax",
        "LogSoftmaxBackward0",
        _log_softmax_fwd,
        lambda xp, g, out, xs, at, n: (g - xp.exp(out) * _rows("sum", g, at["dim"]),),
        ("δ − softmax",),
        "log_softmax({a})",
        saves="out",
        chain=("{g} − softmax({a}) · Σ {g}",),
        function=("log_softmax",),
        method=("log_softmax",),
        functional=("log_softmax",),
    )
)

# --- linear algebra -----------------------------------------------------------------------------


def _mm(a: Array, b: Array) -> Array:
    """a @ b; for 2-D operands with one inner column and a result of at least 2x2, as the
    exact products a * b, as PyTorch's kernel for that case computes them (so 0 · −1 stays
    −0. and prints as PyTorch prints it, e.g. a weight gradient from a batch of one)."""
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == 1 and a.shape[0] > 1 and b.shape[1] > 1:
        return a * b
    return a @ b


def _matmul_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, b = xs
    if a.ndim == 1 and b.ndim == 1:  # dot
        return (g * b if n[0] else None, g * a if n[1] else None)
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    g2 = g
    if a.ndim == 1:
        g2 = xp.expand_dims(g2, -2)
    if b.ndim == 1:
        g2 = xp.expand_dims(g2, -1)
    ga = gb = None
    if n[0]:
        ga = _mm(g2, xp.swapaxes(b2, -1, -2))
        if a.ndim == 1:
            ga = ga.reshape(ga.shape[:-2] + ga.shape[-1:]) if ga.ndim > 2 else ga[0]
        ga = _sum_leading(ga, a.shape)
    if n[1]:
        gb = _mm(xp.swapaxes(a2, -1, -2), g2)
        if b.ndim == 1:
            gb = gb[..., 0]
        gb = _sum_leading(gb, b.shape)
    return ga, gb


def _sum_leading(g: Array, shape: tuple[int, ...]) -> Array:
    """Batched matmul grads: sum over batch dims the operand did not have."""
    while g.ndim > len(shape):
        g = g.sum(axis=0)
    return g


MATMUL = _row(
    Op(
        "matmul",
        "MmBackward0",
        lambda xp, a, b: _mm(a, b),
        _matmul_vjp,
        ("{b}ᵀ", "{a}ᵀ"),
        "{a} @ {b}",
        chain=("{g} @ {b}ᵀ", "{a}ᵀ @ {g}"),
        function=("matmul", "mm", "dot", "mv", "bmm"),
        method=("matmul", "mm", "dot", "mv", "bmm", "__matmul__", "__rmatmul__"),
    )
)


def _linear_fwd(xp: ModuleType, x: Array, w: Array, b: Array | None = None) -> Array:
    out = _mm(x, w.T)
    if b is not None:
        out += b
    return out


def _linear_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    x, w = xs[0], xs[1]
    gx = _mm(g, w) if n[0] else None
    gw = gb = None
    if n[1]:
        if x.ndim == 1:
            gw = xp.outer(g, x)
        else:
            gw = _mm(g.reshape(-1, g.shape[-1]).T, x.reshape(-1, x.shape[-1]))
    if len(xs) > 2 and n[2]:
        gb = sum_rows(xp, g.reshape(-1, g.shape[-1])) if g.ndim > 1 else g
    return (gx, gw, gb) if len(xs) > 2 else (gx, gw)


# One row for nn.Linear / F.linear: PyTorch records AddmmBackward0 (2-D input with bias),
# MmBackward0 (no bias) or ViewBackward0 (other ranks); tensor.py picks the name per call.
LINEAR = _row(
    Op(
        "linear",
        "AddmmBackward0",
        _linear_fwd,
        _linear_vjp,
        ("{b}", "{a}", "1"),
        "{a} @ {b}ᵀ + {c}",
        chain=("{g} @ {b}", "{g}ᵀ @ {a}", "Σ_rows {g}"),
        functional=("linear",),
    )
)


# --- convolution and pooling (1-D and 2-D; one rule for any number of spatial dims) ---------------


def _windows(
    xp: ModuleType,
    a: Array,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    dilation: tuple[int, ...],
    out: tuple[int, ...],
) -> Array:
    """A view of shape ``(*a.shape[:-d], *out, *kernel)``: the window each output position
    reads (the last d axes of ``a`` are the spatial ones, already padded)."""
    d = len(kernel)
    lead = a.shape[:-d]
    strides = a.strides[:-d]
    spatial = a.strides[-d:]
    shape = (*lead, *out, *kernel)
    new = (
        *strides,
        *(s * st for s, st in zip(spatial, stride, strict=True)),
        *(s * dl for s, dl in zip(spatial, dilation, strict=True)),
    )
    return xp.lib.stride_tricks.as_strided(a, shape=shape, strides=new)  # fmt: skip


def _pad_spatial(xp: ModuleType, a: Array, padding: tuple[int, ...], value: float = 0.0) -> Array:
    if not any(padding):
        return a
    widths = [(0, 0)] * (a.ndim - len(padding)) + [(p, p) for p in padding]
    return xp.pad(a, widths, mode="constant", constant_values=value)


def conv_out_size(size: int, k: int, stride: int, pad: int, dil: int, ceil: bool = False) -> int:
    """Output length along one spatial dim (PyTorch's formula; ``ceil`` for pooling's
    ceil_mode, whose last window must start inside the input or its left padding)."""
    span = size + 2 * pad - dil * (k - 1) - 1
    out = (-(-span // stride) if ceil else span // stride) + 1
    if ceil and (out - 1) * stride >= size + pad:
        out -= 1
    return out


def _conv_cols(xp: ModuleType, x: Array, w: Array, at: Any) -> tuple[Array, tuple[int, ...]]:
    """im2col: ``(N, G, P, Cg·K)`` (P output positions, K kernel positions) and the output's
    spatial shape."""
    d = w.ndim - 2
    stride, padding, dilation, groups = at["stride"], at["padding"], at["dilation"], at["groups"]
    kernel = tuple(w.shape[2:])
    xpad = _pad_spatial(xp, x, padding)
    out = tuple(
        conv_out_size(x.shape[2 + i], kernel[i], stride[i], padding[i], dilation[i])
        for i in range(d)
    )
    win = _windows(xp, xpad, kernel, stride, dilation, out)  # (N, C, *out, *kernel)
    n, c = x.shape[0], x.shape[1]
    win = win.reshape(n, groups, c // groups, *out, *kernel)
    order = (0, 1, *range(3, 3 + d), 2, *range(3 + d, 3 + 2 * d))  # (N, G, *out, Cg, *kernel)
    cols = xp.ascontiguousarray(win.transpose(order))
    positions = int(np.prod(out)) if out else 1
    return cols.reshape(n, groups, positions, -1), out


def _conv_fwd(xp: ModuleType, x: Array, w: Array, b: Array | None = None, **at: Any) -> Array:
    groups = at["groups"]
    cols, out = _conv_cols(xp, x, w, at)
    cout = w.shape[0]
    wg = w.reshape(groups, cout // groups, -1)  # (G, Og, Cg·K)
    y = xp.matmul(cols, wg.transpose(0, 2, 1)[None])  # (N, G, P, Og)
    y = y.transpose(0, 1, 3, 2).reshape(x.shape[0], cout, *out)
    if b is not None:
        y += b.reshape((1, cout) + (1,) * len(out))
    return y


def _conv_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    x, w = xs[0], xs[1]
    d = w.ndim - 2
    groups, cout = at["groups"], w.shape[0]
    batch = x.shape[0]
    gg = g.reshape(batch, groups, cout // groups, -1)  # (N, G, Og, P)
    gx = gw = gb = None
    if n[1] or n[0]:
        cols, outsize = _conv_cols(xp, x, w, at)
    if n[1]:
        gw = xp.matmul(gg, cols).sum(axis=0).reshape(w.shape)  # (G, Og, Cg·K)
    if n[0]:
        wg = w.reshape(groups, cout // groups, -1)
        gcols = xp.matmul(gg.transpose(0, 1, 3, 2), wg[None])  # (N, G, P, Cg·K)
        kernel = tuple(w.shape[2:])
        cg = x.shape[1] // groups
        gcols = gcols.reshape(batch, groups, *outsize, cg, *kernel)
        padding, stride, dilation = at["padding"], at["stride"], at["dilation"]
        padded = tuple(x.shape[2 + i] + 2 * padding[i] for i in range(d))
        gpad = xp.zeros((batch, groups, cg, *padded), dtype=g.dtype)
        for offset in np.ndindex(*kernel):  # col2im: each kernel position adds its slice
            where = tuple(
                slice(
                    offset[i] * dilation[i],
                    offset[i] * dilation[i] + stride[i] * (outsize[i] - 1) + 1,
                    stride[i],
                )
                for i in range(d)
            )
            part = gcols[(slice(None), slice(None), *[slice(None)] * d, slice(None), *offset)]
            # part: (N, G, *out, Cg) -> (N, G, Cg, *out)
            part = xp.moveaxis(part, -1, 2)
            gpad[(slice(None), slice(None), slice(None), *where)] += part
        crop = tuple(slice(padding[i], padding[i] + x.shape[2 + i]) for i in range(d))
        gx = gpad.reshape(batch, x.shape[1], *padded)[(slice(None), slice(None), *crop)]
    if len(xs) > 2 and n[2]:
        gb = g.sum(axis=(0, *range(2, 2 + d)))
    return (gx, gw, gb) if len(xs) > 2 else (gx, gw)


# torch.nn.functional.conv1d / conv2d (nn.Conv1d / Conv2d): one row for any number of spatial
# dims, im2col and a matrix product forward, col2im backward (a fused rule: as a composite of
# indexing rows it would be far slower and its graph unreadable).
CONV = _row(
    Op(
        "conv",
        "ConvolutionBackward0",
        _conv_fwd,
        _conv_vjp,
        ("{b} (each window)", "{a} (each window)", "1"),
        "conv({a}, {b})",
        chain=(
            "{g} convolved back through {b} (a transposed convolution)",
            "{g} correlated with {a} over each window",
            "Σ {g} per channel",
        ),
        functional=("conv1d", "conv2d"),
    )
)


def _pool_windows(xp: ModuleType, a: Array, at: Any, fill: float) -> tuple[Array, tuple[int, ...]]:
    kernel, stride, padding = at["kernel"], at["stride"], at["padding"]
    dilation = at.get("dilation", (1,) * len(kernel))
    d = len(kernel)
    out = tuple(
        conv_out_size(a.shape[-d + i], kernel[i], stride[i], padding[i], dilation[i], at["ceil"])
        for i in range(d)
    )
    # room for ceil_mode's last window beyond the right padding
    extra = [
        max(
            0,
            (out[i] - 1) * stride[i]
            + dilation[i] * (kernel[i] - 1)
            + 1
            - (a.shape[-d + i] + 2 * padding[i]),
        )
        for i in range(d)
    ]
    widths = [(0, 0)] * (a.ndim - d) + [(padding[i], padding[i] + extra[i]) for i in range(d)]
    padded = (
        xp.pad(a, widths, mode="constant", constant_values=fill)
        if any(padding) or any(extra)
        else a
    )
    return _windows(xp, padded, kernel, stride, dilation, out), out


def _max_pool_fwd(xp: ModuleType, a: Array, **at: Any) -> Array:
    win, _ = _pool_windows(xp, a, at, -np.inf)
    d = len(at["kernel"])
    return win.max(axis=tuple(range(-d, 0)))


def _max_pool_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    kernel, stride, padding = at["kernel"], at["stride"], at["padding"]
    dilation = at.get("dilation", (1,) * len(kernel))
    d = len(kernel)
    win, outsize = _pool_windows(xp, a, at, -np.inf)
    flat = win.reshape(*win.shape[: win.ndim - d], -1)
    arg = flat.argmax(axis=-1)  # the first maximum of each window, as ATen picks it
    offs = np.unravel_index(arg, kernel) if xp is np else xp.unravel_index(arg, kernel)
    lead = a.shape[:-d]
    grid = xp.indices(outsize)
    index = [ix.reshape(ix.shape + (1,) * d) for ix in xp.indices(lead, sparse=True)]
    for i in range(d):
        index.append(grid[i] * stride[i] + offs[i] * dilation[i] - padding[i])
    grad = xp.zeros(a.shape, dtype=g.dtype)
    index_add(xp, grad, tuple(xp.broadcast_arrays(*index)), g)
    return (grad,)


# F.max_pool1d / max_pool2d (nn.MaxPool1d / MaxPool2d): each window's maximum; its gradient
# goes to the window's first maximum, as in PyTorch.
MAX_POOL = _row(
    Op(
        "max_pool",
        "MaxPool2DWithIndicesBackward0",
        _max_pool_fwd,
        _max_pool_vjp,
        ("1 at each window's maximum",),
        "maxpool({a})",
        chain=("{g} to each window's maximum",),
        functional=("max_pool1d", "max_pool2d"),
    )
)


def _avg_divisor(xp: ModuleType, shape: tuple[int, ...], at: Any, out: tuple[int, ...]) -> Array:
    """Each output position's divisor: the window clipped to the padded input (or, without
    ``count_include_pad``, to the input), or ``divisor_override``."""
    if at.get("divisor") is not None:
        return np.asarray(float(at["divisor"]))
    kernel, stride, padding = at["kernel"], at["stride"], at["padding"]
    d = len(kernel)
    total = np.ones(out, dtype=np.float64)
    for i in range(d):
        size = shape[-d + i]
        start = np.arange(out[i]) * stride[i] - padding[i]
        end = np.minimum(start + kernel[i], size + padding[i])
        if not at["count_include_pad"]:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        count = (end - start).astype(np.float64)
        total = total * count.reshape((-1,) + (1,) * (d - 1 - i))
    return total


def _avg_pool_fwd(xp: ModuleType, a: Array, **at: Any) -> Array:
    win, out = _pool_windows(xp, a, at, 0.0)
    d = len(at["kernel"])
    summed = win.sum(axis=tuple(range(-d, 0)))
    return (summed / xp.asarray(_avg_divisor(xp, a.shape, at, out))).astype(a.dtype)


def _avg_pool_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    kernel, stride, padding = at["kernel"], at["stride"], at["padding"]
    d = len(kernel)
    outsize = g.shape[-d:]
    share = (g / xp.asarray(_avg_divisor(xp, a.shape, at, outsize))).astype(g.dtype)
    padded = tuple(
        max(a.shape[-d + i] + 2 * padding[i], (outsize[i] - 1) * stride[i] + kernel[i])
        for i in range(d)
    )
    gpad = xp.zeros((*a.shape[:-d], *padded), dtype=g.dtype)
    lead = (slice(None),) * (a.ndim - d)
    for offset in np.ndindex(*kernel):
        where = tuple(
            slice(offset[i], offset[i] + stride[i] * (outsize[i] - 1) + 1, stride[i])
            for i in range(d)
        )
        gpad[(*lead, *where)] += share
    crop = tuple(slice(padding[i], padding[i] + a.shape[-d + i]) for i in range(d))
    return (gpad[(*lead, *crop)],)


# F.avg_pool1d / avg_pool2d (nn.AvgPool1d / AvgPool2d): each window's mean.
AVG_POOL = _row(
    Op(
        "avg_pool",
        "AvgPool2DBackward0",
        _avg_pool_fwd,
        _avg_pool_vjp,
        ("1/(window size) in each window",),
        "avgpool({a})",
        saves="",
        chain=("{g} shared out over each window",),
        functional=("avg_pool1d", "avg_pool2d"),
    )
)


def _inv_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    t = xp.swapaxes(out, -1, -2)
    return (-(t @ g @ t),)


# torch.linalg.inv: d(A⁻¹) = −A⁻¹ dA A⁻¹, so the gradient is −A⁻ᵀ g A⁻ᵀ.
INV = _row(
    Op(
        "inv",
        "LinalgInvExBackward0",
        lambda xp, a: xp.linalg.inv(a),
        _inv_vjp,
        ("−{out}ᵀ on the left and {out}ᵀ on the right",),
        "{a}⁻¹",
        saves="out",
        chain=("−{out}ᵀ @ {g} @ {out}ᵀ",),
    )
)


def _det_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    inv_t = xp.swapaxes(xp.linalg.inv(xs[0]), -1, -2)
    return ((g * out)[..., None, None] * inv_t,)


# torch.linalg.det: d det(A) = det(A) tr(A⁻¹ dA), so the gradient is g·det(A)·A⁻ᵀ.
DET = _row(
    Op(
        "det",
        "LinalgDetBackward0",
        lambda xp, a: xp.asarray(xp.linalg.det(a), dtype=a.dtype),
        _det_vjp,
        ("det({a}) · ({a}^(−1))ᵀ",),
        "det({a})",
        saves="both",
        chain=("{g} · det({a}) · ({a}^(−1))ᵀ",),
    )
)


def _diag_index(xp: ModuleType, rows: int, cols: int, k: int) -> tuple[Array, Array]:
    """The (row, column) indices of diagonal k of a rows x cols matrix."""
    n = max(0, min(rows - max(-k, 0), cols - max(k, 0)))
    i = xp.arange(n)
    return i + max(-k, 0), i + max(k, 0)


def _diag_fwd(xp: ModuleType, a: Array, k: int) -> Array:
    return xp.diag(a, k)


def _diag_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, k = xs[0], at["k"]
    if a.ndim == 1:  # the vector was put on diagonal k: its gradient is read back from there
        return (g[_diag_index(np, g.shape[0], g.shape[1], k)],)
    grad = xp.zeros(a.shape, dtype=g.dtype)  # diagonal k was read: g goes back there
    index_add(xp, grad, _diag_index(np, a.shape[0], a.shape[1], k), g)
    return (grad,)


# torch.diag: a vector to a diagonal matrix (DiagEmbedBackward0) or a matrix's diagonal
# (DiagonalBackward0_copy, as PyTorch 2.13 names it); functions.diag picks the name.
DIAG = _row(
    Op(
        "diag",
        "DiagEmbedBackward0",
        _diag_fwd,
        _diag_vjp,
        ("1 on the diagonal",),
        "diag({a})",
        saves="",
        chain=("{g} on the diagonal",),
        function=("diag",),
        method=("diag",),
    )
)


def _einsum_fwd(xp: ModuleType, *arrays: Array, equation: str, inputs: Any, output: str) -> Array:
    return xp.einsum(equation, *arrays)


def _einsum_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    """Operand k's gradient is itself an einsum: g with the other operands, to k's indices
    (indices of k that appear nowhere else were summed: their gradient is g broadcast)."""
    inputs, output = at["inputs"], at["output"]
    grads: list[Array | None] = []
    for k, (sub, x) in enumerate(zip(inputs, xs, strict=True)):
        if not n[k]:
            grads.append(None)
            continue
        others = [s for j, s in enumerate(inputs) if j != k]
        seen = set(output).union(*others)
        kept = "".join(c for c in sub if c in seen)
        operands = [g, *(x2 for j, x2 in enumerate(xs) if j != k)]
        r = xp.einsum(",".join([output, *others]) + "->" + kept, *operands)
        if kept != sub:  # summed-away indices: broadcast back over them
            shape = [x.shape[i] if c in seen else 1 for i, c in enumerate(sub)]
            r = xp.broadcast_to(r.reshape(shape), x.shape)
        grads.append(r)
    return tuple(grads)


# torch.einsum for equations of letters (no ellipsis, no index repeated within one operand).
# PyTorch records the last operation of its decomposition: ViewBackward0 for contractions,
# MulBackward0 for products without one, SumBackward1 / PermuteBackward0 for one operand;
# functions.einsum picks the name.
EINSUM = _row(
    Op(
        "einsum",
        "ViewBackward0",
        _einsum_fwd,
        _einsum_vjp,
        ("the other operands",),
        "einsum({a}, …)",
        chain=tuple("einsum of {g} with the other operands" for _ in range(8)),
        function=("einsum",),
    )
)

# --- shape and indexing -------------------------------------------------------------------------


def _view_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (g.reshape(xs[0].shape),)


VIEW = _row(
    Op(
        "view",
        "ViewBackward0",
        lambda xp, a, shape: a.reshape(shape),
        _view_vjp,
        ("1",),
        "{a}.view",
        saves="",
        chain=("{g} reshaped to the shape of {a}",),
        function=("reshape", "flatten", "squeeze", "unsqueeze"),
        method=("reshape", "view", "view_as", "reshape_as", "flatten", "squeeze", "unsqueeze"),
    )
)


def _permute_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (xp.transpose(g, np.argsort(at["dims"])),)


PERMUTE = _row(
    Op(
        "permute",
        "PermuteBackward0",
        lambda xp, a, dims: xp.transpose(a, dims),
        _permute_vjp,
        ("1",),
        "{a}ᵀ",
        saves="",
        chain=("{g} permuted back",),
        function=("permute", "transpose", "swapaxes", "t"),
        method=("permute", "transpose", "swapaxes", "t", "T", "mT"),
    )
)


def _expand_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (g,)  # the backward loop sums the broadcast dimensions away


EXPAND = _row(
    Op(
        "expand",
        "ExpandBackward0",
        lambda xp, a, shape: xp.broadcast_to(a, shape),
        _expand_vjp,
        ("1",),
        "{a}.expand",
        saves="",
        chain=("{g} summed over the expanded dims",),
        function=("broadcast_to",),
        method=("expand", "expand_as", "broadcast_to"),
    )
)


def _getitem_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    grad = xp.zeros(xs[0].shape, dtype=g.dtype)
    index = at["index"]
    if at["advanced"]:
        index_add(xp, grad, index, g)
    else:
        grad[index] = g
    return (grad,)


def _scatter_fwd(xp: ModuleType, g: Array, shape: Any, index: Any, advanced: bool) -> Array:
    """Zeros of ``shape`` with g placed at ``index`` (summed where advanced indices repeat)."""
    return _getitem_vjp(xp, g, None, [xp.empty(shape, dtype=g.dtype)], {"index": index,
                        "advanced": advanced}, [True])[0]  # fmt: skip


# The backward of indexing, as an op of its own: higher-order gradients (create_graph=True)
# record it, and its own backward is indexing again. PyTorch names it per kind of index
# (SliceBackwardBackward0, SelectBackwardBackward0, IndexPutImplBackward0); see higher.py.
# Not in OPS: no user call reaches it directly; tests/unit/test_higher_order.py checks it.
SCATTER = Op(
    "scatter",
    "IndexPutImplBackward0",
    _scatter_fwd,
    lambda xp, g, out, xs, at, n: (g[at["index"]],),
    ("1 from the indexed place",),
    "{a} placed at […]",
    saves="",
    chain=("{g} at the indexed positions",),
)

GETITEM = _row(
    Op(
        "getitem",
        "SelectBackward0",
        lambda xp, a, index, advanced: a[index],
        _getitem_vjp,
        ("1 at the indexed place",),
        "{a}[…]",
        saves="",
        chain=("{g} placed back at the indexed positions of {a}",),
        function=("index_select", "narrow", "split", "chunk", "unbind"),
        method=("__getitem__", "index_select", "narrow", "split", "chunk", "unbind"),
    )
)


def _index_put_fwd(xp: ModuleType, a: Array, value: Array, index: Any, advanced: bool) -> Array:
    out = a.copy()
    out[index] = value
    return out


def _index_put_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    ga = gv = None
    if n[0]:  # what was overwritten receives nothing
        ga = g.copy()
        ga[at["index"]] = 0
    if n[1]:  # the value receives what reached the places it was written to
        gv = g[at["index"]]
    return (ga, gv)


# ``y[index] = value`` on a tensor in a graph (``dlogits[range(n), Yb] -= 1``): PyTorch's
# IndexPutBackward0 (advanced index) or CopySlices (basic index); functions.py names it.
INDEX_PUT = _row(
    Op(
        "index_put",
        "IndexPutBackward0",
        _index_put_fwd,
        _index_put_vjp,
        ("1 where not overwritten", "1 at the written places"),
        "{a}[…] = {b}",
        saves="",
        chain=("{g} where not overwritten", "{g} at the written places"),
    )
)


def _gather_index(xp: ModuleType, index: Array, dim: int) -> tuple[Array, ...]:
    idx = list(xp.indices(index.shape, sparse=True))
    idx[dim] = index
    return tuple(idx)


def _gather_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    grad = xp.zeros(xs[0].shape, dtype=g.dtype)
    index_add(xp, grad, _gather_index(xp, at["index"], at["dim"]), g)
    return (grad,)


GATHER = _row(
    Op(
        "gather",
        "GatherBackward0",
        lambda xp, a, dim, index: a[_gather_index(xp, index, dim)],
        _gather_vjp,
        ("1 at the gathered places",),
        "gather({a})",
        saves="",
        chain=("{g} scattered back into {a}",),
        function=("gather", "sort", "topk"),
        method=("gather", "sort", "topk"),
    )
)


def _scatter_put_fwd(
    xp: ModuleType, a: Array, src: Array, dim: int, index: Array, reduce: str
) -> Array:
    out = a.copy()
    where = _gather_index(xp, index, dim)
    if reduce == "add":
        index_add(xp, out, where, src[tuple(slice(0, s) for s in index.shape)])
    else:
        out[where] = src[tuple(slice(0, s) for s in index.shape)]
    return out


def _scatter_put_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    where = _gather_index(xp, at["index"], at["dim"])
    ga = gs = None
    if n[0]:
        ga = g.copy()
        if at["reduce"] != "add":
            ga[where] = 0  # overwritten
    if n[1]:
        gs = xp.zeros(xs[1].shape, dtype=g.dtype)
        gs[tuple(slice(0, s) for s in at["index"].shape)] = g[where]
    return (ga, gs)


# Tensor.scatter / scatter_add (and their in-place forms): src's values written, or added, into
# a copy of the input at index along dim (ScatterBackward0 / ScatterAddBackward0).
SCATTER_PUT = _row(
    Op(
        "scatter_put",
        "ScatterAddBackward0",
        _scatter_put_fwd,
        _scatter_put_vjp,
        ("1 (0 where overwritten)", "1 at the scattered places"),
        "scatter({a}, {b})",
        saves="",
        chain=("{g} (0 where overwritten)", "{g} gathered at the index"),
    )
)


def _cat_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    dim = at["dim"]
    bounds = np.cumsum([x.shape[dim] for x in xs])[:-1]
    parts = xp.split(g, bounds, axis=dim)
    return tuple(p if need else None for p, need in zip(parts, n, strict=True))


CAT = _row(
    Op(
        "cat",
        "CatBackward0",
        lambda xp, *arrays, dim: xp.concatenate(arrays, axis=dim),
        _cat_vjp,
        ("1",),
        "cat(…)",
        saves="",
        chain=("the slice of {g} for this input",),
        function=("cat", "concat", "concatenate", "hstack", "vstack", "row_stack"),
    )
)


def _stack_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    dim = at["dim"]
    return tuple(xp.take(g, i, axis=dim) if need else None for i, need in enumerate(n))


STACK = _row(
    Op(
        "stack",
        "StackBackward0",
        lambda xp, *arrays, dim: xp.stack(arrays, axis=dim),
        _stack_vjp,
        ("1",),
        "stack(…)",
        saves="",
        chain=("the slice of {g} for this input",),
        function=("stack",),
    )
)
CLONE = _row(
    Op(
        "clone",
        "CloneBackward0",
        lambda xp, a: a.copy(),
        lambda xp, g, out, xs, at, n: (g,),
        ("1",),
        "{a}.clone()",
        saves="",
        function=("clone",),
        method=("clone", "contiguous"),
        dtype="same",
    )
)


def _to_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (move(g, device_of(xs[0])).astype(xs[0].dtype, copy=False),)


TO_COPY = _row(
    Op(
        "to",
        "ToCopyBackward0",
        lambda xp, a, dtype: a.astype(dtype),
        _to_vjp,
        ("1",),
        "{a}.to(…)",
        saves="",
        method=("to", "float", "double", "half", "type", "type_as", "cpu", "cuda"),
    )
)

# --- losses (fused: one node each, as PyTorch records them) -------------------------------------


def _reduce(xp: ModuleType, loss: Array, reduction: str) -> Array:
    if reduction == "mean":
        return loss.sum() / loss.size
    if reduction == "sum":
        return loss.sum()
    return loss


def _reduce_grad(g: Array, like: Array, reduction: str) -> Array:
    if reduction == "mean":
        return g / max(like.size, 1)
    return g


def _mse_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, b = xs
    diff = a - b
    scale = 2.0 / diff.size if at["reduction"] == "mean" and diff.size else 2.0
    d = diff * (g * scale)
    return (d if n[0] else None, -d if n[1] else None)


def _mse_fwd(xp: ModuleType, a: Array, b: Array, reduction: str) -> Array:
    d = a - b
    return _reduce(xp, d * d, reduction)


# --- normalization ---------------------------------------------------------------------------
# One rule for layer norm (statistics over the last k axes of each sample) and batch norm
# (over the batch axes of each channel): x̂ = (x − mean) / √(var + eps), out = x̂·w + b, with
# the biased variance. Batch norm in eval mode normalizes with given running statistics.


def _norm_stats(xp: ModuleType, x: Array, at: Any) -> tuple[Array, Array]:
    """(mean, 1/√(var + eps)) with reduced axes kept, from x or from the given statistics."""
    axes = at["axes"]
    if at.get("mean") is not None:  # batch norm in eval mode: running statistics
        shape = [1] * x.ndim
        shape[1] = -1
        mean = at["mean"].reshape(shape)
        return mean, 1 / xp.sqrt(at["var"].reshape(shape) + at["eps"])
    mean = x.mean(axis=axes, keepdims=True)
    d = x - mean
    var = (d * d).mean(axis=axes, keepdims=True)
    return mean, 1 / xp.sqrt(var + at["eps"])


def _affine(at: Any, ndim: int, w: Array) -> Array:
    """w shaped to broadcast against x: trailing for layer norm, along axis 1 for batch norm."""
    if at.get("channel_axis") is None:
        return w
    shape = [1] * ndim
    shape[1] = -1
    return w.reshape(shape)


def _normalize_fwd(xp: ModuleType, x: Array, *wb: Array, **at: Any) -> Array:
    mean, rstd = _norm_stats(xp, x, at)
    out = (x - mean) * rstd
    if wb:
        out = out * _affine(at, x.ndim, wb[0]) + _affine(at, x.ndim, wb[1])
    return out


def _normalize_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    x = xs[0]
    axes = at["axes"]
    mean, rstd = _norm_stats(xp, x, at)
    xhat = (x - mean) * rstd
    gxhat = g * _affine(at, x.ndim, xs[1]) if len(xs) > 1 else g
    gx = None
    if n[0]:
        if at.get("mean") is not None:  # fixed statistics: an affine map of x
            gx = gxhat * rstd
        else:
            m1 = gxhat.mean(axis=axes, keepdims=True)
            m2 = (gxhat * xhat).mean(axis=axes, keepdims=True)
            gx = (gxhat - m1 - xhat * m2) * rstd
    if len(xs) == 1:
        return (gx,)
    gw = gb = None
    if at.get("channel_axis") is not None:  # per channel: sum over every other axis
        other = tuple(a for a in range(x.ndim) if a != 1)
        gw = (g * xhat).sum(axis=other) if n[1] else None
        gb = g.sum(axis=other) if n[2] else None
    else:  # per normalized element: the backward loop sums the leading axes away
        gw = g * xhat if n[1] else None
        gb = g if n[2] else None
    return gx, gw, gb


LAYER_NORM = _row(
    Op(
        "layer_norm",
        "NativeLayerNormBackward0",
        _normalize_fwd,
        _normalize_vjp,
        ("(1 − 1/N − x̂²/N)/σ", "x̂", "1"),
        "layer_norm({a})",
        chain=("(ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂))/σ", "Σ ({g} · x̂)", "Σ {g}"),
        functional=("layer_norm",),
    )
)
BATCH_NORM = _row(
    Op(
        "batch_norm",
        "NativeBatchNormBackward0",
        _normalize_fwd,
        _normalize_vjp,
        ("(1 − 1/N − x̂²/N)/σ", "x̂", "1"),
        "batch_norm({a})",
        chain=("(ĝ − mean(ĝ) − x̂ · mean(ĝ · x̂))/σ", "Σ ({g} · x̂)", "Σ {g}"),
        functional=("batch_norm",),
    )
)


def _huber_terms(xp: ModuleType, d: Array, at: Any) -> tuple[Array, Array]:
    """(loss, d loss / d d) elementwise: quadratic within delta (beta), linear outside."""
    delta = at["delta"]
    ad = xp.abs(d)
    small = ad < delta
    if at["kind"] == "huber":
        return (xp.where(small, 0.5 * d * d, delta * (ad - 0.5 * delta)),
                xp.where(small, d, delta * xp.sign(d)))  # fmt: skip
    return (xp.where(small, 0.5 * d * d / delta, ad - 0.5 * delta),
            xp.where(small, d / delta, xp.sign(d)))  # fmt: skip


def _huber_fwd(xp: ModuleType, a: Array, b: Array, **at: Any) -> Array:
    loss, _ = _huber_terms(xp, a - b, at)
    return _reduce(xp, loss, at["reduction"]).astype(a.dtype, copy=False)


def _huber_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, b = xs
    _, slope = _huber_terms(xp, a - b, at)
    d = slope * _reduce_grad(g, a, at["reduction"])
    return (d if n[0] else None, -d if n[1] else None)


HUBER = _row(
    Op(
        "huber_loss",
        "HuberLossBackward0",
        _huber_fwd,
        _huber_vjp,
        ("clip({a} − {b}, −{delta}, {delta})/{N}", "−clip({a} − {b}, −{delta}, {delta})/{N}"),
        "huber({a}, {b})",
        functional=("huber_loss",),
    )
)
SMOOTH_L1 = _row(
    Op(
        "smooth_l1_loss",
        "SmoothL1LossBackward0",
        _huber_fwd,
        _huber_vjp,
        ("clip(({a} − {b})/{delta}, −1, 1)/{N}", "−clip(({a} − {b})/{delta}, −1, 1)/{N}"),
        "smooth_l1({a}, {b})",
        functional=("smooth_l1_loss",),
    )
)


MSE = _row(
    Op(
        "mse_loss",
        "MseLossBackward0",
        _mse_fwd,
        _mse_vjp,
        ("2 · ({a} − {b})/{N}", "−2 · ({a} − {b})/{N}"),
        "mse({a}, {b})",
        functional=("mse_loss",),
    )
)


def _bce_fwd(xp: ModuleType, p: Array, t: Array, reduction: str) -> Array:
    # PyTorch clamps each log term at -100 so that p = 0 or 1 gives a finite loss.
    with np.errstate(divide="ignore"):
        log_p = xp.maximum(xp.log(p), -100)
        log_1p = xp.maximum(xp.log(1 - p), -100)
    return _reduce(xp, -(t * log_p + (1 - t) * log_1p), reduction).astype(p.dtype, copy=False)


def _bce_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    p, t = xs
    g = _reduce_grad(g, p, at["reduction"])
    gp = g * (p - t) / xp.maximum((1 - p) * p, 1e-12) if n[0] else None
    gt = None
    if n[1]:
        with np.errstate(divide="ignore"):
            gt = g * (xp.maximum(xp.log(1 - p), -100) - xp.maximum(xp.log(p), -100))
    return gp, gt


BCE = _row(
    Op(
        "binary_cross_entropy",
        "BinaryCrossEntropyBackward0",
        _bce_fwd,
        _bce_vjp,
        ("({a} − {b})/({a} · (1 − {a}))/{N}", "ln((1 − {a})/{a})/{N}"),
        "bce({a}, {b})",
        functional=("binary_cross_entropy",),
    )
)


def _bce_logits_fwd(xp: ModuleType, x: Array, t: Array, reduction: str) -> Array:
    # NOTE: max(x, 0) - x·t + log(1 + e^-|x|) is the stable form of -[t·ln σ(x) + (1-t)·ln(1-σ(x))]
    loss = xp.maximum(x, 0) - x * t + xp.log1p(xp.exp(-xp.abs(x)))
    return _reduce(xp, loss, reduction).astype(x.dtype, copy=False)


def _bce_logits_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    x, t = xs
    g = _reduce_grad(g, x, at["reduction"])
    return (g * (_sigmoid(xp, x) - t) if n[0] else None, -g * x if n[1] else None)


BCE_LOGITS = _row(
    Op(
        "binary_cross_entropy_with_logits",
        "BinaryCrossEntropyWithLogitsBackward0",
        _bce_logits_fwd,
        _bce_logits_vjp,
        ("(σ({a}) − {b})/{N}", "−{a}/{N}"),
        "bce_logits({a}, {b})",
        functional=("binary_cross_entropy_with_logits",),
    )
)


def _nll_fwd(
    xp: ModuleType, logp: Array, target: Array, reduction: str, ignore_index: int
) -> Array:
    if logp.ndim == 1:
        picked = -logp[target]
        keep = target != ignore_index
        return picked * keep if reduction == "none" else (picked if keep else picked * np.nan)
    rows = xp.arange(logp.shape[0])
    keep = target != ignore_index
    if reduction == "mean" and keep.all():  # the common case, in fewer NumPy calls (same values)
        return (-logp[rows, target].sum() / xp.int64(logp.shape[0])).astype(logp.dtype)
    safe = xp.where(keep, target, 0)
    picked = -logp[rows, safe] * keep
    if reduction == "none":
        return picked
    if reduction == "sum":
        return picked.sum()
    return (picked.sum() / keep.sum()).astype(logp.dtype)


def _nll_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    logp, target = xs
    grad = xp.zeros(logp.shape, dtype=logp.dtype)
    if logp.ndim == 1:
        grad[target] = -g
        return grad, None
    rows = xp.arange(logp.shape[0])
    keep = target != at["ignore_index"]
    if at["reduction"] == "mean" and keep.all():  # the common case (same values)
        grad[rows, target] = (-g / xp.int64(logp.shape[0])).astype(logp.dtype)
        return grad, None
    safe = xp.where(keep, target, 0)
    if at["reduction"] == "none" or at["reduction"] == "sum":
        scale = -g * keep
    else:
        scale = (-g * keep / keep.sum()).astype(logp.dtype)
    grad[rows, safe] = scale
    return grad, None


NLL = _row(
    Op(
        "nll_loss",
        "NllLossBackward0",
        _nll_fwd,
        _nll_vjp,
        ("−1/N at the target class", ""),
        "nll({a}, {b})",
        saves="",
        chain=("−{g}/N at the target class of each row", ""),
        functional=("nll_loss", "cross_entropy"),
    )
)


# The hot paths (tensor._apply1/_apply2) call ``host`` instead of ``forward(np, ...)`` when set:
# the same NumPy call, one Python frame fewer per op.
for _op, _host in (
    (ADD, operator.add),
    (SUB, operator.sub),
    (MUL, operator.mul),
    (DIV, operator.truediv),
    (EXP, np.exp),
    (LOG, np.log),
    (LOG1P, np.log1p),
    (SQRT, np.sqrt),
    (ABS, np.abs),
    (SIN, np.sin),
    (COS, np.cos),
    (TANH, np.tanh),
    (TAN, np.tan),
    (SINH, np.sinh),
    (COSH, np.cosh),
    (ASIN, np.arcsin),
    (ACOS, np.arccos),
    (ATAN, np.arctan),
    (TRUNC, np.trunc),
    (LOG2, np.log2),
    (LOG10, np.log10),
    (EXPM1, np.expm1),
    (FLOOR, np.floor),
    (CEIL, np.ceil),
):
    object.__setattr__(_op, "host", _host)  # frozen row: set once, at import
