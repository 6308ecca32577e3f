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
        if dtype != np.float64:  # float32 and the rest: ATen's float kernel, rounded after
            data = self.uniform(n, 0.0, 1.0, np.dtype(np.float32))
            full = (n // 16) * 16
            if full:
                data[:full] = _box_muller_16_f32(data[:full].reshape(-1, 16), mean, std).ravel()
            if n % 16:
                tail = self.uniform(16, 0.0, 1.0, np.dtype(np.float32)).reshape(1, 16)
                data[n - 16 :] = _box_muller_16_f32(tail, mean, std)[0]
            return data.astype(dtype, copy=False)
        work = self.uniform(n, 0.0, 1.0, np.dtype(np.float64))
        full = (n // 16) * 16
        if full:
            _box_muller_16(work[:full].reshape(-1, 16), mean, std)
        if n % 16:
            tail = self.uniform(16, 0.0, 1.0, work.dtype).reshape(1, 16)
            _box_muller_16(tail, mean, std)
            work[n - 16 :] = tail[0]
        return work

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


# ---- ATen's float32 normal fill, bit for bit ----------------------------------------------------
#
# For a float32 tensor of 16 or more elements ATen runs Box-Muller in float32 through the
# Cephes-derived polynomials of its avx_mathfun.h (log256_ps, sincos256_ps), not libm, as its
# wheel compiles them: every multiply that feeds an add is a fused multiply-add. Doing it in
# double and rounding once gives the better-rounded number, which differs from PyTorch's in the
# last bit for four values in ten: a float64 run on `torch.randn(...).double()` data then
# drifts from PyTorch's at 1e-7 (a float64 LeNet's training). Below, each float32 operation is
# rounded as the hardware rounds it; a fused multiply-add is the exact product (a double holds
# it) plus the addend, rounded once to double and then to float32 (a second rounding that can
# differ from one only on a tie at float32's precision: about one input in 2**29).

_F32 = np.float32


def _fma32(a: Any, b: Any, c: Any) -> np.ndarray:
    """float32 fused multiply-add of float32 operands."""
    return (
        np.asarray(a, np.float64) * np.asarray(b, np.float64) + np.asarray(c, np.float64)
    ).astype(_F32)


def _log_f32(x: np.ndarray) -> np.ndarray:
    """avx_mathfun's log256_ps over float32 values in (0, 1]."""
    x = np.maximum(x, np.array(1.17549435e-38, _F32))  # the smallest normal float
    bits = x.view(np.uint32)
    e = ((bits >> np.uint32(23)).astype(np.int32) - 0x7F).astype(_F32) + _F32(1.0)
    x = ((bits & np.uint32(~0x7F800000 & 0xFFFFFFFF)) | np.uint32(0x3F000000)).view(_F32)
    small = x < _F32(0.707106781186547524)
    tmp = np.where(small, x, _F32(0.0))
    x = x - _F32(1.0)
    e = e - np.where(small, _F32(1.0), _F32(0.0))
    x = x + tmp
    z = x * x
    y = np.full_like(x, _F32(7.0376836292e-2))
    for p in (-1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1,
              -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1):  # fmt: skip
        y = _fma32(y, x, _F32(p))
    y = y * x
    y = _fma32(y, z, e * _F32(-2.12194440e-4))
    y = _fma32(z, _F32(-0.5), y)
    x = x + y
    return _fma32(e, _F32(0.693359375), x)


def _sincos_f32(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """avx_mathfun's sincos256_ps over float32 angles."""
    bits = theta.view(np.uint32)
    sign_sin = bits & np.uint32(0x80000000)
    x = (bits & np.uint32(0x7FFFFFFF)).view(_F32)
    j = (x * _F32(1.27323954473516)).astype(np.int32)  # 4/pi, truncated toward zero
    j = (j + 1) & ~1
    yq = j.astype(_F32)
    sign_sin = sign_sin ^ ((j & 4).astype(np.uint32) << np.uint32(29))
    poly = (j & 2) == 0
    sign_cos = ((~(j - 2) & 4).astype(np.uint32)) << np.uint32(29)
    x = _fma32(yq, _F32(-0.78515625), x)
    x = _fma32(yq, _F32(-2.4187564849853515625e-4), x)
    x = _fma32(yq, _F32(-3.77489497744594108e-8), x)
    z = x * x
    yc = _fma32(_F32(2.443315711809948e-5), z, _F32(-1.388731625493765e-3))
    yc = _fma32(yc, z, _F32(4.166664568298827e-2))
    yc = yc * z
    yc = _fma32(yc, z, -(z * _F32(0.5)))
    yc = yc + _F32(1.0)
    ys = _fma32(_F32(-1.9515295891e-4), z, _F32(8.3321608736e-3))
    ys = _fma32(ys, z, _F32(-1.6666654611e-1))
    ys = ys * z
    ys = _fma32(ys, x, x)
    sin = np.where(poly, ys, yc).view(np.uint32) ^ sign_sin
    cos = np.where(poly, yc, ys).view(np.uint32) ^ sign_cos
    return sin.view(_F32), cos.view(_F32)


def _box_muller_16_f32(blocks: np.ndarray, mean: float, std: float) -> np.ndarray:
    """Rows of 16 float32 uniforms to normals: ATen's normal_fill_16_AVX2."""
    u1 = _F32(1.0) - blocks[:, :8]
    radius = np.sqrt(_F32(-2.0) * _log_f32(u1))
    sin, cos = _sincos_f32(_F32(2.0 * math.pi) * blocks[:, 8:])
    out = np.empty_like(blocks)
    m, s = _F32(mean), _F32(std)
    out[:, :8] = _fma32(radius * cos, s, m)
    out[:, 8:] = _fma32(radius * sin, s, m)
    return out


def _box_muller_16(blocks: np.ndarray, mean: float, std: float) -> None:
    """In place over rows of 16 float64 uniforms: ATen's normal_fill_16 for doubles."""
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
