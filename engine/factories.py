"""Creating tensors: torch.tensor, zeros/ones/full/arange/linspace/eye, the random factories
(drawing from engine.random, PyTorch's CPU stream), the legacy constructors, the default device.
"""

from __future__ import annotations

import builtins
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypedDict, TypeVar, Unpack

import numpy as np

from engine import dtypes
from engine.backend import CPU, Device, move, parse_device, to_numpy
from engine.dtypes import DType
from engine.random import Generator, default_generator
from engine.registry import method, public
from engine.sizes import Size
from engine.tensor import Tensor, _no_record

F = TypeVar("F", bound=Callable[..., Any])


def _legacy_new(dtype: DType, *args: Any, device: Any = None) -> Tensor:
    """torch.Tensor / torch.FloatTensor / torch.LongTensor ...: data, or a shape of zeros."""
    if not args:
        return zeros(0, dtype=dtype, device=device)
    if all(isinstance(a, int | np.integer) and not isinstance(a, bool) for a in args):
        return zeros(*args, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        return zeros(tuple(args[0]), dtype=dtype, device=device)
    if len(args) == 1:
        return tensor(args[0], dtype=dtype, device=device)
    raise TypeError(f"new() received an invalid combination of arguments: {args!r}")


class _LegacyTensorType(type):
    """torch.FloatTensor and friends: callable like the old constructors, and usable with
    isinstance (a tensor of that dtype on the CPU)."""

    _dtype: DType

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:  # type: ignore[override]
        return _legacy_new(cls._dtype, *args, **kwargs)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj._data.dtype == cls._dtype.np


class FloatTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.float32


class DoubleTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.float64


class LongTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.int64


class IntTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.int32


class BoolTensor(metaclass=_LegacyTensorType):
    _dtype = dtypes.bool_


_default_device: Device = CPU


@public("set_default_device")
def set_default_device(device: Any) -> None:
    """torch.set_default_device: where factories put tensors when no device is given."""
    global _default_device
    _default_device = parse_device(device) if device is not None else CPU


@public("get_default_device")
def get_default_device() -> Device:
    return _default_device


def _device(device: Any) -> Device:
    return _default_device if device is None else parse_device(device)


# ---- PyTorch's keywords for a new tensor (its TensorOptions), declared once -----------------
# Each factory takes the set PyTorch's own takes, as ``**options: Unpack[<set>]``; _checked
# refuses any other keyword as Python would, and _result applies them. ``layout``,
# ``pin_memory`` and ``memory_format`` are accepted and change nothing here (one layout, one
# kind of memory).


class _New(TypedDict, total=False):
    """torch.zeros / full / arange / linspace, Tensor.new_*: how and where it is made."""

    dtype: DType | None
    device: Any
    requires_grad: bool
    layout: Any
    pin_memory: bool


class _Out(_New, total=False):
    """torch.eye: the same, or written into ``out=``."""

    out: Tensor | None


class _Drawn(_Out, total=False):
    """rand / randn / randint / randperm / normal: the same, drawn from ``generator=``."""

    generator: Any


class _Like(TypedDict, total=False):
    """zeros_like / ones_like / full_like ...: in ``input``'s dtype and on its device unless
    given."""

    dtype: DType | None
    device: Any
    requires_grad: bool
    layout: Any
    memory_format: Any


class _DrawnLike(_Like, total=False):
    """rand_like / randn_like / randint_like: the same, drawn from ``generator=``."""

    generator: Any


_NO_EFFECT = ("layout", "pin_memory", "memory_format")


def _checked(fname: str, options: Mapping[str, Any], accepted: Any) -> Mapping[str, Any]:
    """``options`` if each is one that ``fname`` takes (a key of the TypedDict ``accepted``),
    else Python's TypeError for an unexpected keyword argument."""
    for key in options:
        if key not in accepted.__optional_keys__:
            raise TypeError(f"{fname}() got an unexpected keyword argument '{key}'")
    return options


def _made_like(
    fname: str, like: Tensor, options: Mapping[str, Any], accepted: Any
) -> dict[str, Any]:
    """The keywords for a tensor made like ``like``: ``dtype=`` and ``device=`` as given, else
    ``like``'s; ``requires_grad=`` and ``generator=`` passed on."""
    kept = {k: v for k, v in _checked(fname, options, accepted).items() if k not in _NO_EFFECT}
    device = options.get("device")
    return {
        **kept,
        "dtype": options.get("dtype") or like.dtype,
        "device": like.device if device is None else device,
    }


def _dtype(options: Mapping[str, Any], default: DType = dtypes.float32) -> Any:
    """The NumPy dtype ``dtype=`` asks for, else ``default``'s."""
    return (options.get("dtype") or default).np


def _result(arr: Any, options: Mapping[str, Any]) -> Tensor:
    """A built or drawn array as a factory's result: written into ``out=``, or a new tensor on
    ``device=`` (only a floating one may require grad, as PyTorch's factories say)."""
    out = options.get("out")
    if out is not None:
        return _into(out, arr)
    t = Tensor._wrap(move(arr, _device(options.get("device"))))
    if options.get("requires_grad"):
        if np.dtype(arr.dtype).kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad_(True)
    return t


def _into(out: Tensor, arr: Any) -> Tensor:
    """``out=``: the result written into ``out`` (resized as PyTorch resizes it)."""
    with _no_record():
        out._check_inplace()
    arr = arr.astype(out._data.dtype, copy=False)
    if out._data.shape == arr.shape:
        out._data[...] = move(arr, out.device)
    else:
        out._data = move(np.array(arr), out.device)
    out._bump()
    return out


def _infer_dtype(data: Any) -> Any:
    """PyTorch's inference for torch.tensor(list): bool, int64, or the default float32."""
    kinds: set[str] = set()

    def scan(x: Any) -> None:
        if isinstance(x, Tensor):
            kinds.add(x._data.dtype.kind)
        elif isinstance(x, list | tuple):
            for y in x:
                scan(y)
        elif isinstance(x, bool | np.bool_):
            kinds.add("b")
        elif isinstance(x, int | np.integer):
            kinds.add("i")
        elif isinstance(x, float | np.floating):
            kinds.add("f")
        elif isinstance(x, str):
            raise TypeError("new(): invalid data type 'str'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")

    scan(data)
    if "f" in kinds or not kinds:
        return np.float32
    if "i" in kinds:
        return np.int64
    return np.bool_


def _check_nested_lengths(data: Any) -> None:
    """PyTorch's errors for ragged nested lists (sizes come from the first element chain)."""
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    sizes: list[int] = []
    x = data
    while isinstance(x, list | tuple):
        sizes.append(len(x))
        if not x:
            break
        x = x[0]
    if isinstance(x, str) and sizes:
        raise ValueError("too many dimensions 'str'")

    def walk(y: Any, d: int) -> None:
        if d < len(sizes):
            if isinstance(y, Tensor):
                return
            if not isinstance(y, list | tuple):
                raise TypeError("not a sequence")
            if len(y) != sizes[d]:
                raise ValueError(
                    f"expected sequence of length {sizes[d]} at dim {d} (got {len(y)})"
                )
            for z in y:
                walk(z, d + 1)
        elif isinstance(y, list | tuple):
            raise TypeError(f"'{type(y).__name__}' object cannot be interpreted as an integer")

    walk(data, 0)


def _to_nested(data: Any) -> Any:
    if isinstance(data, Tensor):
        return to_numpy(data._data)
    if isinstance(data, list | tuple | range):
        return [_to_nested(x) for x in data]
    return data


@public("tensor")
def tensor(
    data: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """torch.tensor: copy data (numbers, nested lists, arrays, tensors) into a new leaf."""
    if isinstance(data, Tensor):
        arr = to_numpy(data._data).copy()
        if dtype is not None:
            arr = arr.astype(dtype.np)
    elif isinstance(data, np.ndarray):
        arr = np.array(data, dtype=dtype.np if dtype else None)
        if dtype is None and arr.dtype == np.float64:
            arr = arr.astype(np.float64)
    else:
        _check_nested_lengths(data)
        np_dtype = dtype.np if dtype is not None else _infer_dtype(data)
        try:
            arr = np.array(_to_nested(data), dtype=np_dtype)
        except ValueError as exc:
            if "inhomogeneous" in str(exc) or "sequence" in str(exc):
                raise ValueError(
                    "expected sequence of equal length lists (ragged nested lists cannot form "
                    "a tensor)"
                ) from None
            raise
    if arr.dtype == object:
        raise TypeError("Could not infer dtype of object")
    return _result(arr, {"device": device, "requires_grad": requires_grad})


@public("as_tensor")
def as_tensor(data: Any, dtype: DType | None = None, device: Any = None) -> Tensor:
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data
    return tensor(data, dtype=dtype, device=device)


@public("from_numpy")
def from_numpy(array: np.ndarray) -> Tensor:
    return Tensor._wrap(array)


def _shape_arg(shape: Sequence[Any], fname: str = "") -> tuple[int, ...]:
    """A shape given as ints or one sequence; ``fname`` words errors as PyTorch's factories do."""
    single = len(shape) == 1
    if single and isinstance(shape[0], list | tuple | Size):
        shape, single = tuple(shape[0]), False
    out = []
    for pos, s in enumerate(shape):
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, int | np.integer) or isinstance(s, bool):
            name = type(s).__name__
            if not fname:
                raise TypeError(f"expected a sequence of integers as the shape, got {name}")
            if single:
                raise TypeError(
                    f"{fname}(): argument 'size' (position 1) must be tuple of ints, not {name}"
                )
            raise TypeError(
                f"{fname}(): argument 'size' failed to unpack the object at pos {pos + 1} with "
                f'error "type must be tuple of ints,but got {name}"'
            )
        out.append(int(s))
    return tuple(out)


def _filled(name: str, fill: Any, fname: str = "") -> Callable[..., Tensor]:
    """zeros / ones / empty: ``*size`` filled by ``fill(xp, shape, dtype)`` on the device."""

    def factory(*shape: Any, **options: Unpack[_New]) -> Tensor:
        _checked(name, options, _New)
        dims = _dims(shape, fname or name)
        arr = fill(_device(options.get("device")).xp, dims, _dtype(options))
        return _result(arr, options)

    return _declare(name, factory)


def _dims(shape: Any, fname: str) -> tuple[int, ...]:
    """A factory's shape (see _shape_arg), refusing negative sizes as PyTorch does."""
    dims = _shape_arg(shape, fname)
    for d in dims:
        if d < 0:
            if fname == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(dims)}")
    return dims


