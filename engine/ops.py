"""The primitive table: one row per differentiable primitive, each declared once.

Adding an op:

1. its row: :func:`unary` for an elementwise function of one tensor, else :func:`row` (here,
   or in shape_ops.py, engine/nn/*_ops.py), with the flags below that apply (``bare``, ``tex``,
   ``compare``, ``out``); a row without a ``dtype`` rule also needs its hand-written function
   (``@implements(ROW)`` in engine/functions.py);
2. a case in tests/unit/op_cases.py (the table-driven tests then check its gradient against
   central differences and PyTorch, its captions, its dtypes and its names);
3. nothing else: its functions and methods, ``out=``, its bare name and Compare label,
   engine.higher's ``xp.<name>`` and the page's tables (static/src/generated/ops.gen.ts, which
   ``make`` regenerates: commit it) follow from the row, as tests/unit/test_op_features.py checks.

A row (:class:`Op`) holds everything about a primitive in one place, like PyTorch's
``derivatives.yaml`` or HIPS/autograd's ``defvjp``, and is made by a keyword builder
(:func:`unary` for elementwise functions of one tensor, :func:`row` for the rest), which
derives what follows from the name:

- ``name``     the public name (``mul``); ``grad_fn`` PyTorch's node name, by default the name
               in CamelCase + ``Backward0`` (``log_softmax`` -> ``LogSoftmaxBackward0``);
- ``forward``  ``(xp, *arrays, **attrs) -> array``; a NumPy ufunc given to :func:`unary`
               (``np.exp``) is also the row's ``host`` fast path, which tensor.py's hot paths
               call without the ``xp`` argument;
- ``vjp``      ``(xp, g, out, xs, attrs, needs) -> tuple`` of one gradient per input, ``None``
               where ``needs[i]`` is false (:func:`unary` takes ``(xp, g, out, a) -> grad``).
               Rules are pure functions of (upstream grad, output, inputs, attributes) and may
               return a gradient in the *broadcast* shape: the backward loop sums it back to
               the input's shape, once, for every rule;
- ``graphed``  where the rule cannot run on recorded tensors as it is (``create_graph=True``,
               engine.higher), the rule that does, next to it: ``(hx, node, g, xs)`` with
               ``hx`` engine.higher's tensor kit;
- ``local``    per input, the local derivative as a formula over ``{a}``, ``{b}``, ``{c}`` (the
               inputs), ``{out}``, ``{N}`` (a count: the elements averaged) and attributes
               (``{p}``), shown by the walk's captions; written in recorder.caption's notation
               (``1 − {out}²``, ``[{a} > 0]``), which parses it into a tree: with numbers
               substituted it must evaluate to the rule's result (tests/unit/test_captions.py);
- ``chain``    per input, how the contribution is formed from ``{g}`` (the upstream gradient)
               when it is not simply ``local · g`` (matrix products, reductions, reshapes);
- ``symbol``   how the forward reads, for node labels (``{a} · {b}``; by default ``name({a})``);
- ``saves``    what backward reads: ``""`` nothing, ``"in"`` inputs, ``"out"`` the output,
               ``"both"``. It decides which version counters backward checks, and whether a
               second backward through a freed graph is an error (as in PyTorch).

Where the row appears: in the public API (the registry: ``engine.functions`` makes the simple
functions from it, ``engine.methods`` binds the methods and makes every in-place method,
``engine.__all__`` lists them, and tests/unit/test_registry.py checks every name resolves),
and beyond it (``bare``, ``tex``, ``compare``: tests/unit/test_op_features.py checks them):

- ``names``      builder keyword: names both in ``torch`` and on ``Tensor`` (:func:`unary`:
                 the name and its ``aliases``), the canonical name first;
- ``function`` / ``method``: names only in ``torch`` / only on ``Tensor`` (operators);
- ``inplace``    the in-place methods (``inplace=True``: ``<name>_`` for each of ``names``),
                 made by engine.methods from the function of the same name;
- ``functional`` names in ``torch.nn.functional``;
- ``out``        the ``torch`` names that take PyTorch's ``out=`` (``out=True``: all of them;
                 :func:`unary` rows by default), wrapped by engine.out;
- ``dtype``      how a *generated* function treats its input, for rows simple enough to need no
                 hand-written argument parsing: ``"float"`` integer and bool inputs are taken
                 as float32 (``torch.exp(int_tensor)``), ``"float_only"`` they are refused as
                 PyTorch refuses them (``frac``), ``"same"`` any dtype as it is, ``"whole"``
                 integers are already whole (a copy, as ``floor``); ``"promote"`` a binary op
                 with PyTorch's type promotion (a tensor and a tensor or number), ``"tensors"``
                 the same for two tensors. Rows without it have hand-written functions
                 (argument parsing, PyTorch's overloads) registered under the row's names;
- ``bare``       names a program calls without an import (``exp(-x)``; ``True``: the name):
                 ``torch.<name>``, or ``F.<name>`` if only there (server/program/known.py);
- ``tex``        the TeX of the function its symbol applies (``\\ln`` for ``ln({a})``), which
                 the page uses wherever a caption applies that function;
- ``compare``    op labels of one input (a micrograd ``Value``'s ``_op``, any case) that Compare
                 with PyTorch replays with the row's function (``True``: the name).

Shape and indexing rows live in engine/shape_ops.py, torch.nn's under engine/nn/ (convolution
and pooling in conv_ops.py, losses and normalisation in loss_ops.py, a GRU step's gates in
rnn_ops.py). Composites (``mse``-style helpers in ``nn.functional``, ``rdiv`` ...) are built
from the rows and carry no backward code.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import numpy as np

from engine.backend import erf, index_add

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
    #: the forward on NumPy arrays without the ``xp`` argument (a ufunc such as ``np.tanh``)
    host: Callable[..., Array] | None = None
    #: the rule on recorded tensors where ``vjp`` cannot run on them (see the docstring)
    graphed: Callable[..., Grads] | None = None
    # where the row appears (see the module docstring)
    function: tuple[str, ...] = ()
    method: tuple[str, ...] = ()
    inplace: tuple[str, ...] = ()
    functional: tuple[str, ...] = ()
    dtype: str = ""
    out: tuple[str, ...] = ()
    bare: tuple[str, ...] = ()
    tex: str = ""
    compare: tuple[str, ...] = ()


OPS: dict[str, Op] = {}
#: :func:`unary`'s rows by each torch name (NumPy's too: engine.higher's ``xp.<name>``)
ELEMENTWISE: dict[str, Op] = {}


def _tuple(x: str | tuple[str, ...] | None) -> tuple[str, ...] | None:
    return (x,) if isinstance(x, str) else x


def row(
    name: str,
    forward: Callable[..., Array],
    vjp: Callable[..., Grads],
    *,
    local: str | tuple[str, ...],
    symbol: str | None = None,
    grad_fn: str | None = None,
    saves: str = "in",
    chain: str | tuple[str, ...] | None = None,
    names: tuple[str, ...] = (),
    function: tuple[str, ...] = (),
    method: tuple[str, ...] = (),
    inplace: bool | tuple[str, ...] = (),
    functional: tuple[str, ...] = (),
    dtype: str = "",
    host: Callable[..., Array] | None = None,
    graphed: Callable[..., Grads] | None = None,
    out: bool | tuple[str, ...] = (),
    bare: bool | tuple[str, ...] = (),
    tex: str = "",
    compare: bool | tuple[str, ...] = (),
    table: bool = True,
) -> Op:
    """A row of the table, registered under its name (``table=False``: an op no user call
    reaches, made for engine.higher), with what the module docstring says it derives."""
    functions = (*names, *function)
    op = Op(
        name,
        grad_fn or "".join(p[:1].upper() + p[1:] for p in name.split("_")) + "Backward0",
        forward,
        vjp,
        _tuple(local) or (),
        symbol or f"{name}({{a}})",
        saves,
        _tuple(chain),
        host,
        graphed,
        functions,
        (*names, *method),
        tuple(f"{n}_" for n in names) if inplace is True else inplace or (),
        functional,
        dtype,
        functions if out is True else out or (),
        (name,) if bare is True else bare or (),
        tex,
        (name,) if compare is True else compare or (),
    )
    if table:
        if name in OPS:
            raise RuntimeError(f"op {name!r} is declared twice")
        OPS[name] = op
    return op


def unary(
    name: str,
    forward: Callable[..., Array],
    *,
    vjp: Callable[[ModuleType, Array, Array, Array], Array],
    local: str,
    aliases: tuple[str, ...] = (),
    operators: tuple[str, ...] = (),
    dtype: str = "float",
    out: bool = True,
    **more: Any,
) -> Op:
    """An elementwise row of one tensor: ``torch.<name>``, ``Tensor.<name>`` and
    ``Tensor.<name>_`` for the name and each alias, made from its dtype rule; ``operators``
    are Tensor's operators that record it (``__neg__``); each torch name takes ``out=`` unless
    ``out=False``. ``forward`` is a NumPy ufunc (its namesake in the array module runs on a
    GPU; on the host the ufunc is called directly) or ``(xp, a) -> array``; ``vjp`` is
    ``(xp, g, out, a) -> gradient``."""
    host = forward if isinstance(forward, np.ufunc) else None
    if host is not None:
        ufunc, attr = host, host.__name__
        forward = lambda xp, a: (ufunc if xp is np else getattr(xp, attr))(a)  # noqa: E731
    op = row(
        name,
        forward,
        lambda xp, g, out, xs, at, n: (vjp(xp, g, out, xs[0]),),
        local=local,
        names=(name, *aliases),
        method=operators,
        inplace=True,
        dtype=dtype,
        host=host,
        out=out,
        **more,
    )
    ELEMENTWISE.update(dict.fromkeys(op.function, op))
    return op


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
# fmt: off
ADD = row("add", lambda xp, a, b: a + b,
    lambda xp, g, out, xs, at, n: (g if n[0] else None, g if n[1] else None), local=("1", "1"),
    symbol="{a} + {b}", saves="", names=("add",), method=("__add__", "__radd__", "__iadd__"),
    inplace=True, host=operator.add, out=True)
SUB = row("sub", lambda xp, a, b: a - b,
    lambda xp, g, out, xs, at, n: (g if n[0] else None, -g if n[1] else None), local=("1", "−1"),
    symbol="{a} − {b}", saves="", names=("sub", "subtract"), method=("__sub__", "__isub__"),
    inplace=True, host=operator.sub, out=True)
# scalar - tensor: PyTorch records RsubBackward1 (inputs: the tensor, then the scalar).
RSUB = row("rsub", lambda xp, a, b: b - a,
    lambda xp, g, out, xs, at, n: (-g if n[0] else None, g if n[1] else None),
    grad_fn="RsubBackward1", local=("−1", "1"), symbol="{b} − {a}", saves="", method=("__rsub__",))
MUL = row("mul", lambda xp, a, b: a * b,
    lambda xp, g, out, xs, at, n: (g * xs[1] if n[0] else None, g * xs[0] if n[1] else None),
    local=("{b}", "{a}"), symbol="{a} · {b}", names=("mul", "multiply"), out=True,
    method=("__mul__", "__rmul__", "__imul__"), inplace=True, dtype="promote", host=operator.mul)
DIV = row("div", lambda xp, a, b: a / b,
    lambda xp, g, out, xs, at, n: (g / xs[1] if n[0] else None,
                                   -g * xs[0] / (xs[1] * xs[1]) if n[1] else None),
    local=("1/{b}", "−{a}/{b}²"), symbol="{a} / {b}", names=("div", "divide", "true_divide"),
    method=("__truediv__", "__itruediv__"), inplace=True, host=operator.truediv, out=True)
NEG = unary("neg", np.negative, vjp=lambda xp, g, out, a: -g, local="−1", symbol="−{a}", saves="",
    aliases=("negative",), operators=("__neg__",), dtype="same", compare=("neg", "-"))
RECIPROCAL = unary("reciprocal", lambda xp, a: 1 / a, vjp=lambda xp, g, out, a: -g * out * out,
    local="−1/{a}²", symbol="1/{a}", saves="out", operators=("__rtruediv__",))
# fmt: on


def _pow_scalar(xp: ModuleType, a: Array, p: Any) -> Array:
    """``a ** p`` as PyTorch's CPU kernel computes it: ``a·a·a`` for 3 and ``1/(a·a)`` for −2
    (the same numbers to the bit, and ten times faster than NumPy's ``power``; NumPy itself
    takes the short way for 2, 1/2, −1)."""
    if p == 3:
        return a * a * a
    if p == -2:
        return 1 / (a * a)
    if a.dtype == np.float32 and 4 <= p <= 16 and p == int(p):
        return _whole_power32(a, int(p))
    return a**p


def _whole_power32(a: Array, p: int) -> Array:
    """``a ** p`` of float32 ``a`` for a whole ``p`` above 3, correctly rounded (as PyTorch's
    vectorised ``pow`` gives it but in rare last bits): squarings in float64, whose few
    roundings stay far below float32's, then one rounding to float32. NumPy's float32
    ``power`` is 40x slower here, and one result in nine is a bit off."""
    base = a.astype(np.float64)
    result = None
    while p:
        if p & 1:
            result = base if result is None else result * base
        p >>= 1
        if p:
            base = base * base
    return result.astype(np.float32)  # type: ignore[union-attr]


def _pow_scalar_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    p = at["p"]
    if p == 0:
        return (xp.zeros_like(g),)
    return (g * (p * _pow_scalar(xp, xs[0], p - 1)),)


POW = row("pow", _pow_scalar, _pow_scalar_vjp, local="{p} · {a}^{pm1}", symbol="{a}^{p}",
    names=("pow", "square"), method=("__pow__",), inplace=True, out=True,
    bare=("square",))  # fmt: skip


def _pow_tensor_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a, b = xs
    ga = g * b * a ** (b - 1) if n[0] else None
    gb = None
    if n[1]:
        with np.errstate(divide="ignore", invalid="ignore"):
            gb = g * xp.where((a == 0) & (b >= 0), 0, out * xp.log(a))
    return ga, gb


POW_T = row("pow_tensor", lambda xp, a, b: a**b, _pow_tensor_vjp, grad_fn="PowBackward1",
    local=("{b} · {a}^({b} − 1)", "{out} · ln({a})"), symbol="{a}^{b}", saves="both",
    method=("__pow__",))  # fmt: skip


def _rpow_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    base = at["base"]
    if base == 0:
        return (g * xp.where(xs[0] >= 0, 0, out * -np.inf),)
    return (g * out * np.log(base),)


# fmt: off
RPOW = row("rpow", lambda xp, a, base: base**a, _rpow_vjp, grad_fn="PowBackward2",
    local="{out} · ln({base})", symbol="{base}^{a}", saves="both", method=("__rpow__",))

# --- elementwise functions ----------------------------------------------------------------------
EXP = unary("exp", np.exp, vjp=lambda xp, g, out, a: g * out, local="exp({a})", saves="out",
    bare=True, tex="\\exp", compare=True)
LOG = unary("log", np.log, vjp=lambda xp, g, out, a: g / a, local="1/{a}", symbol="ln({a})",
    bare=True, tex="\\ln", compare=True)
LOG1P = unary("log1p", np.log1p, vjp=lambda xp, g, out, a: g / (1 + a), grad_fn="Log1PBackward0",
    local="1/(1 + {a})", symbol="ln(1 + {a})", bare=True)
SQRT = unary("sqrt", np.sqrt, vjp=lambda xp, g, out, a: g / (2 * out), local="1/(2 · √{a})",
    symbol="√{a}", saves="out", bare=True, compare=True)
RSQRT = unary("rsqrt", lambda xp, a: 1 / xp.sqrt(a),
    vjp=lambda xp, g, out, a: -0.5 * g * out * out * out, local="−1/(2 · {a}^1.5)", symbol="1/√{a}",
    saves="out")
ABS = unary("abs", np.absolute, vjp=lambda xp, g, out, a: g * xp.sign(a), local="sign({a})",
    symbol="|{a}|", aliases=("absolute",), operators=("__abs__",), dtype="same", compare=True)
SIN = unary("sin", np.sin, vjp=lambda xp, g, out, a: g * xp.cos(a), local="cos({a})", bare=True,
    tex="\\sin", compare=True)
COS = unary("cos", np.cos, vjp=lambda xp, g, out, a: -g * xp.sin(a), local="−sin({a})", bare=True,
    tex="\\cos", compare=True)
TANH = unary("tanh", np.tanh, vjp=lambda xp, g, out, a: g * (1 - out * out), local="1 − {out}²",
    saves="out", bare=True, tex="\\tanh", compare=True)
# fmt: on


def _sigmoid(xp: ModuleType, a: Array) -> Array:
    # NOTE: 1/(1+e^-a) as PyTorch's CPU kernel computes it; e^-a may overflow to inf for very
    # negative a, giving exactly 0 as PyTorch does (the engine silences NumPy's FP warnings).
    # The same operations in place in one buffer (a third faster on a layer's activations).
    if xp is not np or a.dtype.kind != "f" or a.ndim == 0:
        return 1 / (1 + xp.exp(-a))
    t = xp.negative(a)
    xp.exp(t, out=t)
    t += 1
    return xp.divide(1, t, out=t)


def _sigmoid_vjp(xp: ModuleType, g: Array, out: Array, a: Array) -> Array:
    """``g · out · (1 − out)``, its products in that order, in one buffer where it can."""
    grad = g * out
    if xp is not np or grad.shape != out.shape or grad.dtype != out.dtype:
        return grad * (1 - out)
    grad *= xp.subtract(1, out, dtype=out.dtype)
    return grad


# fmt: off
SIGMOID = unary("sigmoid", _sigmoid, vjp=_sigmoid_vjp,
    local="{out} · (1 − {out})", symbol="σ({a})", saves="out", bare=True, tex="\\sigma",
    compare=True)
SINH = unary("sinh", np.sinh, vjp=lambda xp, g, out, a: g * xp.cosh(a), local="cosh({a})",
    bare=True, tex="\\sinh")
COSH = unary("cosh", np.cosh, vjp=lambda xp, g, out, a: g * xp.sinh(a), local="sinh({a})",
    bare=True, tex="\\cosh")
ASIN = unary("asin", np.arcsin, vjp=lambda xp, g, out, a: g / xp.sqrt(1 - a * a),
    aliases=("arcsin",), local="1/√(1 − {a}²)", bare=True)
ACOS = unary("acos", np.arccos, vjp=lambda xp, g, out, a: -g / xp.sqrt(1 - a * a),
    aliases=("arccos",), local="−1/√(1 − {a}²)", bare=True)
ATAN = unary("atan", np.arctan, vjp=lambda xp, g, out, a: g / (1 + a * a), aliases=("arctan",),
    local="1/(1 + {a}²)", bare=True)
ASINH = unary("asinh", np.arcsinh, vjp=lambda xp, g, out, a: g / xp.sqrt(1 + a * a),
    aliases=("arcsinh",), local="1/√(1 + {a}²)")
ATANH = unary("atanh", np.arctanh, vjp=lambda xp, g, out, a: g / (1 - a * a),
    aliases=("arctanh",), local="1/(1 − {a}²)")
# trunc's derivative is 0 almost everywhere (PyTorch: zeros), frac's is 1
TRUNC = unary("trunc", np.trunc, vjp=lambda xp, g, out, a: xp.zeros_like(g), aliases=("fix",),
    local="0", saves="", dtype="whole")
FRAC = unary("frac", lambda xp, a: a - xp.trunc(a), vjp=lambda xp, g, out, a: g, local="1",
    saves="", dtype="float_only")
TAN = unary("tan", np.tan, vjp=lambda xp, g, out, a: g * (1 + out * out), local="1 + {out}²",
    saves="out", bare=True, tex="\\tan")
LOG2 = unary("log2", np.log2, vjp=lambda xp, g, out, a: g / (a * math.log(2.0)),
    local="1/({a} · ln(2))", symbol="log₂({a})", bare=True)
LOG10 = unary("log10", np.log10, vjp=lambda xp, g, out, a: g / (a * math.log(10.0)),
    local="1/({a} · ln(10))", symbol="log₁₀({a})", bare=True)
EXPM1 = unary("expm1", np.expm1, vjp=lambda xp, g, out, a: g * (out + 1), local="exp({a})",
    symbol="e^{a} − 1", saves="out", bare=True)
# fmt: on


def _erf(xp: ModuleType, a: Array) -> Array:
    return erf(xp, a)


_SQRT_2_OVER_PI = 2.0 / math.sqrt(math.pi)
_INV_SQRT_2 = 1.0 / math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)

ERF = unary("erf", _erf, vjp=lambda xp, g, out, a: g * _SQRT_2_OVER_PI * xp.exp(-a * a),
    local="2/√π · exp(−{a}²)", bare=True)  # fmt: skip


def _gelu(xp: ModuleType, a: Array) -> Array:
    return a * 0.5 * (1.0 + _erf(xp, a * _INV_SQRT_2))


def _gelu_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    cdf = 0.5 * (1.0 + _erf(xp, a * _INV_SQRT_2))
    pdf = xp.exp(-0.5 * a * a) * _INV_SQRT_2PI
    return (g * (cdf + a * pdf),)


GELU = row("gelu", _gelu, _gelu_vjp, local="Φ({a}) + {a} · φ({a})", functional=("gelu",),
    bare=True)  # fmt: skip


def _leaky_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (xp.where(xs[0] > 0, g, g * at["slope"]),)


LEAKY_RELU = row("leaky_relu", lambda xp, a, slope: xp.where(a > 0, a, a * slope), _leaky_vjp,
    local="[{a} > 0] + {slope} · [{a} ≤ 0]", functional=("leaky_relu",), bare=True)  # fmt: skip


def _softplus(xp: ModuleType, a: Array, beta: float, threshold: float) -> Array:
    # PyTorch: x for beta·x > threshold, else log(1 + e^(beta·x)) / beta
    z = a * beta
    return xp.where(z > threshold, a, xp.log1p(xp.exp(xp.minimum(z, threshold))) / beta)


def _softplus_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    z = xs[0] * at["beta"]
    e = xp.exp(xp.minimum(z, at["threshold"]))
    return (xp.where(z > at["threshold"], g, g * e / (1 + e)),)


SOFTPLUS = row("softplus", _softplus, _softplus_vjp, local="σ({beta} · {a})",
    functional=("softplus",), bare=True)  # fmt: skip


def _elu_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    return (xp.where(xs[0] > 0, g, g * (out + at["alpha"])),)


ELU = row("elu", lambda xp, a, alpha: xp.where(a > 0, a, alpha * xp.expm1(xp.minimum(a, 0))),
    _elu_vjp, local="[{a} > 0] + ({out} + {alpha}) · [{a} ≤ 0]", saves="both",
    functional=("elu",), bare=True)  # fmt: skip


def _silu_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    s = _sigmoid(xp, xs[0])
    return (g * s * (1 + xs[0] * (1 - s)),)


SILU = row("silu", lambda xp, a: a * _sigmoid(xp, a), _silu_vjp,
    local="σ({a}) · (1 + {a} · (1 − σ({a})))", functional=("silu",), bare=True)  # fmt: skip


def _relu_vjp(xp: ModuleType, g: Array, out: Array, a: Array) -> Array:
    grad = g * (out > 0)
    # + 0.0 turns g·0's −0. into +0. where dead, as PyTorch's threshold gives (np.where would
    # too, but costs ~10x on a random mask: branch mispredictions); in place where it can be
    grad += 0.0
    return grad


RELU = unary("relu", lambda xp, a: xp.maximum(a, 0), vjp=_relu_vjp, local="[{a} > 0]", saves="out",
    functional=("relu", "relu_"), dtype="same", out=False, bare=True, compare=True)  # fmt: skip


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


CLAMP = row("clamp", _clamp_fwd, _clamp_vjp, grad_fn="ClampBackward1", local="[{lo} ≤ {a} ≤ {hi}]",
    names=("clamp", "clip"), inplace=True, out=True, bare=True)  # fmt: skip


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


# fmt: off
MAXIMUM = row("maximum", lambda xp, a, b: xp.maximum(a, b), _max_min_vjp(lambda a, b: a > b),
    local=("[{a} ≥ {b}]", "[{b} ≥ {a}]"), symbol="max({a}, {b})", names=("maximum",),
    dtype="tensors", out=True, bare=True)
MINIMUM = row("minimum", lambda xp, a, b: xp.minimum(a, b), _max_min_vjp(lambda a, b: a < b),
    local=("[{a} ≤ {b}]", "[{b} ≤ {a}]"), symbol="min({a}, {b})", names=("minimum",),
    dtype="tensors", out=True, bare=True)
WHERE = row("where", lambda xp, c, a, b: xp.where(c, a, b),
    lambda xp, g, out, xs, at, n: (None, xp.where(xs[0], g, 0) if n[1] else None,
                                   xp.where(xs[0], 0, g) if n[2] else None),
    local=("", "[{a}]", "1 − [{a}]"), symbol="where({a}, {b}, {c})",
    names=("where", "masked_fill", "tril", "triu"), inplace=("masked_fill_",), out=("where",))
# fmt: on


def _round_fwd(xp: ModuleType, a: Array, decimals: int) -> Array:
    return xp.round(a, decimals)


# fmt: off
ROUND = row("round", _round_fwd, lambda xp, g, out, xs, at, n: (xp.zeros_like(g),), local="0",
    saves="", names=("round",), inplace=True, out=True)
FLOOR = unary("floor", np.floor, vjp=lambda xp, g, out, a: xp.zeros_like(g), local="0",
    symbol="⌊{a}⌋", saves="", dtype="whole")
CEIL = unary("ceil", np.ceil, vjp=lambda xp, g, out, a: xp.zeros_like(g), local="0", symbol="⌈{a}⌉",
    saves="", dtype="whole")
# fmt: on


def _cumsum_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    d = at["dim"]
    return (xp.flip(xp.cumsum(xp.flip(g, axis=d), axis=d), axis=d),)


def _cumsum_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """cumsum: the reversed cumulative sum of g (flips are index selections here)."""
    d = (node.attrs or {})["dim"] % g.ndim
    n = g.shape[d]
    lead = (slice(None),) * d
    reverse = hx.tensor(np.arange(n - 1, -1, -1))
    flipped = g.t[(*lead, reverse)]
    result = flipped.cumsum(d)[(*lead, reverse)]
    if result.grad_fn is not None:
        result.grad_fn._name = "FlipBackward0"  # PyTorch flips; we index in reverse
    return (hx.Arr(result),)


CUMSUM = row("cumsum", lambda xp, a, dim: xp.cumsum(a, axis=dim), _cumsum_vjp,
    local="1 for every later position", saves="", chain="reversed cumulative sum of {g}",
    names=("cumsum",), out=True,
    graphed=_cumsum_graphed)  # fmt: skip


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


CUMPROD = row("cumprod", lambda xp, a, dim: xp.cumprod(a, axis=dim), _cumprod_vjp,
    local="Π of the earlier elements", saves="both", out=True,
    chain="Σ over later positions of {g} times Π of the others", names=("cumprod",))  # fmt: skip

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


PROD = row("prod", _prod_fwd, _prod_vjp, local="Π of the other elements", symbol="Π {a}",
    chain="{g} times the product of the other elements", names=("prod",), out=True)  # fmt: skip


def _filled(xp: ModuleType, g: Array, shape: tuple[int, ...]) -> Array:
    """g broadcast to shape, as a fresh array (np.broadcast_to costs ~6 µs a call)."""
    out = xp.empty(shape, dtype=g.dtype)
    out[...] = g
    return out


def _sum_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    return (_filled(xp, _expand_reduced(g, a, at["axis"], at["keepdim"]), a.shape),)


SUM = row("sum", _sum_fwd, _sum_vjp, local="1", symbol="Σ {a}", saves="", names=("sum",),
    out=True)  # fmt: skip


def _mean_fwd(xp: ModuleType, a: Array, axis: Any, keepdim: bool) -> Array:
    # sum / count rather than ndarray.mean, whose Python-level wrapper costs microseconds
    total = a.sum(axis=axis, keepdims=keepdim)
    return total / (a.size // max(total.size, 1) if a.size else 0)


def _mean_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    a = xs[0]
    count = a.size // max(out.size, 1) if a.size else 1
    g = _expand_reduced(g, a, at["axis"], at["keepdim"]) / count
    return (_filled(xp, g, a.shape),)


MEAN = row("mean", _mean_fwd, _mean_vjp, local="1/{N}", saves="", names=("mean",), out=True)


def _var_fwd(
    xp: ModuleType, a: Array, axis: Any, keepdim: bool, count: int, corr: Any, root: bool
) -> Array:
    """var (``root``: std) over ``axis`` as two passes: the mean, then the squared deviations
    summed and divided by ``count − corr``."""
    d = a - _mean_fwd(xp, a, axis, True)
    v = (d * d).sum(axis=axis, keepdims=keepdim) / max(count - corr, 0)
    return xp.sqrt(v) if root else v


def _var_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    """ATen's ``var_backward`` (``2/(N − c) · g · (x − mean)``), after ``std_backward``'s
    ``g / (2 · std)`` (0 where std is 0) for std."""
    a = xs[0]
    if at["root"]:
        g = xp.where(out == 0, 0, g / (out * 2))
    g = _expand_reduced(g, a, at["axis"], at["keepdim"])
    dof = at["count"] - at["corr"]
    factor = 2.0 / dof if dof > 0 else math.inf
    return (factor * g * (a - _mean_fwd(xp, a, at["axis"], True)),)


# torch.var / torch.std: one node each, as PyTorch records them (VarBackward0, StdBackward0)
VAR = row("var", _var_fwd, _var_vjp, saves="both",
    local="2 · (x − mean)/(N − c) or (x − mean)/((N − c) · σ) for std",
    chain="{g} · 2 · (x − mean)/(N − c) or {g} · (x − mean)/((N − c) · σ) for std")  # fmt: skip


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


AMAX = row("amax", _amax_fwd, _amax_vjp, local="[{a} = {out}] / {N}", symbol="max({a})",
    saves="both", names=("amax", "amin", "max", "min"))  # fmt: skip


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


def _max_dim_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """max/min over a dim: g placed at each row's arg-max (Scatter in PyTorch)."""
    at = node.attrs or {}
    axis, idx = at["axis"], np.asarray(at["indices"])
    gk = g if at["keepdim"] else hx.Arr(g.t.unsqueeze(axis))
    grid = list(np.indices(gk.shape, sparse=True))
    grid[axis % len(grid)] = np.expand_dims(idx, axis) if not at["keepdim"] else idx
    return (hx.scatter(gk, tuple(xs[0].shape), tuple(grid), "ScatterBackward0"),)


