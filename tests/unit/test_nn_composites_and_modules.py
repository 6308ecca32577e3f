"""The breadth of ``torch.nn`` and ``nn.functional`` the lessons use (issue 18), against PyTorch
2.13: the activations, distances, normalizations and losses added as composites of the table's
rows (values, gradients, second derivatives, ``grad_fn`` names, printed float32 results), the
random streams of channel dropout and Gumbel-softmax, PyTorch's warnings and errors, the
modules' reprs / state_dict keys / initialisation, BatchNorm2d's running statistics and the
containers.

Every tolerance counts roundings by tests/tolerances.py's rules; each says how many and why.
"""

from __future__ import annotations

import re
import warnings
import zlib
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import (
    LIBRARY_FUNCTION,
    U32,
    U64,
    UNFUSED,
    central_differences,
    close,
    magnitude,
    numbers,
    printed_numbers_match,
)
from tests.unit.test_fake_gpu import cupy as fake_cupy  # noqa: F401  (a fixture: CuPy stand-in)

Fn = Callable[..., Any]


def F(lib: Any) -> Any:
    return lib.nn.functional


# ---- the functional composites -----------------------------------------------------------------
#: (fn, input shapes, roundings). ``fn(lib, *tensors)`` runs on engine and torch alike. The
#: roundings bound the difference of the two computations relative to the result's largest
#: element (tests/tolerances.py): both sides' correctly rounded operations, and
#: LIBRARY_FUNCTION for each exp / log / tanh / sigmoid (NumPy's SIMD loops within 4 ulp,
#: PyTorch's within 1); a sum of n terms adds n − 1. The gradient runs the rules of as many
#: operations again, so it gets twice the value's count.
CASES: dict[str, tuple[Fn, list[tuple[int, ...]], float]] = {
    # clamps and shrinks: comparisons and one subtraction or none, on both sides
    "relu6": (lambda T, x: F(T).relu6(x * 4), [(3, 4)], 2),
    "hardtanh": (lambda T, x: F(T).hardtanh(x), [(3, 4)], 2),
    "hardtanh_bounds": (lambda T, x: F(T).hardtanh(x, -0.5, 2.0), [(3, 4)], 2),
    "threshold": (lambda T, x: F(T).threshold(x, 0.1, 20.0), [(3, 4)], 2),
    "hardshrink": (lambda T, x: F(T).hardshrink(x, 0.4), [(3, 4)], 2),
    "softshrink": (lambda T, x: F(T).softshrink(x), [(3, 4)], 2),
    # x·clamp(x + 3, 0, 6)/6 and clamp(x + 3, 0, 6)/6: 3 roundings each side
    "hardswish": (lambda T, x: F(T).hardswish(x * 3), [(3, 4)], 6),
    # PyTorch's float64 gradient multiplies by float32(1/6), ours divides by 6: see the test
    "hardsigmoid": (lambda T, x: F(T).hardsigmoid(x * 3), [(3, 4)], 6),
    # expm1 and two products each side (PyTorch multiplies by alpha·scale, we by alpha then scale)
    "selu": (lambda T, x: F(T).selu(x), [(3, 4)], LIBRARY_FUNCTION + 6),
    "celu": (lambda T, x: F(T).celu(x), [(3, 4)], LIBRARY_FUNCTION + 4),
    # alpha exactly representable in float32: PyTorch's celu backward scales by 1/float(alpha)
    "celu_alpha": (lambda T, x: F(T).celu(x, 0.75), [(3, 4)], LIBRARY_FUNCTION + 6),
    # exp, log1p and tanh, then a product
    "mish": (lambda T, x: F(T).mish(x * 2), [(3, 4)], 3 * LIBRARY_FUNCTION + 4),
    "logsigmoid": (lambda T, x: F(T).logsigmoid(x * 5), [(3, 4)], 2 * LIBRARY_FUNCTION + 4),
    "softsign": (lambda T, x: F(T).softsign(x), [(3, 4)], 6),
    "tanhshrink": (lambda T, x: F(T).tanhshrink(x), [(3, 4)], LIBRARY_FUNCTION + 2),
    # exp per element, a sum of 4, a division
    "softmin": (lambda T, x: F(T).softmin(x, 1), [(3, 4)], LIBRARY_FUNCTION + 8),
    "glu": (lambda T, x: F(T).glu(x), [(3, 6)], LIBRARY_FUNCTION + 4),
    "glu_dim0": (lambda T, x: F(T).glu(x, 0), [(4, 3)], LIBRARY_FUNCTION + 4),
    # the weight's gradient sums x·g over the 6 (per channel) or 24 (shared) elements
    "prelu": (lambda T, x, w: F(T).prelu(x, w), [(2, 4, 3), (4,)], 2 + 5),
    "prelu_shared": (lambda T, x, w: F(T).prelu(x, w), [(2, 4, 3), (1,)], 2 + 23),
    # squares summed over 4 (3 roundings), sqrt, division: 8 each side
    "normalize": (lambda T, x: F(T).normalize(x), [(3, 4)], 16),
    "normalize_p1_dim0": (lambda T, x: F(T).normalize(x, p=1, dim=0), [(3, 4)], 10),
    # two norms (8 each), two divisions, a product, a sum of 4: ~24 each side
    "cosine_similarity": (lambda T, a, b: F(T).cosine_similarity(a, b), [(3, 4), (3, 4)], 48),
    "cosine_broadcast": (
        lambda T, a, b: F(T).cosine_similarity(a, b, dim=-1),
        [(3, 4), (4,)],
        48,
    ),
    # a difference, an addition, squares summed over 4, sqrt (pow for p = 3: LIBRARY_FUNCTION x2)
    "pairwise_distance": (lambda T, a, b: F(T).pairwise_distance(a, b), [(3, 4), (3, 4)], 16),
    "pairwise_p1": (
        lambda T, a, b: F(T).pairwise_distance(a, b, p=1, keepdim=True),
        [(3, 4), (3, 4)],
        12,
    ),
    "pairwise_p3": (
        lambda T, a, b: F(T).pairwise_distance(a, b, p=3),
        [(3, 4), (3, 4)],
        2 * (6 + 2 * LIBRARY_FUNCTION),
    ),
    # log_softmax and softmax (2 library functions and a sum of 4 each), a log for xlogy, a
    # product, a difference and a sum of 12: ~4 library functions and ~25 roundings each side
    "kl_div_batchmean": (
        lambda T, a, b: F(T).kl_div(a.log_softmax(1), b.softmax(1), reduction="batchmean"),
        [(3, 4), (3, 4)],
        2 * (4 * LIBRARY_FUNCTION + 25),
    ),
    "kl_div_none": (
        lambda T, a, b: F(T).kl_div(a.log_softmax(1), b.softmax(1), reduction="none"),
        [(3, 4), (3, 4)],
        2 * (4 * LIBRARY_FUNCTION + 25),
    ),
    # a constant target with a zero in it (xlogy's 0·log 0 = 0)
    "kl_div_constant_target": (
        lambda T, a: F(T).kl_div(
            a.log_softmax(1), T.tensor([0.0, 0.2, 0.3, 0.5], dtype=a.dtype), reduction="sum"
        ),
        [(3, 4)],
        2 * (4 * LIBRARY_FUNCTION + 25),
    ),
    "kl_div_log_target": (
        lambda T, a, b: F(T).kl_div(
            a.log_softmax(1), b.log_softmax(1), reduction="sum", log_target=True
        ),
        [(3, 4), (3, 4)],
        2 * (4 * LIBRARY_FUNCTION + 25),
    ),
    # a product, a difference, an addition, a clamp, a mean of 5
    "margin_ranking": (
        lambda T, a, b: F(T).margin_ranking_loss(
            a, b, T.tensor([1.0, -1.0, 1.0, 1.0, -1.0], dtype=a.dtype), margin=0.2
        ),
        [(5,), (5,)],
        16,
    ),
    "margin_ranking_none": (
        lambda T, a, b: F(T).margin_ranking_loss(
            a, b, T.tensor([1.0, -1.0, 1.0, 1.0, -1.0], dtype=a.dtype), reduction="none"
        ),
        [(5,), (5,)],
        8,
    ),
    # statistics over 18 elements (mean and variance: ~2·17 roundings of the terms), rsqrt,
    # normalization, scale and shift: ~45 each side; PyTorch computes x·(rstd·w) + (b −
    # mean·rstd·w), the same to first order, cancelling to the scale of x·rstd (the magnitude)
    "group_norm": (
        lambda T, x, w, b: F(T).group_norm(x, 2, w, b),
        [(2, 4, 3, 3), (4,), (4,)],
        2 * 45,
    ),
    "group_norm_plain": (lambda T, x: F(T).group_norm(x, 4), [(2, 4, 5)], 2 * 45),
    # batch statistics over 2·4·5 = 40 elements per channel: ~2·39 + 10 each side
    "batch_norm_4d": (
        lambda T, x, w, b: F(T).batch_norm(x, None, None, w, b, training=True),
        [(2, 3, 4, 5), (3,), (3,)],
        2 * 90,
    ),
    # indexing only: the values are copies; a gradient sums at most 9 copies
    "interpolate_x2": (lambda T, x: F(T).interpolate(x, scale_factor=2), [(1, 2, 3, 3)], 8),
    "interpolate_size": (lambda T, x: F(T).interpolate(x, size=(5, 7)), [(1, 2, 3, 3)], 8),
    "interpolate_1_7": (lambda T, x: F(T).interpolate(x, scale_factor=1.7), [(1, 2, 3, 4)], 8),
    "interpolate_down": (lambda T, x: F(T).interpolate(x, size=(2, 3)), [(1, 2, 5, 7)], 8),
    "interpolate_1d": (lambda T, x: F(T).interpolate(x, scale_factor=3), [(1, 2, 3)], 8),
    "interpolate_3d": (lambda T, x: F(T).interpolate(x, size=(3, 2, 5)), [(1, 1, 2, 3, 4)], 8),
    "upsample_module": (
        lambda T, x: T.nn.Upsample(scale_factor=(2, 3))(x),
        [(2, 1, 2, 2)],
        8,
    ),
    "unfold": (lambda T, x: F(T).unfold(x, 2), [(2, 3, 4, 5)], 8),
    "unfold_all_options": (
        lambda T, x: F(T).unfold(x, (2, 3), dilation=(1, 2), padding=1, stride=2),
        [(2, 3, 5, 6)],
        8,
    ),
    # a contraction over 3·4 = 12 products, plus the bias: ~14 roundings each side
    "bilinear": (
        lambda T, a, b, w, bias: F(T).bilinear(a, b, w, bias),
        [(5, 3), (5, 4), (2, 3, 4), (2,)],
        28,
    ),
    "bilinear_batched": (
        lambda T, a, b, w: F(T).bilinear(a, b, w),
        [(2, 5, 3), (2, 5, 4), (2, 3, 4)],
        28,
    ),
    "zero_pad": (lambda T, x: T.nn.ZeroPad2d((1, 2, 0, 1))(x), [(2, 3, 4)], 1),
    "unflatten": (lambda T, x: T.nn.Unflatten(1, (2, -1))(x) * 2, [(3, 6)], 1),
}

