"""Tolerances from rounding-error analysis, for tests that compare floats with PyTorch or with
fixed numbers.

Neither side of such a comparison rounds the same way on every x86-64 CPU. The engine runs on
NumPy, whose float32 ``exp``/``log``/``tanh``/... loops are chosen by CPU feature (AVX-512,
AVX2 or baseline SIMD, each accurate to a few ulp), and on NumPy's OpenBLAS, whose matrix
kernels are chosen by core type. PyTorch runs ATen kernels chosen by ``ATEN_CPU_CAPABILITY``
(``add(alpha=)``, ``addcmul``, ``lerp`` and ``uniform_`` are fused multiply-adds in its AVX2 and
AVX-512 kernels and round twice in its baseline ones) and the MKL inside it, which picks its
own code path by CPU vendor and ISA: ``torch.sqrt`` on float32 is MKL's ``vsSqrt``, within 1 ulp
but not correctly rounded, rounding differently on Intel's AVX-512 path and on the path AMD
CPUs get (issue 10), and its ``sgemm`` sums in a different order again. So each comparison
bounds the difference of two computations, each within its own rounding error of the exact
result, by first-order error analysis (Higham, *Accuracy and Stability of Numerical
Algorithms*, ch. 2-4):

- a correctly rounded operation errs by at most ``u`` relative (``U32 = 2**-24`` for float32,
  ``U64 = 2**-53`` for float64); ``n`` of them in a chain by ``n*u`` (to first order);
- a library function within ``k`` ulp errs by ``2k*u`` relative (an ulp is up to ``2u``);
- a sum or dot product of ``n`` terms errs by ``(n - 1)*u`` times the sum of the terms'
  magnitudes, not times the result: where terms of both signs cancel (a momentum buffer, a
  parameter after many updates, a softmax gradient) the bound is absolute, at the scale of the
  terms (``scale=`` below);
- a result of condition number ``k`` amplifies its inputs' relative errors by ``k``;
- two computations that each err by ``e`` differ by up to ``2e``.

Each comparison says next to it how many roundings it counts (both sides together) and why.
Bit-exact comparisons are kept only where the same operations run in the same order on every
CPU, or every operation is exact (integer arithmetic, small dyadic numbers), and say so.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike

#: Unit roundoff of float32 and float64: half an ulp at 1.
U32 = 2.0**-24
U64 = 2.0**-53

#: A float32 library function (NumPy's SIMD exp/log/tanh/sin/...: NumPy documents up to 4 ulp;
#: PyTorch's Sleef or MKL versions: up to 1 ulp), on both sides, in roundings: 2 * (4 + 1).
LIBRARY_FUNCTION = 10
#: PyTorch's float32 sqrt (MKL's vsSqrt, within 1 ulp) against a correctly rounded one.
MKL_SQRT = 2
#: A multiply-add that one side fuses (one rounding) and the other does not (two).
UNFUSED = 1


def tol(roundings: float, unit: float = U32) -> float:
    """The relative error bound of ``roundings`` roundings of unit ``unit``."""
    return roundings * unit


def close(roundings: float, scale: float = 0.0, unit: float = U32) -> dict[str, float]:
    """``rtol``/``atol`` for ``np.testing.assert_allclose``: ``roundings`` roundings relative to
    each value, and to ``scale`` where a value is a sum of terms of that size that may cancel."""
    return {"rtol": roundings * unit, "atol": roundings * unit * scale}


def magnitude(a: ArrayLike) -> float:
    """The largest magnitude in ``a`` (0 for an empty array): the scale of its terms."""
    arr = np.abs(np.asarray(a, dtype=np.float64))
    return float(arr.max()) if arr.size else 0.0


def central_differences(
    objective: Callable[[list[np.ndarray]], float], arrays: list[np.ndarray], k: int, eps: float
) -> np.ndarray:
    """The gradient of ``objective(arrays)`` with respect to ``arrays[k]``, element by element:
    ``(f(x + eps) - f(x - eps)) / (2 eps)``. It errs by ``eps**2 / 6`` times the third
    derivative, plus twice the objective's own rounding error over ``2 eps``: each caller bounds
    both for its objective."""
    numeric = np.zeros_like(arrays[k])
    for idx in np.ndindex(arrays[k].shape):
        plus = [x.copy() for x in arrays]
        minus = [x.copy() for x in arrays]
        plus[k][idx] += eps
        minus[k][idx] -= eps
        numeric[idx] = (objective(plus) - objective(minus)) / (2 * eps)
    return numeric


def rounds_to(value: float, printed: float, places: int, error: float) -> bool:
    """``round(value, places) == printed`` on every CPU: ``value`` rounds to ``printed`` even
    moved by its rounding ``error`` (absolute) either way."""
    return abs(value - printed) + error < 0.5 * 10.0**-places


_NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def last_place(token: str) -> float:
    """One unit in the last printed digit of a decimal number: 0.0001 for ``1.2346``, 1e-9 for
    ``1.2346e-05``."""
    mantissa, _, exponent = token.lower().partition("e")
    places = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return 10.0 ** (int(exponent or 0) - places)


def printed_numbers_match(expected: str, actual: str, roundings: float) -> bool:
    """Two printed numbers agree. Integers (no point, no exponent) are equal. Decimals may
    differ by one unit in their last printed digit (two values within rounding of a digit
    boundary print either side of it) plus ``roundings`` float32 roundings of the value itself
    (full-precision prints such as ``loss.item()``). ``nan`` equals ``nan``."""
    x, y = float(expected), float(actual)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y) or not any(c in expected.lower() for c in ".e"):
        return x == y
    unit = max(last_place(expected), last_place(actual))
    return abs(x - y) <= 1.01 * unit + roundings * U32 * max(abs(x), abs(y))


def numbers(text: str) -> list[str]:
    """The numbers printed in ``text``, as written."""
    return _NUMBER.findall(text)


#: One optimizer step against PyTorch's on the same gradients, in roundings that may differ:
#: PyTorch's sqrt (MKL_SQRT) and the multiply-adds it fuses on some CPUs and not on others
#: (weight decay's add(alpha=), addcmul, lerp, RMSprop's centred variance, the parameter update:
#: up to 5 of them, the centred variance counted twice for its cancellation v / (v - m**2) < 2
#: on the tests' gradients). Every other operation is the same one on the same inputs.
OPTIMIZER_STEP = MKL_SQRT + 6 * UNFUSED

#: 25 training steps of a 3-8-2 tanh MLP on 16 points, against PyTorch. Each step's gradients
#: may differ by ~110 roundings (two matrix products each way: dot products of 3 and 8 terms and
#: sums over the 16 points, which OpenBLAS and MKL sum in different orders; tanh, exp and log:
#: LIBRARY_FUNCTION each); an adaptive step divides them by sqrt(v) of the same gradients, which
#: doubles that, and adds its own OPTIMIZER_STEP: ~230 roundings of each update. The updates of
#: one parameter add up to at most 2.5 in magnitude over the 25 steps (2.03 for RMSprop with
#: momentum, the largest of the tests' optimizers, computed in float64), which is the scale of
#: the absolute error.
TRAINING_25_STEPS = close(2 * 110 + OPTIMIZER_STEP, scale=2.5)

#: A full-precision print (``loss.item()``, ``tolist()``) of a test program run on both sides.
#: The programs (tests/programs/, the lessons, the gallery) compute their printed values in at
#: most a few dozen float32 operations since the last contraction: the longest are training
#: loops, where gradient descent keeps only the errors of its last ~1 / (lr * smallest
#: curvature) steps (the gallery's seed-train-loop: 700 SGD steps of a linear fit, ~110
#: remembered, each moving the weight by < 0.5u) and then rounds them through a loss: 64
#: roundings of the value. Measured under every forced configuration of `make test-matrix`:
#: at most 5.
PROGRAM_ROUNDINGS = 64
