"""Sample calls for every row of ``engine.ops.OPS``: the data the table-driven tests iterate.

Each case is ``(fn, inputs)``: ``fn(lib, *tensors)`` is written once against the PyTorch API,
so the same lambda runs on ``engine`` and on ``torch``; ``inputs`` are (shape, domain) pairs
drawn in float64 ("real" anywhere, "pos" in [0.5, 2], "unit" in [0.1, 0.9], "away" with
|x| >= 0.2 so kinks and ties are not sampled). Integer arguments (targets, indices) are built
inside ``fn``. A new op needs only a row here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Case = tuple[Callable[..., Any], list[tuple[tuple[int, ...], str]]]

R, P, U, A = "real", "pos", "unit", "away"


def _idx(lib: Any, values: list[Any]) -> Any:
    return lib.tensor(values)


CASES: dict[str, list[Case]] = {
    "add": [
        (lambda T, a, b: a + b, [((3, 4), R), ((4,), R)]),
        (lambda T, a, b: T.add(a, b), [((2, 1, 3), R), ((4, 1), R)]),
    ],
    "sub": [(lambda T, a, b: a - b, [((3, 1), R), ((1, 4), R)])],
    "rsub": [(lambda T, a: 2.5 - a, [((3,), R)])],
    "mul": [(lambda T, a, b: a * b, [((2, 3), R), ((3,), R)]), (lambda T, a: a * 3.0, [((4,), R)])],
    "div": [(lambda T, a, b: a / b, [((2, 3), R), ((2, 1), P)])],
    "neg": [(lambda T, a: -a, [((3,), R)])],
    "reciprocal": [
        (lambda T, a: 2.0 / a, [((3,), P)]),
        (lambda T, a: a.reciprocal(), [((2, 2), P)]),
    ],
    "pow": [
        (lambda T, a: a**3, [((3,), R)]),
        (lambda T, a: a**0.5, [((3,), P)]),
        (lambda T, a: a.square(), [((2, 2), R)]),
        (lambda T, a: a**4 + a**5.0, [((3, 2), R)]),
    ],
    "pow_tensor": [(lambda T, a, b: a**b, [((3,), P), ((3,), R)])],
    "rpow": [(lambda T, a: 2.0**a, [((4,), R)])],
    "exp": [(lambda T, a: a.exp(), [((3, 2), R)])],
    "log": [(lambda T, a: T.log(a), [((3,), P)])],
    "log1p": [(lambda T, a: a.log1p(), [((3,), P)]), (lambda T, a: T.log1p(a), [((2, 2), U)])],
    "sqrt": [(lambda T, a: a.sqrt(), [((3,), P)])],
    "rsqrt": [(lambda T, a: a.rsqrt(), [((3,), P)])],
    "abs": [(lambda T, a: a.abs(), [((5,), A)])],
    "sin": [(lambda T, a: a.sin(), [((3,), R)])],
    "cos": [(lambda T, a: T.cos(a), [((3,), R)])],
    "tanh": [(lambda T, a: a.tanh(), [((2, 3), R)])],
    "sigmoid": [(lambda T, a: T.sigmoid(a), [((2, 3), R)])],
    "relu": [(lambda T, a: a.relu(), [((6,), A)])],
    "clamp": [
        (lambda T, a: a.clamp(-0.5, 0.5), [((6,), A)]),
        (lambda T, a: a.clamp(min=0.1), [((6,), A)]),
    ],
    "maximum": [(lambda T, a, b: T.maximum(a, b), [((4,), R), ((4,), R)])],
    "minimum": [(lambda T, a, b: T.minimum(a, b), [((2, 3), R), ((3,), R)])],
    "where": [(lambda T, a, b: T.where(a > 0, a, b), [((2, 3), A), ((3,), R)])],
    "tan": [(lambda T, a: a.tan(), [((3,), U)]), (lambda T, a: T.tan(a), [((2, 3), U)])],
    "sinh": [(lambda T, a: a.sinh(), [((3,), R)])],
    "cosh": [(lambda T, a: T.cosh(a), [((2, 2), R)])],
    "asin": [(lambda T, a: a.asin(), [((3,), U)])],
    "acos": [(lambda T, a: T.acos(a), [((3,), U)])],
    "atan": [(lambda T, a: a.atan(), [((4,), R)])],
    "asinh": [
        (lambda T, a: T.asinh(a * 3), [((4,), R)]),
        (lambda T, a: a.arcsinh(), [((2, 3), R)]),
    ],
    "atanh": [(lambda T, a: a.atanh(), [((3,), U)]), (lambda T, a: T.arctanh(a), [((2, 2), U)])],
    "trunc": [(lambda T, a: a.trunc() * a, [((4,), A)])],
    "frac": [(lambda T, a: T.frac(a * 3), [((4,), A)])],
    "log2": [(lambda T, a: T.log2(a), [((3,), P)])],
    "log10": [(lambda T, a: a.log10(), [((3,), P)])],
    "expm1": [(lambda T, a: a.expm1(), [((3,), R)]), (lambda T, a: T.expm1(a), [((2, 2), R)])],
    "cumprod": [
        (lambda T, a: a.cumprod(1) * T.arange(6.0).reshape(2, 3), [((2, 3), R)]),
        (lambda T, a: T.cumprod(a, dim=0), [((4,), P)]),
        # an exact zero inside: the rule's zero-safe path (no division by the input)
        (lambda T, a: T.cumprod(a * T.tensor([1.0, 0.0, 1.0, 1.0], dtype=a.dtype), 0), [((4,), R)]),
    ],
    "diag": [
        (lambda T, a: T.diag(a) * T.arange(9.0).reshape(3, 3), [((3,), R)]),
        (lambda T, a: T.diag(a, -1), [((3,), R)]),
        (lambda T, a: T.diag(a), [((3, 3), R)]),
        (lambda T, a: a.diag(1), [((3, 4), R)]),
    ],
    "einsum": [
        (lambda T, a, b: T.einsum("ij,jk->ik", a, b), [((2, 3), R), ((3, 4), R)]),
        (lambda T, a, b: T.einsum("bi,bi->b", a, b), [((4, 3), R), ((4, 3), R)]),
        (lambda T, a, b: T.einsum("i,i->", a, b), [((5,), R), ((5,), R)]),
        (lambda T, a, b: T.einsum("i,j->ij", a, b), [((3,), R), ((2,), R)]),
        (lambda T, a: T.einsum("ij->i", a), [((2, 3), R)]),
        (lambda T, a: T.einsum("ij->ji", a) * T.arange(6.0).reshape(3, 2), [((2, 3), R)]),
        (lambda T, a, b: T.einsum("bij,bjk->bik", [a, b]), [((2, 2, 3), R), ((2, 3, 2), R)]),
    ],
    "erf": [(lambda T, a: T.erf(a), [((5,), R)])],
    "gelu": [(lambda T, a: T.nn.functional.gelu(a), [((2, 3), R)])],
    "leaky_relu": [(lambda T, a: T.nn.functional.leaky_relu(a, 0.1), [((6,), A)])],
    "softplus": [
        (lambda T, a: T.nn.functional.softplus(a), [((2, 3), R)]),
        (lambda T, a: T.nn.functional.softplus(a * 30.0, beta=2.0), [((4,), A)]),
    ],
    "elu": [(lambda T, a: T.nn.functional.elu(a, 0.7), [((6,), A)])],
    "silu": [(lambda T, a: T.nn.functional.silu(a), [((2, 3), R)])],
    "floor": [(lambda T, a: a.floor() * a, [((4,), A)])],
    "ceil": [(lambda T, a: T.ceil(a) * a, [((4,), A)])],
    "cumsum": [(lambda T, a: a.cumsum(1) * T.arange(6.0).reshape(2, 3), [((2, 3), R)])],
    "round": [(lambda T, a: (a * 10.0 + 0.25).round() * a, [((4,), A)])],
    "sum": [
        (lambda T, a: a.sum(), [((2, 3), R)]),
        (lambda T, a: a.sum(dim=1), [((2, 3), R)]),
        (lambda T, a: a.sum((0, 2), keepdim=True), [((2, 3, 4), R)]),
    ],
    "prod": [
        (lambda T, a: a.prod(), [((2, 3), P)]),
        (lambda T, a: T.prod(a, 1), [((2, 4), R)]),
        (lambda T, a: a.prod(dim=0, keepdim=True) * a, [((3, 2), R)]),
    ],
    "mean": [
        (lambda T, a: a.mean(), [((2, 3), R)]),
        (lambda T, a: a.mean(-1, keepdim=True), [((2, 3), R)]),
    ],
    "amax": [
        (lambda T, a: a.max(), [((3, 4), R)]),
        (lambda T, a: a.amax(1), [((3, 4), R)]),
        (lambda T, a: a.min(), [((5,), R)]),
    ],
    "max_dim": [
        (lambda T, a: a.max(dim=1).values, [((3, 4), R)]),
        (lambda T, a: a.min(0, keepdim=True)[0], [((3, 4), R)]),
    ],
    "softmax": [(lambda T, a: a.softmax(dim=1) * T.arange(4.0), [((3, 4), R)])],
    "log_softmax": [(lambda T, a: T.log_softmax(a, dim=0) * T.arange(3.0), [((3,), R)])],
    "matmul": [
        (lambda T, a, b: a @ b, [((2, 3), R), ((3, 4), R)]),
        (lambda T, a, b: a @ b, [((2, 3), R), ((3,), R)]),
        (lambda T, a, b: a @ b, [((3,), R), ((3,), R)]),
        (lambda T, a, b: a @ b, [((3,), R), ((3, 2), R)]),
        (lambda T, a, b: a @ b, [((2, 2, 3), R), ((3, 4), R)]),
        (lambda T, a, b: T.matmul(a, b), [((2, 2, 3), R), ((2, 3, 4), R)]),
    ],
    "linear": [
        (lambda T, x, w, b: T.nn.functional.linear(x, w, b), [((5, 3), R), ((4, 3), R), ((4,), R)]),
        (lambda T, x, w: T.nn.functional.linear(x, w), [((3,), R), ((2, 3), R)]),
        (
            lambda T, x, w, b: T.nn.functional.linear(x, w, b),
            [((2, 5, 3), R), ((4, 3), R), ((4,), R)],
        ),
    ],
    "view": [
        (lambda T, a: a.reshape(3, 2) * T.arange(6.0).reshape(3, 2), [((2, 3), R)]),
        (lambda T, a: a.unsqueeze(0).squeeze(), [((3,), R)]),
        (lambda T, a: a.flatten(), [((2, 2, 2), R)]),
    ],
    "permute": [
        (lambda T, a: a.T * T.arange(6.0).reshape(3, 2), [((2, 3), R)]),
        (lambda T, a: a.permute(2, 0, 1) * T.arange(24.0).reshape(4, 2, 3), [((2, 3, 4), R)]),
        (lambda T, a: a.transpose(0, 1) * T.arange(6.0).reshape(3, 2), [((2, 3), R)]),
    ],
    "expand": [(lambda T, a: a.expand(3, 4) * T.arange(12.0).reshape(3, 4), [((1, 4), R)])],
    "getitem": [
        (lambda T, a: a[1:, ::2], [((3, 4), R)]),
        (lambda T, a: a[1], [((3, 4), R)]),
        (lambda T, a: a[[0, 2, 0]], [((3, 2), R)]),
        (lambda T, a: a[a > 0], [((6,), A)]),
        (lambda T, a: a[:, _idx(T, [1, 1, 0])], [((2, 3), R)]),
    ],
    "gather": [
        (lambda T, a: a.sort(dim=1).values * T.arange(6.0).reshape(2, 3), [((2, 3), A)]),
        (lambda T, a: a.topk(2).values, [((2, 4), A)]),
        (lambda T, a: a.gather(1, _idx(T, [[0, 0], [2, 1]])), [((2, 3), R)]),
    ],
    "cat": [
        (lambda T, a, b: T.cat([a, b], dim=0), [((2, 3), R), ((1, 3), R)]),
        (lambda T, a, b: T.cat([a, b], dim=1), [((2, 3), R), ((2, 2), R)]),
    ],
    "stack": [(lambda T, a, b: T.stack([a, b], dim=1), [((2, 3), R), ((2, 3), R)])],
    "clone": [(lambda T, a: a.clone() * 2.0, [((3,), R)])],
    "to": [(lambda T, a: a.float().double() * 1.5, [((3,), R)])],
    "layer_norm": [
        (
            lambda T, a, w, b: T.nn.functional.layer_norm(a, (4,), w, b),
            [((3, 4), R), ((4,), R), ((4,), R)],
        ),
        (lambda T, a: T.nn.functional.layer_norm(a, (2, 3)), [((2, 2, 3), R)]),
    ],
    "batch_norm": [
        (
            lambda T, a, w, b: T.nn.functional.batch_norm(a, None, None, w, b, training=True),
            [((5, 3), R), ((3,), R), ((3,), R)],
        ),
        (
            lambda T, a: T.nn.functional.batch_norm(a, None, None, training=True),
            [((4, 2, 3), R)],
        ),
        (
            lambda T, a, w, b: T.nn.functional.batch_norm(
                a, T.tensor([0.1, -0.2], dtype=a.dtype), T.tensor([1.5, 0.5], dtype=a.dtype), w, b
            ),
            [((3, 2), R), ((2,), R), ((2,), R)],
        ),
    ],
    "huber_loss": [
        (lambda T, a, b: T.nn.functional.huber_loss(a * 2, b), [((6,), A), ((6,), A)]),
        (
            lambda T, a, b: T.nn.functional.huber_loss(a, b, reduction="sum", delta=0.5),
            [((2, 3), A), ((2, 3), A)],
        ),
    ],
    "smooth_l1_loss": [
        (lambda T, a, b: T.nn.functional.smooth_l1_loss(a * 2, b), [((6,), A), ((6,), A)]),
        (
            lambda T, a, b: T.nn.functional.smooth_l1_loss(a, b, reduction="none", beta=0.5),
            [((4,), A), ((4,), A)],
        ),
    ],
    "mse_loss": [
        (lambda T, a, b: T.nn.functional.mse_loss(a, b), [((4, 2), R), ((4, 2), R)]),
        (lambda T, a, b: T.nn.functional.mse_loss(a, b, reduction="sum"), [((3,), R), ((3,), R)]),
    ],
    "binary_cross_entropy": [
        (lambda T, p, t: T.nn.functional.binary_cross_entropy(p, t), [((5,), U), ((5,), U)])
    ],
    "binary_cross_entropy_with_logits": [
        (
            lambda T, x, t: T.nn.functional.binary_cross_entropy_with_logits(x, t),
            [((2, 3), R), ((2, 3), U)],
        )
    ],
    "nll_loss": [
        (lambda T, a: T.nn.functional.cross_entropy(a, _idx(T, [2, 0, 1, 2])), [((4, 3), R)]),
        (lambda T, a: T.nn.functional.nll_loss(a, _idx(T, [1, 0]), reduction="sum"), [((2, 3), R)]),
        (lambda T, a: T.nn.functional.cross_entropy(a, _idx(T, 1)), [((3,), R)]),
    ],
    "conv": [
        (
            lambda T, x, w, b: T.nn.functional.conv2d(x, w, b, stride=(2, 1), padding=1, groups=2),
            [((2, 4, 5, 4), R), ((6, 2, 3, 2), R), ((6,), R)],
        ),
        (
            lambda T, x, w: T.nn.functional.conv1d(x, w, stride=2, padding=1, dilation=2),
            [((2, 3, 9), R), ((4, 3, 3), R)],
        ),
        (
            lambda T, x, w: T.nn.functional.conv2d(x, w, padding="same"),
            [((3, 5, 5), R), ((2, 3, 3, 3), R)],
        ),
    ],
    "max_pool": [
        # "away" inputs keep every window's maximum unique (no ties, no kinks)
        (
            lambda T, x: T.nn.functional.max_pool2d(
                x * T.arange(1.0, 1 + x.numel()).reshape(x.shape), 2
            ),
            [((1, 2, 4, 6), P)],
        ),
        (
            lambda T, x: T.nn.functional.max_pool2d(
                x * T.arange(1.0, 1 + x.numel()).reshape(x.shape).flip(-1)
                if hasattr(x, "flip")
                else x,
                3,
                2,
                1,
                ceil_mode=True,
            ),
            [((2, 5, 5), P)],
        ),
        (
            lambda T, x: T.nn.functional.max_pool1d(
                x * T.arange(1.0, 1 + x.numel()).reshape(x.shape), 3, 2
            ),
            [((2, 3, 8), P)],
        ),
    ],
    "avg_pool": [
        (lambda T, x: T.nn.functional.avg_pool2d(x, 3, 2, 1, ceil_mode=True), [((1, 2, 5, 6), R)]),
        (
            lambda T, x: T.nn.functional.avg_pool2d(x, 2, count_include_pad=False, padding=1),
            [((2, 4, 4), R)],
        ),
        (lambda T, x: T.nn.functional.avg_pool1d(x, 2), [((2, 3, 7), R)]),
        (lambda T, x: T.nn.functional.adaptive_avg_pool2d(x, (2, 3)), [((1, 2, 4, 6), R)]),
    ],
    "var": [
        (lambda T, a: a.var(), [((3, 4), R)]),
        (lambda T, a: a.std(1, keepdim=True), [((3, 4), R)]),
        (lambda T, a: T.var(a, (0, 2), correction=0), [((2, 3, 4), R)]),
        (lambda T, a: T.std(a, 0, unbiased=False), [((5, 2), R)]),
    ],
    "gru_cell": [
        (
            lambda T, x, h, wi, wh, bi, bh: T.gru_cell(x, h, wi, wh, bi, bh),
            [((2, 3), R), ((2, 4), R), ((12, 3), R), ((12, 4), R), ((12,), R), ((12,), R)],
        ),
        (
            lambda T, x, h, wi, wh, bi, bh: T.gru_cell(x, h, wi, wh, bi, bh),
            [((1, 3), R), ((1, 2), R), ((6, 3), R), ((6, 2), R), ((6,), R), ((6,), R)],
        ),
    ],
    "index_put": [
        (lambda T, a, v: _put(T, a * 1.0, [0, 2], v), [((3, 4), R), ((4,), R)]),
        (lambda T, a: _put(T, a * 2.0, (slice(None), 1), 5.0), [((3, 4), R)]),
        (lambda T, a, v: _put(T, a.sin(), (range(3), [1, 0, 3]), v), [((3, 4), R), ((3,), R)]),
    ],
    "scatter_put": [
        (
            lambda T, a, s: a.scatter_add(1, _idx(T, [[0, 1, 1], [2, 0, 2]]), s),
            [((2, 4), R), ((2, 3), R)],
        ),
        (lambda T, a, s: a.scatter(0, _idx(T, [[1, 0, 2, 0]]), s), [((3, 4), R), ((1, 4), R)]),
    ],
    "inv": [(lambda T, a: T.linalg.inv(a + 3 * T.eye(3, dtype=a.dtype)), [((3, 3), R)])],
    "det": [(lambda T, a: T.linalg.det(a + 2 * T.eye(3, dtype=a.dtype)), [((3, 3), R)])],
}


def _put(T: Any, target: Any, index: Any, value: Any) -> Any:
    """``target[index] = value`` on a tensor in the graph; the result is the tensor itself."""
    target[index] = value
    return target


# issue 18: the batch-norm row takes any number of spatial dims (BatchNorm2d, 4-D input), and
# the layer-norm row normalizes group norm's (N, groups, rest) view
CASES["batch_norm"].append(
    (
        lambda T, a, w, b: T.nn.functional.batch_norm(a, None, None, w, b, training=True),
        [((2, 3, 2, 2), R), ((3,), R), ((3,), R)],
    )
)
CASES["batch_norm"].append(
    (
        lambda T, a: T.nn.functional.batch_norm(
            a, T.tensor([0.1, -0.2], dtype=a.dtype), T.tensor([1.5, 0.5], dtype=a.dtype)
        ),
        [((2, 2, 3, 2), R)],
    )
)
CASES["layer_norm"].append((lambda T, a: T.nn.functional.group_norm(a, 2), [((2, 4, 3), R)]))

#: Rows whose every case above is a sum of products of its inputs with non-negative constant
#: coefficients (contractions, reductions, pools, convolutions with zero padding; ``arange``
#: factors). Such a result, and each of its gradients, is a sum whose terms may cancel: an
#: element near zero can carry the rounding error of terms far larger than itself. The same
#: case evaluated on the inputs' magnitudes (and the upstream gradient's) gives, element by
#: element, the sum of the terms' magnitudes: the scale of that error (tests/tolerances.py).
SUMS_OF_PRODUCTS = frozenset(
    {"sum", "mean", "cumsum", "einsum", "matmul", "linear", "conv", "avg_pool"}
)