#: grad_fn names that PyTorch gives a node of its own and the composite gives its last node;
#: the rest (Softsign's DivBackward0, KL's SubBackward0 ...) are PyTorch's own composites.
CASE_IDS = list(CASES)


def _arrays(name: str, seed: int = 0) -> list[np.ndarray]:
    _, shapes, _ = CASES[name]
    rng = np.random.default_rng([zlib.crc32(name.encode()), seed])  # the same in every run
    return [rng.normal(size=s) for s in shapes]


def _run(lib: Any, name: str, arrays: list[np.ndarray], dtype: Any) -> tuple[Any, list[Any]]:
    fn = CASES[name][0]
    ts = [lib.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    return fn(lib, *ts), ts


@pytest.mark.parametrize("name", CASE_IDS)
def test_composite_gradients_match_central_differences(name: str) -> None:
    """The composites' backward is the derivative of their forward (float64, no PyTorch)."""
    arrays = _arrays(name)
    out, ts = _run(engine, name, arrays, engine.float64)
    g = np.random.default_rng(1).normal(size=tuple(out.shape))
    out.backward(engine.tensor(g, dtype=engine.float64))

    def objective(values: list[np.ndarray]) -> float:
        with engine.no_grad():
            y = CASES[name][0](engine, *(engine.tensor(v, dtype=engine.float64) for v in values))
            return float((y.numpy() * g).sum())

    # Central differences err by eps²/6·|f'''| (~1e-13) plus ~100 float64 roundings of terms
    # summing to <= ~100 over 2·eps: ~5e-7 (tests/unit/test_op_table.py's bound). Samples are
    # normal draws: none lies within eps of a kink (a bound, a threshold, 0 for the norms).
    eps = 1e-6
    for k, a in enumerate(arrays):
        numeric = central_differences(objective, arrays, k, eps)
        grad = ts[k].grad.numpy() if ts[k].grad is not None else np.zeros_like(a)
        np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6, err_msg=f"input {k}")