def _declare(name: str, fn: F) -> F:
    """A factory made by one of the builders here, named as PyTorch names it (a bad argument's
    TypeError says ``rand()``) and made public as ``torch.<name>``."""
    fn.__name__ = fn.__qualname__ = name
    return public(name)(fn)


def _zeros(xp: Any, shape: tuple[int, ...], dtype: Any) -> Any:
    return xp.zeros(shape, dtype)


zeros = _filled("zeros", _zeros)
ones = _filled("ones", lambda xp, s, d: xp.ones(s, d))
empty = _filled("empty", _zeros, "zeros")  # zeros here (uninitialised in PyTorch)


@public("full")
def full(size: Any, fill_value: Any, **options: Unpack[_New]) -> Tensor:
    _checked("full", options, _New)
    if not isinstance(size, list | tuple | Size):
        raise TypeError(
            f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}"
        )
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    if not isinstance(fill_value, int | float | bool | np.number | np.bool_):
        raise TypeError(
            "full(): argument 'fill_value' (position 2) must be Number, not "
            f"{type(fill_value).__name__}"
        )
    np_dtype = _dtype(options) if options.get("dtype") else _infer_dtype(fill_value)
    arr = _device(options.get("device")).xp.full(_dims((size,), ""), fill_value, np_dtype)
    return _result(arr, options)


