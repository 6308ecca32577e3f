"""PyTorch's CPU random generator, reproduced: same seed, same numbers.

Learners compare their output with the lessons', so ``torch.manual_seed(0); torch.randn(3)``
must print ``tensor([ 1.5410, -0.2934, -2.1788])`` here too. PyTorch's CPU generator is a
standard mt19937 (seeded with ``init_genrand``); its distributions transform the raw 32-bit
draws as in ATen's ``TransformationHelper.h`` / ``DistributionTemplates.h``:

- uniform float32: ``(u32 & (2**24-1)) / 2**24``, mapped to [lo, hi) in double; float64: 53 bits of ``hi<<32 | lo``;
- normal, fewer than 16 elements: Box-Muller in double from two uniform doubles, returning
  the cosine branch and caching the sine branch for the next call;
- normal, 16 or more contiguous elements: fill with uniforms, then Box-Muller over blocks of
  16 (u1 = 1 - data[j], u2 = data[j+8]); a ragged tail recomputes the last 16 values.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_F32_DIV = 1.0 / (1 << 24)
_F64_DIV = 1.0 / (1 << 53)


class Generator:
    """An mt19937 stream with PyTorch's transformations on top."""

    def __init__(self, seed: int = 67280421310721) -> None:
        self.manual_seed(seed)

    def manual_seed(self, seed: int) -> Generator:
        self._seed = int(seed)
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(self._seed & 0xFFFFFFFF)
        self._next_normal: float | None = None
        return self

    def initial_seed(self) -> int:
        return self._seed

    # -- raw draws ---------------------------------------------------------------------------
    def random32(self, n: int) -> np.ndarray:
        """n raw 32-bit outputs (as uint64)."""
        return np.asarray(self._bits.random_raw(n), dtype=np.uint64)

    def random64(self, n: int) -> np.ndarray:
        raw = self.random32(2 * n).reshape(n, 2)
        return (raw[:, 0] << np.uint64(32)) | raw[:, 1]

    # -- distributions -----------------------------------------------------------------------
    def uniform(self, n: int, low: float, high: float, dtype: np.dtype[Any]) -> np.ndarray:
        """uniform_(low, high): float32 arithmetic for float32, as ATen does."""
        if dtype == np.float64:
            x = (self.random64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * _F64_DIV
            return x * (high - low) + low
        x = (self.random32(n) & np.uint64((1 << 24) - 1)).astype(np.float64) * _F32_DIV
        # bounds are cast to float32 first; the affine map runs in double, then rounds once
        lo, hi = float(np.float32(low)), float(np.float32(high))
        return (x * (hi - lo) + lo).astype(dtype)

    def normal(self, n: int, mean: float, std: float, dtype: np.dtype[Any]) -> np.ndarray:
        if n >= 16:
            return self._normal_fill(n, mean, std, dtype)
        out = np.empty(n, dtype=np.float64)
        for i in range(n):
            out[i] = self._normal_scalar() * std + mean
        return out.astype(dtype)

    def _normal_scalar(self) -> float:
        if self._next_normal is not None:
            value, self._next_normal = self._next_normal, None
            return value
        u = (self.random64(2) & np.uint64((1 << 53) - 1)).astype(np.float64) * _F64_DIV
        u1, u2 = float(u[0]), float(u[1])
        r = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_normal = r * math.sin(theta)
        return r * math.cos(theta)

    def _normal_fill(self, n: int, mean: float, std: float, dtype: np.dtype[Any]) -> np.ndarray:
        data = self.uniform(
            n, 0.0, 1.0, np.dtype(np.float64) if dtype == np.float64 else np.dtype(np.float32)
        )
        work = data.astype(np.float64)
        full = (n // 16) * 16
        if full:
            _box_muller_16(work[:full].reshape(-1, 16), mean, std)
        if n % 16:
            tail = self.uniform(16, 0.0, 1.0, data.dtype).astype(np.float64).reshape(1, 16)
            _box_muller_16(tail, mean, std)
            work[n - 16 :] = tail[0]
        return work.astype(dtype)

    def randint(self, low: int, high: int, n: int) -> np.ndarray:
        span = high - low
        if span <= 0:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        if span >= 1 << 32:
            return (self.random64(n) % np.uint64(span)).astype(np.int64) + low
        return (self.random32(n) % np.uint64(span)).astype(np.int64) + low

    def randperm(self, n: int) -> np.ndarray:
        perm = np.arange(n, dtype=np.int64)
        if n > 1:
            draws = self.random32(n - 1)
            for i in range(n - 1):
                z = int(draws[i]) % (n - i)
                perm[i], perm[i + z] = perm[i + z], perm[i]
        return perm


def _box_muller_16(blocks: np.ndarray, mean: float, std: float) -> None:
    """In place over rows of 16 uniforms: ATen's normal_fill_16."""
    u1 = 1.0 - blocks[:, :8]
    u2 = blocks[:, 8:].copy()
    radius = np.sqrt(-2.0 * np.log(u1))
    theta = 2.0 * math.pi * u2
    blocks[:, :8] = radius * np.cos(theta) * std + mean
    blocks[:, 8:] = radius * np.sin(theta) * std + mean


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator, as torch.manual_seed does."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    import time

    s = time.time_ns() & 0xFFFFFFFF
    default_generator.manual_seed(s)
    return s


def initial_seed() -> int:
    return default_generator.initial_seed()