@pytest.mark.torch
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("name", CASE_IDS)
def test_composites_match_pytorch_in_float64(name: str, seed: int) -> None:
    """Values, gradients, dtypes and ``grad_fn`` names equal PyTorch's (float64)."""
    torch = pytest.importorskip("torch")
    arrays = _arrays(name, seed)
    roundings = CASES[name][2]
    out, ts = _run(engine, name, arrays, engine.float64)
    tout, tts = _run(torch, name, arrays, torch.float64)
    assert tuple(out.shape) == tuple(tout.shape)
    assert type(out.grad_fn).__name__ == type(tout.grad_fn).__name__
    value = tout.detach().numpy()
    np.testing.assert_allclose(
        out.detach().numpy(), value, **close(roundings, magnitude(value), U64)
    )
    g = np.random.default_rng(seed).normal(size=tuple(out.shape))
    out.backward(engine.tensor(g, dtype=engine.float64))
    tout.backward(torch.tensor(g, dtype=torch.float64))
    # hardsigmoid: PyTorch's float64 kernel multiplies the gradient by float32(1/6) (a float
    # constant in its source), one float32 rounding away from 1/6
    unit = U32 if name == "hardsigmoid" else U64
    # A gradient summed over a batch (a shared weight, a bias, a norm's statistics) cancels:
    # its error is at the scale of its terms, g times a local derivative, which is at most
    # about |x| (or 1) in these cases, not at the scale of the result.
    terms = magnitude(g) * max(1.0, *(magnitude(a) for a in arrays))
    for t, tt in zip(ts, tts, strict=True):
        grad = tt.grad.numpy()
        assert t.grad is not None and t.grad.dtype == engine.float64
        np.testing.assert_allclose(
            t.grad.numpy(), grad, **close(2 * roundings, max(magnitude(grad), terms), unit)
        )


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


#: a printed zero with a sign: PyTorch's own sign of a zero differs between its vectorized and
#: scalar loops (softshrink gives −0 inside its band in the scalar loop, +0 in the vector one,
#: so the same call prints either way by CPU and length); the sign of a zero is not compared
_SIGNED_ZERO = re.compile(r"-(0\.0+(?:e[+-]00)?)(?![0-9])")


def _same_print(ours: Any, theirs: Any, roundings: float) -> bool:
    """The same text, numbers within one unit of their last printed digit plus ``roundings``
    of the tensor's largest element (the scale of the errors where terms cancel, as in
    tanhshrink's x − tanh(x) near 0 or a normalization's gradient)."""
    a_text, b_text = repr(ours), repr(theirs)
    a_text, b_text = _SIGNED_ZERO.sub(r" \1", a_text), _SIGNED_ZERO.sub(r" \1", b_text)
    if _NUMBER.split(a_text) != _NUMBER.split(b_text):
        return False
    scale = magnitude(theirs.detach().numpy())
    return all(
        printed_numbers_match(y, x, 0.0) or abs(float(x) - float(y)) <= roundings * U32 * scale
        for x, y in zip(numbers(a_text), numbers(b_text), strict=True)
    )


@pytest.mark.torch
@pytest.mark.parametrize("name", CASE_IDS)
def test_composites_print_as_pytorch_in_float32(name: str) -> None:
    """What a learner prints: the float32 result and gradients, as PyTorch prints them."""
    torch = pytest.importorskip("torch")
    arrays = _arrays(name, 2)
    roundings = CASES[name][2]
    out, ts = _run(engine, name, arrays, engine.float32)
    tout, tts = _run(torch, name, arrays, torch.float32)
    assert out.dtype == engine.float32
    assert _same_print(out, tout, 2 * roundings), (repr(out), repr(tout))
    # weights, not a plain sum: a normalization's output sums to a constant (zero gradient)
    weights = np.linspace(-1.0, 2.0, out.numel()).reshape(tuple(out.shape))
    out.backward(engine.tensor(weights, dtype=engine.float32))
    tout.backward(torch.tensor(weights, dtype=torch.float32))
    for t, tt in zip(ts, tts, strict=True):
        assert _same_print(t.grad, tt.grad, 4 * roundings), (t.grad, tt.grad)


#: Inputs on the kinks, where a composite's subgradient must be PyTorch's (exact values).
EDGES = [-3.0, 3.0, 0.0, 6.0, -1.0, 1.0, 0.5, -0.5, 6.5, -3.5, 0.1, 20.0]