def _like_factory(name: str, make: Callable[..., Tensor], random: bool = False) -> Any:
    """zeros_like / ones_like / empty_like / rand_like / randn_like: ``make`` at ``input``'s
    shape, and its dtype and device unless given; the random ones also take ``generator=``."""
    accepted = _DrawnLike if random else _Like

    def like(input: Tensor, **options: Unpack[_DrawnLike]) -> Tensor:
        return make(input._data.shape, **_made_like(name, input, options, accepted))

    return _declare(name, like)


zeros_like = _like_factory("zeros_like", zeros)
ones_like = _like_factory("ones_like", ones)
empty_like = _like_factory("empty_like", zeros)


@public("full_like")
def full_like(input: Tensor, fill_value: Any, **options: Unpack[_Like]) -> Tensor:
    return full(input._data.shape, fill_value, **_made_like("full_like", input, options, _Like))


@public("arange")
def arange(start: Any, end: Any = None, step: Any = 1, **options: Unpack[_New]) -> Tensor:
    _checked("arange", options, _New)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (vals[2] > 0 and vals[1] < vals[0]) or (vals[2] < 0 and vals[1] > vals[0]):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    floating = builtins.any(isinstance(v, float) for v in vals)
    n = builtins.max(0, int(np.ceil((vals[1] - vals[0]) / vals[2])))
    arr = np.arange(n, dtype=np.float64) * vals[2] + vals[0]
    return _result(
        arr.astype(_dtype(options, dtypes.float32 if floating else dtypes.int64)), options
    )


