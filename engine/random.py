"""PyTorch's CPU random generator, reproduced: same seed, same numbers.

Learners compare their output with the lessons', so ``torch.manual_seed(0); torch.randn(3)``
must print ``tensor([ 1.5410, -0.2934, -2.1788])`` here too. PyTorch's CPU generator is a
standard mt19937 (seeded with ``init_genrand``); its distributions transform the raw 32-bit
draws as in ATen's ``TransformationHelper.h`` / ``DistributionTemplates.h``:

- uniform float32: ``(u32 & (2**24-1)) / 2**24``, mapped to [lo, hi) in double; float64: 53 bits of ``hi<<32 | lo``;
- normal, fewer than 16 elements: Box-Muller in double from two uniform doubles, returning
  the cosine branch and caching the sine branch for the next call;
- normal, 16 or more contiguous elements: fill with uniforms, then Box-Muller over blocks of
  16 (u1 = 1 - data[j], u2 = data[j+8]); a ragged tail recomputes the last 16 values;
- exponential: ``-log1p(-u) / lambda`` of a uniform double per element;
- bernoulli with a number p (``bernoulli_(p)``, dropout's mask): ``u < p`` of a uniform double;
  with a tensor of probabilities (``torch.bernoulli(probs)``): ``u < p`` of a uniform float
  (24 bits) per element, a uniform double where the probabilities are float64;
- multinomial: without replacement, or one sample, ``argmax`` / ``topk`` of ``p / q`` with q
  exponential (the Gumbel trick, as ATen does it); with replacement, a binary search of a
  uniform double in the row's cumulative distribution, summed and normalised in its dtype.

A program's ``torch.Generator()`` is this class; every random function takes ``generator=``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_F32_DIV = 1.0 / (1 << 24)
_F64_DIV = 1.0 / (1 << 53)


class Generator:
    """torch.Generator: an mt19937 stream with PyTorch's transformations on top."""

    def __init__(self, device: Any = "cpu", seed: int = 67280421310721) -> None:
        name = getattr(device, "type", None) or str(device)
        if name.split(":")[0] not in ("cpu", "cuda"):
            raise RuntimeError(f"Device type {name} is not supported for torch.Generator() api.")
        self.device = _DeviceName(name.split(":")[0])
        self.manual_seed(seed)

    def manual_seed(self, seed: Any) -> Generator:
        seed = int(seed)
        if seed < -(1 << 63) or seed >= 1 << 64:
            raise RuntimeError(f"Overflow when unpacking long long: {seed}")
        self._seed = seed & 0xFFFFFFFFFFFFFFFF
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(self._seed & 0xFFFFFFFF)
        self._next_normal: float | None = None
        return self

    def initial_seed(self) -> int:
        return self._seed

    def seed(self) -> int:
        """A new non-deterministic seed (from the clock), used and returned."""
        import time

        s = time.time_ns() & 0xFFFFFFFFFFFFFFFF
        self.manual_seed(s)
        return s

    def get_state(self) -> Any:
        """The whole state as a uint8 tensor (to give back to :meth:`set_state`)."""
        state = self._bits.state["state"]
        words = np.asarray(state["key"], dtype=np.uint32).tobytes()
        pos = int(state["pos"]).to_bytes(4, "little")
        seed = self._seed.to_bytes(8, "little")
        normal = self._next_normal
        cached = b"\x01" + np.float64(normal).tobytes() if normal is not None else b"\x00" * 9
        body = words + pos + seed + cached
        # as long as PyTorch's CPU state (5056 bytes), so printed shapes agree
        raw = np.frombuffer(body + b"\x00" * (_STATE_BYTES - len(body)), dtype=np.uint8).copy()
        return wrap_state(raw)

    def set_state(self, new_state: Any) -> Generator:
        data = bytes(np.asarray(getattr(new_state, "_data", new_state), dtype=np.uint8))
        if len(data) != _STATE_BYTES:
            raise RuntimeError(
                f"Expected either a ByteTensor of {_STATE_BYTES} bytes (a state from "
                f"get_state()), got {len(data)} bytes"
            )
        key = np.frombuffer(data[: 624 * 4], dtype=np.uint32)
        pos = int.from_bytes(data[624 * 4 : 624 * 4 + 4], "little")
        self._seed = int.from_bytes(data[624 * 4 + 4 : 624 * 4 + 12], "little")
        bits = np.random.MT19937()
        bits.state = {"bit_generator": "MT19937", "state": {"key": key.copy(), "pos": pos}}
        self._bits = bits
        has_normal = data[624 * 4 + 12]
        self._next_normal = (
            float(np.frombuffer(data[624 * 4 + 13 : 624 * 4 + 21], dtype=np.float64)[0])
            if has_normal
            else None
        )
        return self

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {id(self):#x}>"

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

    def uniform64(self, n: int) -> np.ndarray:
        """n uniform doubles in [0, 1) (53 bits of a 64-bit draw each)."""
        return (self.random64(n) & np.uint64((1 << 53) - 1)).astype(np.float64) * _F64_DIV

    def exponential(self, n: int, lambd: float, dtype: np.dtype[Any]) -> np.ndarray:
        """exponential_(lambd): ``-1/lambd * log1p(-u)`` in double, rounded once to dtype."""
        return (-1.0 / lambd * np.log1p(-self.uniform64(n))).astype(dtype)

    def bernoulli_scalar(self, n: int, p: float) -> np.ndarray:
        """bernoulli_(p) with a number p (dropout's mask): True where a uniform double < p."""
        return self.uniform64(n) < p

    def bernoulli_probs(self, probs: np.ndarray) -> np.ndarray:
        """torch.bernoulli(probs), element by element in C order."""
        flat = probs.reshape(-1)
        if flat.dtype == np.float64:
            u = self.uniform64(flat.size)
        else:
            u = (self.random32(flat.size) & np.uint64((1 << 24) - 1)).astype(np.float64)
            u *= _F32_DIV
        return (u < flat.astype(np.float64)).reshape(probs.shape)

    def multinomial(self, probs: np.ndarray, n: int, replacement: bool) -> np.ndarray:
        """Sample indices from each row of a 2-D array of (unnormalised) probabilities."""
        rows, k = probs.shape
        if not replacement or n == 1:
            q = self.exponential(rows * k, 1.0, probs.dtype).reshape(rows, k)
            with np.errstate(divide="ignore", invalid="ignore"):
                ratio = (probs / q).astype(probs.dtype)
            if n == 1:
                return ratio.argmax(axis=-1)[:, None].astype(np.int64)
            order = np.argsort(-ratio, axis=-1, kind="stable")
            return order[:, :n].astype(np.int64)
        out = np.empty((rows, n), dtype=np.int64)
        dtype = probs.dtype.type
        for r in range(rows):
            total = dtype(0)
            cum = np.empty(k, dtype=probs.dtype)
            for j, v in enumerate(probs[r]):  # summed in the row's dtype, in order, as ATen does
                total = dtype(total + v)
                cum[j] = total
            cum = (cum / total).astype(probs.dtype)
            cum[-1] = 1
            out[r] = np.searchsorted(cum.astype(np.float64), self.uniform64(n), side="left")
        return out

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


class _DeviceName(str):
    """A generator's ``device``: prints and compares like torch.device('cpu')."""

    @property
    def type(self) -> str:
        return str(self)

    def __repr__(self) -> str:
        return f"device(type='{self}')"


def _no_wrap(raw: np.ndarray) -> Any:
    return raw


#: how a state reaches the program: as a uint8 tensor (engine.tensor sets this; the layer
#: below knows no Tensor)
wrap_state: Any = _no_wrap

#: bytes of a state from get_state(): the 624 words, the position, the seed, a cached normal,
#: padded to the length of PyTorch's
_STATE_BYTES = 5056

default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator, as torch.manual_seed does."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    """torch.get_rng_state: the default generator's state."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """torch.set_rng_state."""
    default_generator.set_state(new_state)