MAX_DIM = row("max_dim", _max_dim_fwd, _max_dim_vjp, grad_fn="MaxBackward0",
    local="[{a} is the max]", symbol="max({a}, dim)", saves="", chain="{g} to the arg-max of {a}",
    names=("max", "min"),
    graphed=_max_dim_graphed)  # fmt: skip


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


# fmt: off
# NOTE: softmax and log_softmax get fused rules (not exp/sum/div) for numerical stability.
SOFTMAX = row("softmax", _softmax_fwd,
    lambda xp, g, out, xs, at, n: (out * (g - _rows("sum", g * out, at["dim"])),),
    local="s · (δ − s)", saves="out", chain="{out} · ({g} − Σ ({g} · {out}))", names=("softmax",),
    functional=("softmax",))
LOG_SOFTMAX = row("log_softmax", _log_softmax_fwd,
    lambda xp, g, out, xs, at, n: (g - xp.exp(out) * _rows("sum", g, at["dim"]),),
    local="δ − softmax", saves="out", chain="{g} − softmax({a}) · Σ {g}", names=("log_softmax",),
    functional=("log_softmax",))
# fmt: on

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


MATMUL = row("matmul", lambda xp, a, b: _mm(a, b), _matmul_vjp, grad_fn="MmBackward0",
    local=("{b}ᵀ", "{a}ᵀ"), symbol="{a} @ {b}", chain=("{g} @ {b}ᵀ", "{a}ᵀ @ {g}"), out=True,
    names=("matmul", "mm", "dot", "mv", "bmm"), method=("__matmul__", "__rmatmul__"))  # fmt: skip


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
LINEAR = row("linear", _linear_fwd, _linear_vjp, grad_fn="AddmmBackward0",
    local=("{b}", "{a}", "1"), symbol="{a} @ {b}ᵀ + {c}",
    chain=("{g} @ {b}", "{g}ᵀ @ {a}", "Σ_rows {g}"), functional=("linear",))  # fmt: skip