@pytest.mark.torch
@pytest.mark.parametrize(
    "fn",
    [
        lambda T, x: F(T).relu6(x),
        lambda T, x: F(T).hardtanh(x),
        lambda T, x: F(T).hardtanh(x, -3.0, 0.5),
        lambda T, x: F(T).hardswish(x),
        lambda T, x: F(T).hardsigmoid(x),
        lambda T, x: F(T).threshold(x, 0.5, -2.0),
        lambda T, x: F(T).hardshrink(x),
        lambda T, x: F(T).softshrink(x, 1.0),
        lambda T, x: F(T).prelu(x, T.tensor([0.25], dtype=x.dtype)),
        lambda T, x: F(T).margin_ranking_loss(x, T.zeros_like(x), -T.ones_like(x), margin=3.0),
        lambda T, x: F(T).logsigmoid(x),
        lambda T, x: F(T).celu(x, 0.5),
        lambda T, x: F(T).selu(x),
    ],
)
def test_subgradients_on_the_kinks_match_pytorch(fn: Fn) -> None:
    """Exact bounds and thresholds: PyTorch's subgradient (hardtanh's 0 on its bounds,
    hardswish's 0 at −3 and 1 at 3, softshrink's 0 at ±lambda ...), in float32 where the bounds
    are exact. Away from the kinks a few roundings of these small numbers (LIBRARY_FUNCTION +
    4 for logsigmoid's, celu's and selu's exp)."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (engine, torch):
        x = lib.tensor(EDGES, dtype=lib.float32, requires_grad=True)
        y = fn(lib, x)
        y.backward(lib.ones_like(y))
        results.append((y.detach().numpy(), x.grad.numpy()))
    (ey, eg), (ty, tg) = results
    np.testing.assert_allclose(ey, ty, **close(LIBRARY_FUNCTION + 4, magnitude(ty)))
    np.testing.assert_allclose(eg, tg, **close(LIBRARY_FUNCTION + 4, magnitude(tg)))
    assert np.array_equal(eg == 0, tg == 0)  # the subgradient's zeros exactly where PyTorch's


SECOND_ORDER = [
    "hardswish",
    "selu",
    "celu_alpha",
    "mish",
    "logsigmoid",
    "softsign",
    "softmin",
    "glu",
    "normalize",
    "cosine_similarity",
    "pairwise_distance",
    "kl_div_batchmean",
    "group_norm",
    "bilinear",
    "prelu",
]


@pytest.mark.torch
@pytest.mark.parametrize("name", SECOND_ORDER)
def test_second_derivatives_match_pytorch(name: str) -> None:
    """``create_graph=True`` through the composites: the recorded backward differentiates to
    PyTorch's second derivatives (a random linear combination of the gradients, float64)."""
    torch = pytest.importorskip("torch")
    arrays = _arrays(name, 5)
    roundings = CASES[name][2]
    results = []
    for lib in (engine, torch):
        out, ts = _run(lib, name, arrays, lib.float64)
        g = lib.tensor(np.random.default_rng(7).normal(size=tuple(out.shape)), dtype=lib.float64)
        grads = lib.autograd.grad(out, ts, g, create_graph=True)
        rng = np.random.default_rng(11)
        total = sum(
            (gk * lib.tensor(rng.normal(size=a.shape), dtype=lib.float64)).sum()
            for gk, a in zip(grads, arrays, strict=True)
        )
        second = lib.autograd.grad(total, ts, allow_unused=True)
        results.append([s.detach().numpy() if s is not None else None for s in second])
    for e, t in zip(*results, strict=True):
        if t is None:
            assert e is None or not np.any(e)
            continue
        # the backward's rules run twice more: four times the value's roundings
        np.testing.assert_allclose(e, t, **close(4 * roundings, magnitude(t), U64))


# ---- random streams ----------------------------------------------------------------------------


@pytest.mark.torch
@pytest.mark.parametrize(
    "draw",
    [
        lambda T: F(T).dropout2d(T.ones(3, 4, 2, 2), 0.5),
        lambda T: F(T).dropout2d(T.ones(2, 5, 3, 3), 0.2, training=True),
        lambda T: F(T).dropout1d(T.ones(3, 5, 2), 0.3),
        lambda T: F(T).dropout1d(T.ones(5, 2), 0.3),
        lambda T: F(T).dropout2d(T.ones(2, 3, 2, 2), 1.0),
        lambda T: F(T).dropout2d(T.ones(2, 3, 2, 2), 0.5, training=False),
        lambda T: T.nn.Dropout2d(0.25)(T.ones(4, 8, 1, 1)),
        lambda T: T.nn.Dropout1d(0.6)(T.arange(24.0).reshape(2, 4, 3)),
        lambda T: T.nn.Dropout2d(0.5).eval()(T.ones(1, 2, 2, 2)),
    ],
)
def test_channel_dropout_draws_pytorchs_mask(draw: Fn) -> None:
    """One Bernoulli draw per (sample, channel) from the default generator, scaled by 1/(1−p):
    the same channels zeroed as PyTorch's, the kept ones scaled alike (both sides compute
    1/(1−p) in float32 and multiply once: equal), and the stream after it unchanged."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (engine, torch):
        lib.manual_seed(0)
        out = draw(lib).numpy()
        results.append((out, lib.randn(3).numpy()))
    (e, e_next), (t, t_next) = results
    np.testing.assert_array_equal(e, t)
    np.testing.assert_array_equal(e_next, t_next)


@pytest.mark.torch
@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("tau", [1.0, 0.5])
def test_gumbel_softmax_draws_pytorchs_noise(tau: float, hard: bool) -> None:
    """Gumbel noise −log(E), E from ``exponential_()`` on the default generator: the same
    sample as PyTorch's. The draws are equal; log, then softmax's exp and a sum of 6: three
    library functions and ~8 roundings. ``hard`` is the one-hot argmax with the soft gradient."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (engine, torch):
        lib.manual_seed(3)
        logits = lib.randn(4, 6, requires_grad=True)
        y = F(lib).gumbel_softmax(logits, tau=tau, hard=hard)
        (y * lib.arange(24.0).reshape(4, 6)).sum().backward()
        results.append((y.detach().numpy(), logits.grad.numpy(), type(y.grad_fn).__name__))
    (ey, eg, en), (ty, tg, tn) = results
    assert en == tn
    np.testing.assert_allclose(ey, ty, **close(3 * LIBRARY_FUNCTION + 8, magnitude(ty)))
    np.testing.assert_allclose(eg, tg, **close(2 * (3 * LIBRARY_FUNCTION + 8), magnitude(tg)))
    if hard:
        assert set(np.unique(ey)) <= {0.0, 1.0}


# ---- warnings and errors -----------------------------------------------------------------------


