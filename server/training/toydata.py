"""Seeded toy 2-D datasets for the train page: linear, XOR, circles, moons, spiral, blobs.

Pure NumPy, no web imports. Every generator draws from its own ``numpy.random.Generator``
seeded by the caller, so the same (name, n_samples, noise, seed, classes) always gives the same
points. Coordinates live roughly in [-1, 1]²; ``noise`` is the standard deviation of Gaussian
jitter added to each coordinate (for blobs: the spread of each blob). Labels are class indices
0..classes-1. User-given points ``[x, y, label]`` make a dataset of their own or are appended
to a generated one (to its training part: a clicked point should always be learned from).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: Datasets with exactly two classes, and those that take a ``classes`` count (2+).
BINARY = ("linear", "xor", "circles", "moons")
MULTICLASS = ("spiral", "blobs")
NAMES = BINARY + MULTICLASS
ALIASES = {"gaussians": "blobs", "gaussian": "blobs"}
MAX_CLASSES = 8


@dataclass(frozen=True)
class Dataset:
    """Train and test points (float32, shape (n, 2)) with labels (int64), and the plot extent."""

    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    classes: int
    #: A square around every point, centred on 0: (x_min, x_max, y_min, y_max).
    extent: tuple[float, float, float, float]

    @property
    def n_train(self) -> int:
        return int(self.x_train.shape[0])

    @property
    def n_test(self) -> int:
        return int(self.x_test.shape[0])


Points = tuple[np.ndarray, np.ndarray]


def _per_class(n: int, classes: int) -> list[int]:
    """n split as evenly as possible over the classes (the first ones get the remainder)."""
    return [n // classes + (1 if k < n % classes else 0) for k in range(classes)]


def _linear(n: int, noise: float, rng: np.random.Generator, classes: int) -> Points:
    x = rng.uniform(-1.0, 1.0, size=(n, 2))
    y = (x[:, 1] > 0.6 * x[:, 0] + 0.1).astype(np.int64)  # a tilted line off the origin
    return x + rng.normal(0.0, noise, size=x.shape), y


def _xor(n: int, noise: float, rng: np.random.Generator, classes: int) -> Points:
    # Keep a small gap around the axes (as TensorFlow Playground does) so the clean set is
    # separable; noise then blurs the quadrants into each other.
    x = rng.uniform(0.08, 1.0, size=(n, 2)) * rng.choice([-1.0, 1.0], size=(n, 2))
    y = (x[:, 0] * x[:, 1] > 0).astype(np.int64)
    return x + rng.normal(0.0, noise, size=x.shape), y


def _circles(n: int, noise: float, rng: np.random.Generator, classes: int) -> Points:
    inner, outer = _per_class(n, 2)
    r = np.concatenate([rng.uniform(0.0, 0.45, inner), rng.uniform(0.7, 1.0, outer)])
    theta = rng.uniform(0.0, 2 * math.pi, n)
    x = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1)
    y = np.concatenate([np.ones(inner, np.int64), np.zeros(outer, np.int64)])
    return x + rng.normal(0.0, noise, size=x.shape), y


def _moons(n: int, noise: float, rng: np.random.Generator, classes: int) -> Points:
    upper, lower = _per_class(n, 2)
    t0 = rng.uniform(0.0, math.pi, upper)
    t1 = rng.uniform(0.0, math.pi, lower)
    # scikit-learn's two moons, centred and scaled into [-1, 1]².
    a = np.stack([np.cos(t0), np.sin(t0)], axis=1)
    b = np.stack([1.0 - np.cos(t1), 0.5 - np.sin(t1)], axis=1)
    x = (np.concatenate([a, b]) - np.array([0.5, 0.25])) * np.array([0.6, 0.9])
    y = np.concatenate([np.zeros(upper, np.int64), np.ones(lower, np.int64)])
    return x + rng.normal(0.0, noise, size=x.shape), y


def _spiral(n: int, noise: float, rng: np.random.Generator, classes: int) -> Points:
    xs, ys = [], []
    for k, count in enumerate(_per_class(n, classes)):
        t = rng.uniform(0.0, 1.0, count)
        r = 0.1 + 0.9 * t
        theta = 2 * math.pi * k / classes + 1.75 * math.pi * t  # seven eighths of a turn per arm
        xs.append(np.stack([r * np.cos(theta), r * np.sin(theta)], axis=1))
        ys.append(np.full(count, k, np.int64))
    x = np.concatenate(xs)
    return x + rng.normal(0.0, noise, size=x.shape), np.concatenate(ys)


def _blobs(n: int, noise: float, rng: np.random.Generator, classes: int) -> Points:
    offset = rng.uniform(0.0, 2 * math.pi)
    xs, ys = [], []
    for k, count in enumerate(_per_class(n, classes)):
        angle = offset + 2 * math.pi * k / classes
        centre = 0.6 * np.array([math.cos(angle), math.sin(angle)])
        # NOTE: a blob needs some spread even at noise 0, else every point sits on its centre.
        xs.append(centre + rng.normal(0.0, max(noise, 0.02), size=(count, 2)))
        ys.append(np.full(count, k, np.int64))
    return np.concatenate(xs), np.concatenate(ys)


GENERATORS: dict[str, Callable[[int, float, np.random.Generator, int], Points]] = {
    "linear": _linear,
    "xor": _xor,
    "circles": _circles,
    "moons": _moons,
    "spiral": _spiral,
    "blobs": _blobs,
}


def canonical_name(name: str) -> str:
    """The dataset's canonical name ('gaussians' -> 'blobs'); ValueError if unknown."""
    key = ALIASES.get(name, name)
    if key not in GENERATORS:
        raise ValueError(f"unknown dataset {name!r}; choose one of {', '.join(NAMES)}")
    return key