def _inv_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    t = xp.swapaxes(out, -1, -2)
    return (-(t @ g @ t),)


# torch.linalg.inv: d(A⁻¹) = −A⁻¹ dA A⁻¹, so the gradient is −A⁻ᵀ g A⁻ᵀ.
INV = row("inv", lambda xp, a: xp.linalg.inv(a), _inv_vjp, grad_fn="LinalgInvExBackward0",
    local="−{out}ᵀ on each side", symbol="{a}⁻¹", saves="out",
    chain="−{out}ᵀ @ {g} @ {out}ᵀ")  # fmt: skip


def _det_vjp(xp: ModuleType, g: Array, out: Array, xs: Any, at: Any, n: Any) -> Grads:
    inv_t = xp.swapaxes(xp.linalg.inv(xs[0]), -1, -2)
    return ((g * out)[..., None, None] * inv_t,)


def _det_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """det: g · det(A) · A⁻ᵀ, with the inverse recorded (its own row)."""
    a = xs[0].t
    inv_t = hx.apply(INV, (a,)).transpose(-1, -2)
    out = hx.apply(DET, (a,))
    return (hx.Arr((g.t * out).unsqueeze(-1).unsqueeze(-1) * inv_t),)


# torch.linalg.det: d det(A) = det(A) tr(A⁻¹ dA), so the gradient is g·det(A)·A⁻ᵀ.
DET = row("det", lambda xp, a: xp.asarray(xp.linalg.det(a), dtype=a.dtype), _det_vjp,
    grad_fn="LinalgDetBackward0", local="det({a}) · inv({a})ᵀ", saves="both",
    chain="{g} · det({a}) · inv({a})ᵀ",
    graphed=_det_graphed)  # fmt: skip


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