@public("linspace")
def linspace(start: float, end: float, steps: int, **options: Unpack[_New]) -> Tensor:
    _checked("linspace", options, _New)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if steps == 1:
        arr = np.array([start], dtype=_dtype(options))
    else:
        # PyTorch fills the first half from start and the second half from end
        step = (end - start) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        arr = np.where(i < half, start + step * i, end - step * (steps - 1 - i))
    return _result(arr.astype(_dtype(options)), options)


@public("eye")
def eye(n: int, m: int | None = None, **options: Unpack[_Out]) -> Tensor:
    _checked("eye", options, _Out)
    arr = np.eye(n, m, dtype=_dtype(options))
    return _result(arr, options)


def _generator(generator: Any, fname: str) -> Generator:
    """The generator a random function draws from: the one given, else the default."""
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(
            f"{fname}(): argument 'generator' must be torch.Generator, not "
            f"{type(generator).__name__}"
        )
    return generator


def _size(shape: tuple[Any, ...], size: Any, fname: str) -> Any:
    """``*size`` or ``size=``, as PyTorch's factories take either."""
    if size is not None:
        if shape:
            raise TypeError(f"{fname}() got multiple values for argument 'size'")
        return (size,)
    return shape


def _random(
    shape: Any, draw: Any, fname: str, options: Mapping[str, Any], default: DType
) -> Tensor:
    """``draw(generator, n, dtype)`` at ``shape``: in ``out=``'s dtype when no ``dtype=`` is
    given, else ``default``."""
    dims = _dims(shape, fname)
    out = options.get("out")
    dtype = options.get("dtype") or (out.dtype if out is not None else default)
    n = int(np.prod(dims)) if dims else 1
    arr = draw(_generator(options.get("generator"), fname), n, dtype.np).reshape(dims)
    return _result(arr, options)


def _shape_random(name: str, draw: Any) -> Callable[..., Tensor]:
    """rand / randn: ``*size`` or ``size=``, drawn from the stream by ``draw(g, n, dtype)``."""

    def factory(*shape: Any, size: Any = None, **options: Unpack[_Drawn]) -> Tensor:
        _checked(name, options, _Drawn)
        return _random(_size(shape, size, name), draw, name, options, dtypes.float32)

    return _declare(name, factory)


rand = _shape_random("rand", lambda g, n, d: g.uniform(n, 0.0, 1.0, d))
randn = _shape_random("randn", lambda g, n, d: g.normal(n, 0.0, 1.0, d))


@public("randint")
def randint(
    *args: Any, low: Any = None, high: Any = None, size: Any = None, **options: Unpack[_Drawn]
) -> Tensor:
    """randint(high, size) or randint(low, high, size), positionally or by keyword."""
    _checked("randint", options, _Drawn)
    given = list(args)
    if size is None and given and not isinstance(given[-1], int | np.integer):
        size = given.pop()
    if high is None and given:
        high = given.pop()
    if low is None:
        low = given.pop() if given else 0
    if given or high is None or size is None:
        raise TypeError(
            "randint() received an invalid combination of arguments - expected "
            "(int low, int high, tuple of ints size, *, torch.Generator generator, ...)"
        )
    low, high = int(low), int(high)
    draw = lambda g, n, d: g.randint(low, high, n).astype(d)  # noqa: E731
    return _random(size, draw, "randint", options, dtypes.int64)


@public("randperm")
def randperm(n: int, **options: Unpack[_Drawn]) -> Tensor:
    _checked("randperm", options, _Drawn)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    g = _generator(options.get("generator"), "randperm")
    return _result(g.randperm(int(n)).astype(_dtype(options, dtypes.int64)), options)


rand_like = _like_factory("rand_like", rand, random=True)
randn_like = _like_factory("randn_like", randn, random=True)


