"""Datasets as training uses them, cached (a playing page asks for the same one every update),
and the boundary grid's cell centres."""

from __future__ import annotations

import functools

import numpy as np

from server.training import toydata as data

Array = np.ndarray


class TrainData:
    """A dataset as training and evaluation use it: the splits and both of them together."""

    def __init__(self, ds: data.Dataset) -> None:
        self.x_train, self.y_train, self.x_test, self.y_test = (
            ds.x_train, ds.y_train, ds.x_test, ds.y_test
        )  # fmt: skip
        self.classes, self.extent = ds.classes, ds.extent
        self.n_train, self.n_test = ds.n_train, ds.n_test
        self.x_all = np.concatenate([ds.x_train, ds.x_test])
        self.y_all = np.concatenate([ds.y_train, ds.y_test])
        for arr in (self.x_train, self.y_train, self.x_test, self.y_test, self.x_all, self.y_all):
            arr.flags.writeable = False  # shared between requests


@functools.lru_cache(maxsize=64)
def _cached_dataset(
    name: str | None, n: int, noise: float, split: float, seed: int, classes: int,
    points: tuple[tuple[float, float, int], ...],
) -> TrainData:  # fmt: skip
    return TrainData(data.make(name, n, noise, split, seed, classes, [list(p) for p in points]))


@functools.lru_cache(maxsize=64)
def grid(extent: tuple[float, float, float, float], n: int) -> Array:
    """Centres of the n x n boundary cells as (x, y) rows, row 0 at the top (cached)."""
    x0, x1, y0, y1 = extent
    xs = x0 + (np.arange(n) + 0.5) * (x1 - x0) / n
    ys = y1 - (np.arange(n) + 0.5) * (y1 - y0) / n
    gx, gy = np.meshgrid(xs, ys)
    cells = np.stack([gx.ravel(), gy.ravel()], axis=1).astype(np.float32)
    cells.flags.writeable = False
    return cells


def dataset(
    name: str | None, n: int, noise: float, split: float, seed: int, classes: int,
    points: list[list[float]],
) -> TrainData:  # fmt: skip
    """data.make, cached: a playing page asks for the same dataset every call."""
    key = tuple((float(x), float(y), int(label)) for x, y, label in points)
    return _cached_dataset(name, n, noise, split, seed, classes, key)
