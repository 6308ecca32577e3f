"""The MLP as NumPy arrays: PyTorch's init, class probabilities of many models at once, and the
history rows (mean cross-entropy and accuracy) computed from them. No graph, no engine tensors:
evaluation and the decision boundary need only the forward pass.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np

Array = np.ndarray


def _np_sigmoid(z: Array) -> Array:
    return np.asarray(0.5 * (np.tanh(0.5 * z) + 1.0))  # stable for large |z|


NUMPY_ACTIVATIONS: dict[str, Callable[[Array], Array]] = {
    "tanh": np.tanh,
    "relu": lambda z: np.maximum(z, 0),
    "sigmoid": _np_sigmoid,
}


def layer_sizes(hidden: list[int], classes: int) -> list[int]:
    return [2, *hidden, classes]


def parameter_count(sizes: list[int]) -> int:
    return sum((a + 1) * b for a, b in itertools.pairwise(sizes))


def initial_parameters(sizes: list[int], seed: int) -> list[Array]:
    """PyTorch's nn.Linear init (uniform in ±1/sqrt(fan_in)) from a seeded NumPy generator.

    A private generator (not the engine's global one) keeps concurrent requests independent.
    """
    rng = np.random.default_rng([seed, 7])
    params: list[Array] = []
    for fan_in, fan_out in itertools.pairwise(sizes):
        bound = 1.0 / math.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, size=(fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, size=(fan_out,)).astype(np.float32))
    return params


def predict_proba(params: list[Array], activation: str, x: Array) -> Array:
    """Class probabilities (softmax of the logits) of one model, in NumPy: no graph needed."""
    return predict_proba_stacked([p[None] for p in params], activation, x)[0]


def predict_proba_stacked(stacked: list[Array], activation: str, x: Array) -> Array:
    """Class probabilities of B models at once: ``stacked[i]`` is parameter i of every model
    (weights (B, out, in), biases (B, out)); returns (B, len(x), classes).

    np.matmul runs one BLAS call per model of the stack, and the other operations are
    elementwise or per row, so a model's probabilities are the same bits however many models
    share the stack: evaluating the 10 steps of a call together equals evaluating each alone.
    """
    act = NUMPY_ACTIVATIONS[activation]
    h = x
    last = len(stacked) - 2
    for i in range(0, len(stacked), 2):
        h = np.matmul(h, stacked[i].transpose(0, 2, 1)) + stacked[i + 1][:, None, :]
        if i < last:
            h = act(h)
    return _softmax(h)


def _softmax(z: Array) -> Array:
    """Softmax over the last axis (the classes), a column at a time.

    NumPy reduces over a short last axis ~30x slower than it combines columns; the max and the
    sum below are the bits ``z.max(-1)`` and ``z.sum(-1)`` give (see _class_sum).
    """
    classes = z.shape[-1]
    top = functools.reduce(np.maximum, [z[..., j] for j in range(classes)])
    e = np.exp(z - top[..., None])
    return np.asarray(e / _class_sum(e)[..., None])


def _class_sum(e: Array) -> Array:
    """``e.sum(-1)`` in NumPy's order: left to right under 8 terms, its pairwise tree at 8."""
    c = [e[..., j] for j in range(e.shape[-1])]
    if len(c) < 8:
        return functools.reduce(np.add, c)
    if len(c) == 8:
        return ((c[0] + c[1]) + (c[2] + c[3])) + ((c[4] + c[5]) + (c[6] + c[7]))
    return np.asarray(e.sum(axis=-1))


def history_rows(probs: Array, y: Array, n_train: int, steps: list[int]) -> list[dict[str, Any]]:
    """History rows from the probabilities (B, n_train + n_test, classes) of B models."""
    picked = probs[:, np.arange(y.shape[0]), y].astype(np.float64)
    nll = -np.log(np.maximum(picked, 1e-30))
    correct = probs.argmax(axis=2) == y
    n_test = y.shape[0] - n_train
    train_loss, train_acc = _split_means(nll, correct, 0, n_train)
    test_loss, test_acc = _split_means(nll, correct, n_train, y.shape[0])
    return [
        {
            "step": step,
            "train_loss": finite(train_loss[b]) if n_train else None,
            "test_loss": finite(test_loss[b]) if n_test else None,
            "train_acc": train_acc[b] if n_train else None,
            "test_acc": test_acc[b] if n_test else None,
        }
        for b, step in enumerate(steps)
    ]


def _split_means(nll: Array, correct: Array, lo: int, hi: int) -> tuple[list[float], list[float]]:
    """Mean loss and accuracy of rows lo:hi for every model: each model's mean is NumPy's 1-D
    mean of its row (a contiguous copy reduces row by row, as a lone row would)."""
    if hi <= lo:
        return [], []
    n = hi - lo
    loss = np.ascontiguousarray(nll[:, lo:hi]).sum(axis=1) / n
    acc = np.count_nonzero(correct[:, lo:hi], axis=1) / n
    return loss.tolist(), acc.tolist()


def finite(v: float | None) -> float | None:
    """``v``, or None for NaN and infinities (JSON has no spelling for them)."""
    return v if v is None or math.isfinite(v) else None