def generate(name: str, n_samples: int, noise: float, seed: int, classes: int = 2) -> Points:
    """All points of a named dataset, in class order: (x float64 (n, 2), y int64 (n,))."""
    key = canonical_name(name)
    if key in BINARY and classes != 2:
        raise ValueError(f"dataset {key!r} has exactly 2 classes (got classes={classes})")
    if not 2 <= classes <= MAX_CLASSES:
        raise ValueError(f"classes must be between 2 and {MAX_CLASSES} (got {classes})")
    if n_samples < classes:
        raise ValueError(f"n_samples={n_samples} is fewer than classes={classes}")
    if noise < 0:
        raise ValueError(f"noise must be >= 0 (got {noise})")
    rng = np.random.default_rng([seed, NAMES.index(key)])
    return GENERATORS[key](n_samples, float(noise), rng, classes)


def _as_points(points: Sequence[Sequence[float]]) -> Points:
    arr = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    labels = arr[:, 2]
    if np.any(labels < 0) or np.any(labels != np.round(labels)):
        raise ValueError("point labels must be class indices 0, 1, 2, ...")
    if not np.all(np.isfinite(arr[:, :2])):
        raise ValueError("point coordinates must be finite numbers")
    return arr[:, :2], labels.astype(np.int64)


def split(
    x: np.ndarray, y: np.ndarray, test_fraction: float, seed: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A seeded shuffle, then the last ``test_fraction`` of the points become the test set."""
    if not 0.0 <= test_fraction < 1.0:
        raise ValueError(f"test_fraction must be in [0, 1) (got {test_fraction})")
    n = x.shape[0]
    order = np.random.default_rng([seed, 1000]).permutation(n)
    n_test = min(round(n * test_fraction), n - 1)
    train, test = order[: n - n_test], order[n - n_test :]
    return x[train], y[train], x[test], y[test]


def _extent(*arrays: np.ndarray) -> tuple[float, float, float, float]:
    reach = max((float(np.abs(a).max()) for a in arrays if a.size), default=1.0)
    half = max(1.5, reach * 1.05)  # a stable square, so clicked points keep their place
    return (-half, half, -half, half)


def make(
    name: str | None = None,
    n_samples: int = 200,
    noise: float = 0.1,
    test_fraction: float = 0.3,
    seed: int = 0,
    classes: int = 2,
    points: Sequence[Sequence[float]] = (),
) -> Dataset:
    """A named dataset (plus any user points, added to its training part), or user points alone.

    >>> d = make("moons", n_samples=100, noise=0.1, test_fraction=0.2, seed=1)
    >>> d.x_train.shape, d.x_test.shape, d.classes
    ((80, 2), (20, 2), 2)
    """
    extra_x, extra_y = (
        _as_points(points) if len(points) else (np.zeros((0, 2)), np.zeros(0, np.int64))
    )
    if name is None:
        if extra_x.shape[0] < 2:
            raise ValueError("a dataset of user points needs at least 2 points")
        x_train, y_train, x_test, y_test = split(extra_x, extra_y, test_fraction, seed)
        classes = max(2, int(extra_y.max()) + 1)
    else:
        x, y = generate(name, n_samples, noise, seed, classes)
        x_train, y_train, x_test, y_test = split(x, y, test_fraction, seed)
        if extra_x.shape[0]:
            if int(extra_y.max()) >= classes:
                raise ValueError(
                    f"a point's label is {int(extra_y.max())} but the dataset has "
                    f"{classes} classes (labels 0..{classes - 1})"
                )
            x_train = np.concatenate([x_train, extra_x])
            y_train = np.concatenate([y_train, extra_y])
    return Dataset(
        x_train=x_train.astype(np.float32),
        y_train=y_train.astype(np.int64),
        x_test=x_test.astype(np.float32),
        y_test=y_test.astype(np.int64),
        classes=classes,
        extent=_extent(x_train, x_test),
    )


__all__ = [
    "ALIASES",
    "BINARY",
    "MULTICLASS",
    "NAMES",
    "Dataset",
    "canonical_name",
    "generate",
    "make",
    "split",
]