@public("randint_like")
def randint_like(
    input: Tensor, low: int = 0, high: Any = None, **options: Unpack[_DrawnLike]
) -> Tensor:
    if high is None:
        low, high = 0, low
    made = _made_like("randint_like", input, options, _DrawnLike)
    return randint(low, high, tuple(input._data.shape), **made)


@public("normal")
def normal(mean: Any, std: Any = 1.0, size: Any = None, **options: Unpack[_Drawn]) -> Tensor:
    """torch.normal: tensors of means and/or standard deviations (ATen draws standard normals,
    then ``z * std + mean`` in the tensors' dtype), or numbers and a ``size``."""
    _checked("normal", options, _Drawn)
    g = _generator(options.get("generator"), "normal")
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError(
                "normal() received an invalid combination of arguments - got (float, float), "
                "but expected one of: (Tensor mean, Tensor std, *, torch.Generator generator, "
                "Tensor out) / (float mean, float std, tuple of ints size, *, ...)"
            )
        if float(std) < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {float(std)}")
        draw = lambda gen, n, d: gen.normal(n, float(mean), float(std), d)  # noqa: E731
        return _random((size,), draw, "normal", options, dtypes.float32)
    ref = mean if mean_t else std
    shape = np.broadcast_shapes(
        np.shape(getattr(mean, "_data", mean)), np.shape(getattr(std, "_data", std))
    )
    float_dtype = ref._data.dtype
    if float_dtype.kind != "f":
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{ref.dtype.name}'")
    if std_t and bool((to_numpy(std._data) < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    n = int(np.prod(shape)) if shape else 1
    with _no_record():
        if mean_t and not std_t:  # normal_(0, std), then + mean
            z = g.normal(n, 0.0, float(std), float_dtype).reshape(shape)
            arr = z + to_numpy(mean._data).astype(float_dtype)
        else:  # standard normals, then * std + mean
            z = g.normal(n, 0.0, 1.0, float_dtype).reshape(shape)
            arr = (z * to_numpy(std._data).astype(float_dtype)).astype(float_dtype)
            arr = arr + np.asarray(to_numpy(getattr(mean, "_data", mean)), dtype=float_dtype)
    arr = np.asarray(arr, dtype=float_dtype)
    out = options.get("out")
    if out is not None:
        return _into(out, arr)
    return Tensor._wrap(move(arr, ref.device))


@public("bernoulli")
def bernoulli(
    input: Tensor, p: Any = None, *, generator: Any = None, out: Tensor | None = None
) -> Tensor:
    """torch.bernoulli(probs): 1 where a uniform draw falls below each probability."""
    g = _generator(generator, "bernoulli")
    data = to_numpy(input._data)
    if p is not None:
        hits = g.bernoulli_scalar(data.size, float(p)).reshape(data.shape)
    else:
        if data.size and (bool((data < 0).any()) or bool((data > 1).any())):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        hits = g.bernoulli_probs(data)
    arr = hits.astype(data.dtype)
    if out is not None:
        return _into(out, arr)
    return Tensor._wrap(move(arr, input.device))


@public("multinomial")
def multinomial(
    input: Tensor,
    num_samples: int,
    replacement: bool = False,
    *,
    generator: Any = None,
    out: Tensor | None = None,
) -> Tensor:
    """torch.multinomial: indices drawn from each row's (unnormalised) probabilities, by
    ATen's algorithms (see engine.random), so seeded samples are PyTorch's."""
    g = _generator(generator, "multinomial")
    probs = to_numpy(input._data)
    if probs.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if probs.dtype.kind != "f":
        raise RuntimeError(
            "multinomial only supports floating-point dtypes for input, got: "
            f"{input.dtype.name.capitalize()}"
        )
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    k = probs.shape[-1]
    if not replacement and num_samples > k:
        raise RuntimeError(
            "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
        )
    if k > 1 << 24:
        raise RuntimeError("number of categories cannot exceed 2^24")
    rows = probs.reshape(-1, k)
    if bool((rows < 0).any()) or not bool(np.isfinite(rows).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if bool((rows.sum(axis=-1) == 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    arr = g.multinomial(rows, int(num_samples), bool(replacement))
    if probs.ndim == 1:
        arr = arr[0]
    if out is not None:
        return _into(out, arr)
    return Tensor._wrap(move(arr, input.device))


# ---- Tensor methods that create tensors -------------------------------------------------------


@method("__new__")  # type: ignore[misc]
@staticmethod
def _tensor_new(cls: type, *args: Any, **kwargs: Any) -> Tensor:
    """The legacy constructor: ``torch.Tensor([1, 2])`` (data) or ``torch.Tensor(2, 3)``
    (a shape; zeros here, uninitialised in PyTorch); always float32."""
    return _legacy_new(dtypes.float32, *args, **kwargs)


def _new_filled(make: Callable[..., Tensor], *names: str) -> Any:
    """Tensor.new_zeros / new_empty / new_ones: ``make`` with this tensor's dtype and device
    unless given."""

    def new(self: Tensor, *size: Any, **options: Unpack[_New]) -> Tensor:
        return make(*size, **_made_like(names[0], self, options, _New))

    new.__name__ = new.__qualname__ = names[0]
    return method(*names)(new)


_new_zeros = _new_filled(zeros, "new_zeros", "new_empty")
_new_ones = _new_filled(ones, "new_ones")


@method("new_full")
def _new_full(self: Tensor, size: Any, fill_value: Any, **options: Unpack[_New]) -> Tensor:
    return full(size, fill_value, **_made_like("new_full", self, options, _New))


@method("new_tensor")
def _new_tensor(self: Tensor, data: Any, **options: Unpack[_New]) -> Tensor:
    return tensor(data, **_made_like("new_tensor", self, options, _New))


def _fill_random(self: Tensor, vals: Any) -> Tensor:
    """Write drawn values into ``self`` in place (a leaf that requires grad refuses, as in
    PyTorch; under no_grad it is an update like any other)."""
    with _no_record():
        self._check_inplace()
    self._data[...] = move(np.asarray(vals).reshape(self._data.shape), self.device)
    self._bump()
    return self


@method("normal_")
def _normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    g = _generator(generator, "normal_")
    return _fill_random(self, g.normal(self._data.size, mean, std, self._data.dtype))


@method("uniform_")
def _uniform_(self: Tensor, a: float = 0.0, b: float = 1.0, *, generator: Any = None) -> Tensor:
    g = _generator(generator, "uniform_")
    return _fill_random(self, g.uniform(self._data.size, a, b, self._data.dtype))


@method("exponential_")
def _exponential_(self: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    g = _generator(generator, "exponential_")
    return _fill_random(self, g.exponential(self._data.size, lambd, self._data.dtype))


@method("bernoulli_")
def _bernoulli_(self: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    g = _generator(generator, "bernoulli_")
    if isinstance(p, Tensor):
        probs = np.broadcast_to(to_numpy(p._data), self._data.shape)
        hits = g.bernoulli_probs(np.ascontiguousarray(probs))
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        hits = g.bernoulli_scalar(self._data.size, float(p))
    return _fill_random(self, hits.astype(self._data.dtype))


@method("random_")
def _random_(self: Tensor, low: Any = None, high: Any = None, *, generator: Any = None) -> Tensor:
    """random_(to) / random_(from, to) / random_(): integers drawn uniformly, as ATen does."""
    g = _generator(generator, "random_")
    n = self._data.size
    if low is not None and high is None:
        low, high = 0, low
    if low is None:  # the whole range of the dtype (up to 2**24 / 2**53 for floats)
        kind = self._data.dtype
        if kind == np.float32:
            vals = (g.random32(n) % np.uint64((1 << 24) + 1)).astype(np.int64)
        elif kind == np.float64 or kind == np.int64:
            bits = 53 if kind == np.float64 else 63
            vals = (g.random64(n) % np.uint64((1 << bits) + (1 if bits == 53 else 0))).astype(
                np.int64
            )
        else:
            info = np.iinfo(kind) if kind.kind in "iu" else None
            top = (info.max + 1) if info is not None else 2
            vals = (g.random32(n) % np.uint64(top)).astype(np.int64)
        return _fill_random(self, vals.astype(kind))
    return _fill_random(self, g.randint(int(low), int(high), n).astype(self._data.dtype))


@method("bernoulli")
def _bernoulli(self: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    return bernoulli(self, p, generator=generator)


@method("multinomial")
def _multinomial(
    self: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None
) -> Tensor:
    return multinomial(self, num_samples, replacement, generator=generator)