def _diag_graphed(hx: Any, node: Any, g: Any, xs: Any) -> Grads:
    """diag: a vector's gradient is read from the diagonal (indexing, as the array rule);
    a matrix's is g placed on its diagonal (a scatter here, an indexed add there)."""
    x, k = xs[0], (node.attrs or {})["k"]
    if x.ndim == 1:
        return (g[_diag_index(np, g.shape[0], g.shape[1], k)],)
    index = _diag_index(np, x.shape[0], x.shape[1], k)
    return (hx.scatter(g, tuple(x.shape), index, "DiagonalBackwardBackward0"),)


# torch.diag: a vector to a diagonal matrix (DiagEmbedBackward0) or a matrix's diagonal
# (DiagonalBackward0_copy, as PyTorch 2.13 names it); functions.diag picks the name.
DIAG = row("diag", _diag_fwd, _diag_vjp, grad_fn="DiagEmbedBackward0", local="1 on the diagonal",
    saves="", chain="{g} on the diagonal", names=("diag",),
    graphed=_diag_graphed)  # fmt: skip


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
EINSUM = row("einsum", _einsum_fwd, _einsum_vjp, grad_fn="ViewBackward0",
    local="the other operands", symbol="einsum({a}, …)",
    chain=tuple("einsum of {g} with the other operands" for _ in range(8)),
    function=("einsum",))  # fmt: skip