def _warned(fn: Fn) -> list[tuple[type, str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fn()
    return [(w.category, str(w.message)) for w in caught]


@pytest.mark.torch
@pytest.mark.parametrize(
    "fn",
    [
        lambda T: F(T).kl_div(T.randn(2, 3).log_softmax(1), T.randn(2, 3).softmax(1)),
        lambda T: F(T).kl_div(T.zeros(2), T.ones(2), size_average=False),
        lambda T: F(T).softmin(T.randn(2, 3)),
        lambda T: T.nn.Softmin()(T.randn(2, 3)),
        lambda T: F(T).gumbel_softmax(T.randn(2, 3), eps=1e-5),
        lambda T: F(T).dropout2d(T.randn(2, 3, 4)),
        lambda T: F(T).dropout2d(T.randn(2, 3)),
        lambda T: T.nn.MarginRankingLoss(size_average=True),
        lambda T: T.nn.Hardtanh(min_value=-2.0),
    ],
)
def test_warnings_are_pytorchs(fn: Fn) -> None:
    torch = pytest.importorskip("torch")
    assert _warned(lambda: fn(engine)) == _warned(lambda: fn(torch))


ERRORS: list[Fn] = [
    lambda T: F(T).glu(T.randn(5)),
    lambda T: F(T).glu(T.randn(2, 5), 1),
    lambda T: F(T).glu(T.tensor(1.0)),
    lambda T: F(T).glu(T.randn(2, 4), 2),
    lambda T: F(T).softshrink(T.randn(3), -0.5),
    lambda T: F(T).hardtanh(T.randn(3), 2.0, 1.0),
    lambda T: F(T).prelu(T.randn(2, 4, 3), T.ones(3)),
    lambda T: F(T).prelu(T.randn(2, 4, 3), T.ones(1, 4)),
    lambda T: F(T).prelu(T.randn(4), T.ones(4)),
    lambda T: F(T).prelu(T.randn(2, 3), T.ones(3, dtype=T.float64)),
    lambda T: F(T).group_norm(T.randn(2, 4, 3), 3),
    lambda T: F(T).group_norm(T.randn(2, 4, 3), 2, T.ones(3)),
    lambda T: F(T).group_norm(T.randn(1, 2), 2),
    lambda T: F(T).group_norm(T.randn(4), 2),
    lambda T: F(T).batch_norm(T.randn(1, 4, 1, 1), T.zeros(4), T.ones(4), training=True),
    lambda T: F(T).batch_norm(T.randn(2, 3, 2, 2), T.zeros(4), T.ones(4)),
    lambda T: F(T).cosine_similarity(T.tensor([1, 2]), T.tensor([2, 3])),
    lambda T: F(T).cosine_similarity(T.randn(2, 3), T.randn(3, 3)),
    lambda T: F(T).pairwise_distance(T.randn(2, 3), T.randn(3, 3)),
    lambda T: F(T).kl_div(T.randn(2, 3), T.randn(2, 3), reduction="average"),
    lambda T: F(T).margin_ranking_loss(T.randn(3), T.randn(3), T.ones(3, 1)),
    lambda T: F(T).margin_ranking_loss(T.randn(3), T.randn(3), T.ones(3), reduction="x"),
    lambda T: F(T).interpolate(T.randn(1, 1, 2, 2), scale_factor=2, align_corners=True),
    lambda T: F(T).interpolate(T.randn(1, 1, 2, 2)),
    lambda T: F(T).interpolate(T.randn(1, 1, 2, 2), size=3, scale_factor=2),
    lambda T: F(T).interpolate(T.randn(2, 2), size=3),
    lambda T: F(T).interpolate(T.randn(1, 1, 2, 2), size=(3,)),
    lambda T: F(T).interpolate(T.randn(1, 1, 2, 2), size=(3, 2.5)),
    lambda T: F(T).interpolate(T.randn(1, 1, 2, 2), scale_factor=(2, 2, 2)),
    lambda T: F(T).interpolate(T.randn(1, 1, 2, 2), size=(3, 3), recompute_scale_factor=True),
    lambda T: F(T).dropout1d(T.randn(2, 2, 2, 2)),
    lambda T: F(T).dropout1d(T.randn(2, 2), -0.1),
    lambda T: F(T).dropout2d(T.randn(2, 2, 2, 2), 1.5),
    lambda T: F(T).bilinear(T.randn(2, 3), T.randn(2, 4), T.randn(5, 3, 3)),
    lambda T: F(T).bilinear(T.randn(2, 3), T.randn(2, 4), T.randn(5, 4, 4)),
    lambda T: F(T).bilinear(T.randn(2, 3), T.randn(3, 4), T.randn(5, 3, 4)),
    lambda T: F(T).bilinear(T.randn(2, 3), T.randn(2, 4, 1), T.randn(5, 3, 4)),
    lambda T: F(T).bilinear(T.randn(2, 3), T.randn(2, 4), T.randn(5, 3, 4), T.randn(4)),
    lambda T: F(T).celu(T.randn(3), 0.0),
    lambda T: F(T).normalize(T.randn(2, 3), dim=2),
    lambda T: F(T).unfold(T.randn(1, 1, 2, 2), 3),
    lambda T: T.nn.GroupNorm(3, 4),
    lambda T: T.nn.Hardtanh(1.0, 1.0),
    lambda T: T.nn.Dropout2d(2),
    lambda T: T.nn.Dropout1d(-1),
    lambda T: T.nn.BatchNorm2d(3)(T.randn(2, 3, 4)),
    lambda T: T.nn.BatchNorm2d(3)(T.randn(2, 4, 2, 2)),
    lambda T: T.nn.Unflatten(1, 3),
    lambda T: T.nn.Unflatten(1, (2, 2.0)),
    lambda T: T.nn.Unflatten(1, (2, 3))(T.randn(2, 5)),
    lambda T: T.nn.ParameterList([T.ones(2)])(1),
    lambda T: T.nn.ParameterList([T.ones(2)])[1],
    lambda T: T.nn.ParameterList().extend(T.ones(2)),
    lambda T: T.nn.ParameterDict({"a": T.ones(1)})(1),
    lambda T: T.nn.ParameterDict({"a": T.ones(1)})[0],
    lambda T: T.nn.ModuleDict({"a": 1}),
    lambda T: T.nn.ModuleDict()["x"],
    lambda T: T.nn.ModuleDict([("a", T.nn.ReLU(), 3)]),
    lambda T: T.nn.ModuleDict({"a.b": T.nn.ReLU()}),
    lambda T: T.nn.Bilinear(0, 2, 3),
    lambda T: T.nn.PReLU(3)(T.randn(2, 4)),
    lambda T: T.nn.SELU()(),
    lambda T: T.nn.GLU()(T.randn(3, 3)),
    lambda T: T.nn.KLDivLoss(reduction="batchmean")(T.randn(2, 3), T.randn(3, 3)),
    lambda T: T.nn.Upsample(scale_factor=2, mode="nearest", align_corners=False)(
        T.randn(1, 1, 2, 2)
    ),
    # the checks one helper makes for several callers (engine/nn/container.py's _pairs,
    # lr_scheduler's _lambdas, the modules that share their base's forward)
    lambda T: T.nn.ModuleDict([3]),
    lambda T: T.nn.ParameterDict([3]),
    lambda T: T.nn.ParameterDict([("a", T.ones(1), 3)]),
    lambda T: T.optim.lr_scheduler.MultiplicativeLR(
        T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1), [lambda e: 0.9] * 2
    ),
    # shapes that do not broadcast: one message (engine.tensor.broadcast_mismatch) for the
    # elementwise ops, a batched matmul and the losses
    lambda T: T.randn(2, 3) + T.randn(4, 3),
    lambda T: T.randn(5, 1, 2, 3) * T.randn(4, 3, 3),
    lambda T: T.randn(2, 2, 3) @ T.randn(3, 3, 4),
    lambda T: T.randn(0, 2, 3) @ T.randn(1, 4, 5),
    lambda T: F(T).mse_loss(T.randn(2, 3), T.randn(4, 3)),
    lambda T: F(T).huber_loss(T.randn(3, 2), T.randn(2, 3)),
    lambda T: T.nn.Conv1d(1, 1, 1)(),
    lambda T: T.nn.MaxPool2d(2)(),
    lambda T: type("MyConv", (T.nn.Conv2d,), {})(1, 1, 1)(),  # a program's subclass
    lambda T: type("MyAct", (T.nn.LeakyReLU,), {})()(),
    lambda T: T.nn.ReLU6()(),  # Hardtanh's forward, in PyTorch too
    lambda T: T.distributions.Bernoulli(),  # distribution.probs_or_logits
    lambda T: T.distributions.Categorical(T.ones(2), T.zeros(2)),
    lambda T: T.nn.LogSoftmax()(),
    lambda T: T.nn.Hardsigmoid()(),
    lambda T: T.nn.AdaptiveAvgPool2d(2)(),
]


@pytest.mark.torch
@pytest.mark.parametrize("fn", ERRORS)
def test_errors_are_pytorchs(fn: Fn) -> None:
    """Wrong arguments: PyTorch's exception type and the first line of its message."""
    torch = pytest.importorskip("torch")
    raised = []
    for lib in (engine, torch):
        with pytest.raises(Exception) as info, warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn(lib)
        raised.append((type(info.value).__name__, str(info.value).split("\n")[0]))
    assert raised[0] == raised[1]


def test_interpolate_says_which_modes_it_has() -> None:
    """Modes other than nearest are PyTorch's, but not the playground's: a clear error."""
    with pytest.raises(NotImplementedError, match=r"mode='bilinear'.*only mode='nearest'"):
        engine.nn.functional.interpolate(engine.randn(1, 1, 2, 2), scale_factor=2, mode="bilinear")
    with pytest.raises(NotImplementedError, match=r"only mode='nearest'"):
        engine.nn.Upsample(scale_factor=2, mode="bicubic")(engine.randn(1, 1, 2, 2))


# ---- modules -----------------------------------------------------------------------------------

MODULES: list[Fn] = [
    lambda nn, T: nn.ReLU6(),
    lambda nn, T: nn.ReLU6(inplace=True),
    lambda nn, T: nn.Hardtanh(),
    lambda nn, T: nn.Hardtanh(-2, 2, True),
    lambda nn, T: nn.PReLU(),
    lambda nn, T: nn.PReLU(3, 0.1),
    lambda nn, T: nn.SELU(),
    lambda nn, T: nn.SELU(True),
    lambda nn, T: nn.CELU(),
    lambda nn, T: nn.CELU(0.5, True),
    lambda nn, T: nn.GLU(),
    lambda nn, T: nn.GLU(0),
    lambda nn, T: nn.Mish(),
    lambda nn, T: nn.Softsign(),
    lambda nn, T: nn.Hardswish(),
    lambda nn, T: nn.Hardsigmoid(True),
    lambda nn, T: nn.Threshold(0.1, 20),
    lambda nn, T: nn.Threshold(0.1, 20.0, True),
    lambda nn, T: nn.Softmin(1),
    lambda nn, T: nn.Softmin(),
    lambda nn, T: nn.LogSigmoid(),
    lambda nn, T: nn.Tanhshrink(),
    lambda nn, T: nn.Softshrink(),
    lambda nn, T: nn.Hardshrink(0.3),
    lambda nn, T: nn.Softshrink(0.2),
    lambda nn, T: nn.Mish(True),
    lambda nn, T: nn.Hardswish(True),
    # the modules that are one functional call (modules.py's _Functional): their settings
    # printed name=value, a string quoted
    lambda nn, T: nn.GELU(),
    lambda nn, T: nn.GELU("tanh"),
    lambda nn, T: nn.ELU(0.5),
    lambda nn, T: nn.LeakyReLU(0.2),
    lambda nn, T: nn.Softplus(2, 10),
    lambda nn, T: nn.Softmax(1),
    lambda nn, T: nn.LogSoftmax(0),
    lambda nn, T: nn.AdaptiveAvgPool2d((2, 3)),
    # the pooling modules' window (conv.py's _PoolNd: stride defaults to kernel_size)
    lambda nn, T: nn.MaxPool1d(3),
    lambda nn, T: nn.MaxPool2d(2, 1, 1, ceil_mode=True),
    lambda nn, T: nn.AvgPool1d(3),
    lambda nn, T: nn.AvgPool1d(3, 2, 1),
    lambda nn, T: nn.AvgPool2d(2),
    lambda nn, T: nn.AvgPool2d((2, 3), padding=1, divisor_override=2),
    lambda nn, T: nn.Sequential(nn.ReLU(), nn.Tanh(), nn.Sigmoid(), nn.SiLU(), nn.Softmax(-1)),
    lambda nn, T: nn.Unflatten(1, (2, 5)),
    lambda nn, T: nn.Unflatten(-1, [2, -1]),
    lambda nn, T: nn.GroupNorm(2, 4),
    lambda nn, T: nn.GroupNorm(1, 3, eps=1e-3, affine=False),
    lambda nn, T: nn.GroupNorm(2, 2, bias=False),
    lambda nn, T: nn.KLDivLoss(),
    lambda nn, T: nn.KLDivLoss(reduction="batchmean", log_target=True),
    lambda nn, T: nn.MarginRankingLoss(0.5),
    lambda nn, T: nn.CosineSimilarity(),
    lambda nn, T: nn.CosineSimilarity(dim=0, eps=1e-6),
    lambda nn, T: nn.PairwiseDistance(),
    lambda nn, T: nn.PairwiseDistance(p=1.0, keepdim=True),
    lambda nn, T: nn.ZeroPad2d(1),
    lambda nn, T: nn.ZeroPad2d((1, 2, 0, 3)),
    lambda nn, T: nn.Bilinear(3, 4, 2),
    lambda nn, T: nn.Bilinear(2, 2, 1, bias=False),
    lambda nn, T: nn.Upsample(scale_factor=2),
    lambda nn, T: nn.Upsample(size=(4, 5)),
    lambda nn, T: nn.Upsample(scale_factor=(2, 3), mode="nearest"),
    lambda nn, T: nn.BatchNorm2d(3),
    lambda nn, T: nn.BatchNorm2d(4, momentum=None, affine=False),
    lambda nn, T: nn.BatchNorm2d(2, track_running_stats=False, bias=False),
    lambda nn, T: nn.Dropout1d(),
    lambda nn, T: nn.Dropout2d(0.2),
    lambda nn, T: nn.Dropout2d(0.3, True),
    lambda nn, T: nn.ModuleDict({"lin": nn.Linear(2, 3), "act": nn.SELU()}),
    lambda nn, T: nn.ModuleDict([("b", nn.Mish()), ("a", nn.ModuleDict({"x": nn.GLU()}))]),
    lambda nn, T: nn.ParameterList([nn.Parameter(T.ones(2, 3)), T.zeros(4)]),
    lambda nn, T: nn.ParameterList([T.zeros(1, dtype=T.float64), "text", 3]),
    lambda nn, T: nn.ParameterDict({"b": nn.Parameter(T.ones(2)), "a": T.zeros(3, 1)}),
    lambda nn, T: nn.ParameterDict(OrderedDict([("z", T.ones(1)), ("y", T.ones(2, 2))])),
    lambda nn, T: nn.Sequential(nn.Conv2d(1, 2, 3), nn.BatchNorm2d(2), nn.Dropout2d(), nn.ReLU6()),
]


@pytest.mark.torch
@pytest.mark.parametrize("make", MODULES)
def test_modules_print_and_save_as_pytorchs(make: Fn) -> None:
    """repr, state_dict keys and shapes, named parameters and buffers, and the initial values
    drawn after manual_seed (uniform_ with its bounds: a multiply-add PyTorch fuses on some CPUs
    and not on others, UNFUSED; constants exactly)."""
    torch = pytest.importorskip("torch")
    seen = []
    for lib in (engine, torch):
        lib.manual_seed(0)
        m = make(lib.nn, lib)
        state = m.state_dict()
        seen.append(
            (
                repr(m),
                str(m),
                list(state),
                [tuple(v.shape) for v in state.values()],
                [str(v.dtype) for v in state.values()],
                [n for n, _ in m.named_parameters()],
                [n for n, _ in m.named_buffers()],
                [n for n, _ in m.named_modules()],
                [v.detach().numpy().astype(np.float64) for v in state.values()],
            )
        )
    (*e_text, e_values), (*t_text, t_values) = seen
    assert e_text == t_text
    for e, t in zip(e_values, t_values, strict=True):
        np.testing.assert_allclose(e, t, **close(UNFUSED))


@pytest.mark.torch
def test_classes_say_where_pytorch_defines_them() -> None:
    """``type(m)`` in a program prints PyTorch's module path (server/program/imports.py)."""
    torch = pytest.importorskip("torch")
    from server.program.imports import TORCH, _class_module

    engine_names = {ours: public for public, ours in TORCH.items()}
    names = [
        *engine.nn.activation.__all__,
        "ModuleDict",
        "ParameterList",
        "ParameterDict",
        "BatchNorm2d",
        "GroupNorm",
        "KLDivLoss",
        "MarginRankingLoss",
        "CosineSimilarity",
        "PairwiseDistance",
        "Dropout1d",
        "Dropout2d",
        "Unflatten",
        "ZeroPad2d",
        "Upsample",
        "Bilinear",
    ]
    for name in names:
        cls = getattr(engine.nn, name)
        assert (
            _class_module(cls, cls.__module__, engine_names) == getattr(torch.nn, name).__module__
        )
    for name in ("Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "LBFGS"):
        cls = getattr(engine.optim, name)
        want = getattr(torch.optim, name).__module__
        assert _class_module(cls, cls.__module__, engine_names) == want


def test_programs_import_these_from_torch_nn() -> None:
    from server.program.imports import TORCH

    assert TORCH["torch.nn"] == engine.nn.__name__
    assert TORCH["torch.nn.functional"] == engine.nn.functional.__name__
    for name in ("ModuleDict", "BatchNorm2d", "GroupNorm", "Dropout2d", "PReLU", "Upsample"):
        assert name in engine.nn.__all__
    for name in ("relu6", "gumbel_softmax", "kl_div", "interpolate", "unfold", "normalize"):
        assert name in engine.nn.functional.__all__


# ---- BatchNorm2d -------------------------------------------------------------------------------


@pytest.mark.torch
@pytest.mark.parametrize("momentum", [0.1, None, 0.5])
def test_batchnorm2d_trains_and_evaluates_as_pytorch(momentum: float | None) -> None:
    """Four training batches (outputs, running mean and unbiased variance, the batch counter;
    momentum=None a cumulative average), then eval mode with the running statistics, then the
    gradients. Each statistic sums 4·5·5 = 100 terms per channel (mean, and the variance about
    it: 2·99 roundings of the terms' magnitude on each side, as NumPy and ATen sum in different
    orders), the update adds 4 roundings, and a running statistic remembers all 4 batches:
    4·(4·99 + 8). The normalized outputs carry their statistics' errors."""
    torch = pytest.importorskip("torch")
    results = []
    for lib in (engine, torch):
        lib.manual_seed(0)
        bn = lib.nn.BatchNorm2d(3, momentum=momentum)
        outs = []
        for i in range(4):
            x = lib.randn(4, 3, 5, 5) * (i + 1) + i
            outs.append(bn(x).detach().numpy())
        stats = [bn.running_mean.numpy().copy(), bn.running_var.numpy().copy()]
        count = int(bn.num_batches_tracked.item())
        bn.eval()
        outs.append(bn(x).detach().numpy())
        bn.train()
        x = lib.randn(2, 3, 4, 4, requires_grad=True)
        (bn(x) ** 2 * lib.arange(96.0).reshape(2, 3, 4, 4)).sum().backward()
        grads = [x.grad.numpy(), bn.weight.grad.numpy(), bn.bias.grad.numpy()]
        results.append((outs, stats, count, grads))
    (e_outs, e_stats, e_count, e_grads), (t_outs, t_stats, t_count, t_grads) = results
    assert e_count == t_count == 4
    roundings = 4 * (4 * 99 + 8)
    for e, t in zip(e_stats, t_stats, strict=True):
        np.testing.assert_allclose(e, t, **close(roundings, magnitude(t)))
    for e, t in zip(e_outs, t_outs, strict=True):
        np.testing.assert_allclose(e, t, **close(roundings, magnitude(t)))
    # the gradients: the same statistics of 32 terms, then sums of 32 products: 4·(2·31 + 10)
    for e, t in zip(e_grads, t_grads, strict=True):
        np.testing.assert_allclose(e, t, **close(4 * (2 * 31 + 10), magnitude(t)))


@pytest.mark.torch
def test_batchnorm2d_without_running_stats_and_its_reset() -> None:
    torch = pytest.importorskip("torch")
    results = []
    for lib in (engine, torch):
        lib.manual_seed(1)
        bn = lib.nn.BatchNorm2d(2, track_running_stats=False).eval()
        x = lib.randn(3, 2, 2, 2)
        y = bn(x).detach().numpy()  # batch statistics, even in eval mode
        tracked = lib.nn.BatchNorm2d(2)
        tracked(x)
        tracked.reset_running_stats()
        results.append(
            (
                y,
                tracked.running_mean.numpy(),
                tracked.running_var.numpy(),
                tracked.num_batches_tracked.item(),
            )
        )
    (ey, *e_rest), (ty, *t_rest) = results
    # statistics of 12 terms (2·11 roundings), normalization (4): 26
    np.testing.assert_allclose(ey, ty, **close(26, magnitude(ty)))
    for e, t in zip(e_rest, t_rest, strict=True):
        np.testing.assert_array_equal(e, t)


def test_batchnorm2d_state_dict_round_trip() -> None:
    engine.manual_seed(0)
    bn = engine.nn.BatchNorm2d(3)
    for _ in range(3):
        bn(engine.randn(2, 3, 2, 2))
    fresh = engine.nn.BatchNorm2d(3)
    assert repr(fresh.load_state_dict(bn.state_dict())) == "<All keys matched successfully>"
    assert fresh.num_batches_tracked.item() == 3
    np.testing.assert_array_equal(fresh.running_var.numpy(), bn.running_var.numpy())


# ---- containers --------------------------------------------------------------------------------


def test_module_dict_behaves_as_pytorchs() -> None:
    nn = engine.nn
    md = nn.ModuleDict({"b": nn.Linear(2, 2), "a": nn.ReLU()})
    assert list(md) == ["b", "a"] and list(md.keys()) == ["b", "a"]  # insertion order, not sorted
    md["c"] = nn.Tanh()
    md.update([("d", nn.SELU())])
    assert len(md) == 4 and "c" in md and "z" not in md
    assert isinstance(md.pop("a"), nn.ReLU) and "a" not in md
    del md["c"]
    assert [k for k, _ in md.items()] == ["b", "d"]
    assert [n for n, _ in md.named_parameters()] == ["b.weight", "b.bias"]
    assert md.b is md["b"]
    md.clear()
    assert len(md) == 0 and not list(md.parameters())


def test_parameter_list_and_dict_register_parameters() -> None:
    nn = engine.nn
    plist = nn.ParameterList([engine.ones(2), nn.Parameter(engine.zeros(3))])
    plist.append(engine.full((1,), 2.0))
    assert len(plist) == 3 and all(p.requires_grad for p in plist)
    assert isinstance(plist[0], nn.Parameter) and plist[-1].item() == 2.0
    assert [n for n, _ in plist.named_parameters()] == ["0", "1", "2"]
    assert len(plist[1:]) == 2
    plist[0] = engine.full((2,), 5.0)
    assert plist[0].tolist() == [5.0, 5.0]

    pdict = nn.ParameterDict({"scale": engine.ones(1), "bias": engine.zeros(1)})
    assert list(pdict) == ["bias", "scale"]  # a plain dict is taken in sorted order
    pdict["gain"] = engine.ones(2)
    assert pdict.get("missing") is None and pdict.setdefault("x", engine.ones(1)) is pdict["x"]
    key, value = pdict.popitem()
    assert key == "x" and isinstance(value, nn.Parameter)
    assert sorted((pdict | nn.ParameterDict({"z": engine.ones(1)})).keys()) == [
        "bias",
        "gain",
        "scale",
        "z",
    ]

    class Model(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ps = nn.ParameterList([engine.ones(2) for _ in range(2)])
            self.pd = nn.ParameterDict({"w": engine.ones(2)})

        def forward(self) -> Any:
            return (self.ps[0] * self.ps[1] * self.pd["w"]).sum()

    model = Model()
    opt = engine.optim.SGD(model.parameters(), lr=0.5)
    model().backward()
    opt.step()
    assert [n for n, _ in model.named_parameters()] == ["ps.0", "ps.1", "pd.w"]
    assert model.ps[0].tolist() == [0.5, 0.5] and model.pd["w"].tolist() == [0.5, 0.5]
    assert list(model.state_dict()) == ["ps.0", "ps.1", "pd.w"]
