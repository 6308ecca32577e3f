"""Tensor: data, grad, requires_grad, grad_fn, is_leaf, version; operators and composites.

Every differentiable operation goes through :func:`apply`, which runs an ``ops`` row's
forward and, when grad mode is on and an input requires grad, records a :class:`Node`.
"""

from __future__ import annotations

import builtins
import weakref
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from engine import _format, dtypes, limits
from engine import ops as O
from engine.autograd import Node, _mode
from engine.autograd import backward as _backward
from engine.backend import CPU, Device, array_module, device_of, move, parse_device, to_numpy
from engine.dtypes import DType

_Scalar = (int, float, bool, np.number, np.bool_)


class Size(tuple):  # type: ignore[type-arg]
    """torch.Size: a tuple that prints as ``torch.Size([2, 3])``."""

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(s) for s in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n


class _ReturnTypes(tuple):  # type: ignore[type-arg]
    """Named results (``torch.return_types.max(values=..., indices=...)``): a 2-tuple."""

    kind: str

    def __new__(cls, kind: str, values: Tensor, indices: Tensor) -> _ReturnTypes:
        obj = tuple.__new__(cls, (values, indices))
        obj.kind = kind
        return obj

    @property
    def values(self) -> Tensor:
        return self[0]  # type: ignore[no-any-return]

    @property
    def indices(self) -> Tensor:
        return self[1]  # type: ignore[no-any-return]

    def __repr__(self) -> str:
        return f"torch.return_types.{self.kind}(\nvalues={self[0]!r},\nindices={self[1]!r})"

    __str__ = __repr__


class Tensor:
    """A multi-dimensional array that can record the operations that produced it."""

    # Hot attributes are slots; rare ones (_name, _untracked, _param, _retains_grad) live in the
    # lazily created instance dict and default to the class attributes below, so creating a
    # tensor sets five attributes, not nine.
    __slots__ = ("__dict__", "__weakref__", "_data", "_version", "grad", "grad_fn", "requires_grad")
    _name: str | None = None
    _untracked: str | None = None
    _param: bool = False
    _retains_grad: bool = False
    __array_priority__ = 1000  # so numpy scalars defer to our reflected operators

    _data: Any
    _version: builtins.int
    grad: Tensor | None
    grad_fn: Node | None
    requires_grad: bool

    def __new__(cls, *args: Any, **kwargs: Any) -> Tensor:
        """The legacy constructor: ``torch.Tensor([1, 2])`` (data) or ``torch.Tensor(2, 3)``
        (a shape; zeros here, uninitialised in PyTorch); always float32."""
        return _legacy_new(dtypes.float32, *args, **kwargs)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    @classmethod
    def _wrap(cls, data: Any, requires_grad: builtins.bool = False) -> Tensor:
        """Wrap an array without copying (0-d results become 0-d arrays, not scalars)."""
        t = object.__new__(cls)
        if data.__class__ is not np.ndarray and isinstance(data, np.generic):
            data = np.asarray(data)
        t._data = data
        t.grad = None
        t.grad_fn = None
        t.requires_grad = requires_grad
        t._version = 0
        return t

    # --- attributes -----------------------------------------------------------------------------
    @property
    def data(self) -> Tensor:
        """A tensor sharing this one's storage, outside the graph (``p.data`` updates)."""
        t = Tensor._wrap(self._data)
        t._untracked = ".data"
        return t

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._data = value._data

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    def size(self, dim: builtins.int | None = None) -> Any:
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[self._dim(dim)]

    def dim(self) -> builtins.int:
        return int(self._data.ndim)

    ndim = property(dim)

    def numel(self) -> builtins.int:
        return int(self._data.size)

    nelement = numel

    @property
    def dtype(self) -> DType:
        return dtypes.from_numpy(self._data.dtype)

    @property
    def device(self) -> Device:
        return device_of(self._data)

    @property
    def is_cuda(self) -> builtins.bool:
        return self.device.type == "cuda"

    @property
    def is_leaf(self) -> builtins.bool:
        return self.grad_fn is None

    def is_floating_point(self) -> builtins.bool:
        return self._data.dtype.kind == "f"

    @property
    def retains_grad(self) -> builtins.bool:
        return self._retains_grad

    @property
    def T(self) -> Tensor:
        return permute(self, tuple(range(self._data.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:
        return transpose(self, -2, -1)

    def _dim(self, dim: builtins.int) -> builtins.int:
        return _norm_dim(dim, self._data.ndim)

    # --- conversion -----------------------------------------------------------------------------
    def item(self) -> Any:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return to_numpy(self._data).reshape(()).item()

    def tolist(self) -> Any:
        return to_numpy(self._data).tolist()

    def numpy(self) -> np.ndarray:
        if self.requires_grad:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if self.device.type != "cpu":
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to "
                "copy the tensor to host memory first."
            )
        return self._data  # type: ignore[no-any-return]

    def __float__(self) -> builtins.float:
        return float(self._scalar("float"))

    def __int__(self) -> builtins.int:
        return int(self._scalar("int"))

    def __bool__(self) -> builtins.bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __index__(self) -> builtins.int:
        if self._data.dtype.kind not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def _scalar(self, what: str) -> Any:
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return self.item()

    def __len__(self) -> builtins.int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self._data.shape[0])

    def __iter__(self) -> Any:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    __hash__ = object.__hash__  # identity, at C speed (== is elementwise, as in PyTorch)

    def __repr__(self) -> str:
        text = self._repr()
        return "Parameter containing:\n" + text if self._param else text

    __str__ = __repr__

    def _repr(self) -> str:
        grad_fn = self.grad_fn.name() if self.grad_fn is not None else None
        return _format.tensor_repr(
            to_numpy(self._data),
            dtype_name=self._data.dtype.name,
            device=str(self.device),
            grad_fn=grad_fn,
            requires_grad=self.requires_grad,
        )

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return repr(self)

    # --- autograd -------------------------------------------------------------------------------
    def backward(
        self,
        gradient: Any = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Any = None,
    ) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``."""
        _backward(self, gradient, retain_graph, create_graph, inputs)

    def detach(self) -> Tensor:
        t = Tensor._wrap(self._data)
        if self.requires_grad:
            t._untracked = "detach()"
        return t

    def detach_(self) -> Tensor:
        self.grad_fn = None
        self.requires_grad = False
        return self

    def requires_grad_(self, requires_grad: builtins.bool = True) -> Tensor:
        if self.grad_fn is not None and not requires_grad:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if requires_grad and self._data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if self.grad_fn is None:
            self.requires_grad = bool(requires_grad)
        return self

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is not None:
            self._retains_grad = True

    def register_hook(self, hook: Any) -> None:
        raise RuntimeError("register_hook is not supported in the playground")

    # --- in-place ops ---------------------------------------------------------------------------
    def _check_inplace(self) -> builtins.bool:
        """True when the in-place op must be recorded in the graph."""
        if _mode.enabled and self.requires_grad:
            if self.grad_fn is None:
                raise RuntimeError(
                    "a leaf Variable that requires grad is being used in an in-place operation."
                )
            return True
        return False

    def _inplace(self, result: Tensor) -> Tensor:
        """Make self hold result's value (and history), bumping its version counter."""
        new = result._data
        if new.dtype != self._data.dtype:
            if dtypes.category(new.dtype) > dtypes.category(self._data.dtype):
                raise RuntimeError(
                    f"result type {dtypes.from_numpy(new.dtype).name.capitalize()} can't be "
                    f"cast to the desired output type "
                    f"{dtypes.type_word(self._data.dtype)}"
                )
            new = new.astype(self._data.dtype)
        if new.shape != self._data.shape:
            raise RuntimeError(
                f"output with shape {list(self._data.shape)} doesn't match the broadcast shape "
                f"{list(new.shape)}"
            )
        self._data[...] = new
        self._version += 1
        if result.grad_fn is not None:
            self.grad_fn = result.grad_fn
            self.requires_grad = True
            result.grad_fn.out = weakref.ref(self)
        return self

    def _shadow(self) -> Tensor:
        """A stand-in for self's value before an in-place op that is recorded in the graph."""
        old = Tensor._wrap(self._data.copy(), self.requires_grad)
        old.grad_fn = self.grad_fn
        if self.grad_fn is not None:
            # the node that produced self shows its value from before the in-place change
            self.grad_fn.out_value = old._data
        old._name = self._name
        return old

    def _inplace_binary(self, fn: Any, other: Any) -> Tensor:
        if self._check_inplace() or (_mode.enabled and getattr(other, "requires_grad", False)):
            return self._inplace(fn(self._shadow(), other))
        with _no_record():
            return self._inplace(fn(self, other))

    def add_(self, other: Any, alpha: Any = 1) -> Tensor:
        return self._inplace_binary(lambda a, b: add(a, b, alpha=alpha), other)

    def sub_(self, other: Any, alpha: Any = 1) -> Tensor:
        return self._inplace_binary(lambda a, b: sub(a, b, alpha=alpha), other)

    def mul_(self, other: Any) -> Tensor:
        return self._inplace_binary(mul, other)

    def div_(self, other: Any) -> Tensor:
        return self._inplace_binary(div, other)

    def pow_(self, other: Any) -> Tensor:
        return self._inplace_binary(pow, other)

    def clamp_(self, min: Any = None, max: Any = None) -> Tensor:
        return self._inplace_binary(lambda a, _: clamp(a, min, max), None)

    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    def zero_(self) -> Tensor:
        return self.fill_(0)

    def fill_(self, value: Any) -> Tensor:
        if self._check_inplace():
            return self._inplace(mul(self._shadow(), 0) + value)
        self._data[...] = value.item() if isinstance(value, Tensor) else value
        self._version += 1
        return self

    def copy_(self, src: Any) -> Tensor:
        src_t = src if isinstance(src, Tensor) else tensor(src)
        if self._check_inplace() or (_mode.enabled and src_t.requires_grad):
            return self._inplace(mul(self._shadow(), 0) + src_t)
        self._data[...] = move(src_t._data, self.device).astype(self._data.dtype, copy=False)
        self._version += 1
        return self

    def normal_(self, mean: builtins.float = 0.0, std: builtins.float = 1.0) -> Tensor:
        from engine.random import default_generator

        with _no_record():
            self._check_inplace()
        vals = default_generator.normal(self._data.size, mean, std, self._data.dtype)
        self._data[...] = move(vals.reshape(self._data.shape), self.device)
        self._version += 1
        return self

    def uniform_(self, a: builtins.float = 0.0, b: builtins.float = 1.0) -> Tensor:
        from engine.random import default_generator

        self._check_inplace()
        vals = default_generator.uniform(self._data.size, a, b, self._data.dtype)
        self._data[...] = move(vals.reshape(self._data.shape), self.device)
        self._version += 1
        return self

    def __setitem__(self, key: Any, value: Any) -> None:
        if self._check_inplace():
            raise RuntimeError(
                "indexed assignment to a tensor that is part of a graph is not supported in the "
                "playground; build the new tensor with torch.where or torch.cat instead"
            )
        index, _ = _index(key, self._data.ndim)
        val = value._data if isinstance(value, Tensor) else value
        try:
            self._data[index] = val
        except IndexError as exc:
            raise IndexError(str(exc).replace("axis", "dimension")) from None
        self._version += 1

    # --- conversions that record ----------------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        for a in args:
            if isinstance(a, DType):
                dtype = a
            elif isinstance(a, str | Device):
                device = a
            elif isinstance(a, Tensor):
                dtype, device = a.dtype, a.device
        return to_copy(self, dtype, device)

    def float(self) -> Tensor:
        return to_copy(self, dtypes.float32, None)

    def double(self) -> Tensor:
        return to_copy(self, dtypes.float64, None)

    def half(self) -> Tensor:
        return to_copy(self, dtypes.float16, None)

    def long(self) -> Tensor:
        return to_copy(self, dtypes.int64, None)

    def int(self) -> Tensor:
        return to_copy(self, dtypes.int32, None)

    def bool(self) -> Tensor:
        return to_copy(self, dtypes.bool_, None)

    def type(self, dtype: DType) -> Tensor:
        return to_copy(self, dtype, None)

    def cpu(self) -> Tensor:
        return to_copy(self, None, "cpu")

    def cuda(self, device: Any = None) -> Tensor:
        return to_copy(self, None, "cuda" if device is None else f"cuda:{device}")

    def clone(self) -> Tensor:
        return apply(O.CLONE, (self,))

    def contiguous(self) -> Tensor:
        return self

    def __deepcopy__(self, memo: Any) -> Tensor:
        t = Tensor._wrap(self._data.copy(), self.requires_grad)
        return t

    # --- shapes ---------------------------------------------------------------------------------
    def reshape(self, *shape: Any) -> Tensor:
        return reshape(self, _shape_arg(shape))

    def view(self, *shape: Any) -> Tensor:
        if len(shape) == 1 and isinstance(shape[0], DType):
            raise RuntimeError("view(dtype) is not supported in the playground")
        return reshape(self, _shape_arg(shape))

    def view_as(self, other: Tensor) -> Tensor:
        return reshape(self, other._data.shape)

    reshape_as = view_as

    def expand(self, *sizes: Any) -> Tensor:
        return expand(self, _shape_arg(sizes))

    def expand_as(self, other: Tensor) -> Tensor:
        return expand(self, other._data.shape)

    def permute(self, *dims: Any) -> Tensor:
        return permute(self, _shape_arg(dims))

    def transpose(self, dim0: builtins.int, dim1: builtins.int) -> Tensor:
        return transpose(self, dim0, dim1)

    def t(self) -> Tensor:
        if self._data.ndim > 2:
            raise RuntimeError(
                f"t() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D"
            )
        return permute(self, tuple(range(self._data.ndim - 1, -1, -1)), name="TBackward0")

    def unsqueeze(self, dim: builtins.int) -> Tensor:
        return unsqueeze(self, dim)

    def squeeze(self, dim: builtins.int | None = None) -> Tensor:
        return squeeze(self, dim)

    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = -1) -> Tensor:
        return flatten(self, start_dim, end_dim)

    def __getitem__(self, key: Any) -> Tensor:
        return getitem(self, key)

    def gather(self, dim: builtins.int, index: Tensor) -> Tensor:
        return gather(self, dim, index)

    # --- reductions -----------------------------------------------------------------------------
    def sum(
        self, dim: Any = None, keepdim: builtins.bool = False, dtype: DType | None = None
    ) -> Tensor:
        return sum(self, dim, keepdim, dtype=dtype)

    def mean(
        self, dim: Any = None, keepdim: builtins.bool = False, dtype: DType | None = None
    ) -> Tensor:
        return mean(self, dim, keepdim, dtype=dtype)

    def max(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return max(self, dim, keepdim)

    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return min(self, dim, keepdim)

    def amax(self, dim: Any = (), keepdim: builtins.bool = False) -> Tensor:
        return amax(self, dim, keepdim)

    def amin(self, dim: Any = (), keepdim: builtins.bool = False) -> Tensor:
        return amin(self, dim, keepdim)

    def argmax(self, dim: builtins.int | None = None, keepdim: builtins.bool = False) -> Tensor:
        return argmax(self, dim, keepdim)

    def argmin(self, dim: builtins.int | None = None, keepdim: builtins.bool = False) -> Tensor:
        return argmin(self, dim, keepdim)

    def var(
        self,
        dim: Any = None,
        unbiased: builtins.bool = True,
        keepdim: builtins.bool = False,
        correction: Any = None,
    ) -> Tensor:
        return var(self, dim, unbiased=unbiased, keepdim=keepdim, correction=correction)

    def std(
        self,
        dim: Any = None,
        unbiased: builtins.bool = True,
        keepdim: builtins.bool = False,
        correction: Any = None,
    ) -> Tensor:
        return std(self, dim, unbiased=unbiased, keepdim=keepdim, correction=correction)

    def norm(self, p: Any = 2, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        return norm(self, p, dim, keepdim)

    def softmax(self, dim: builtins.int | None = None) -> Tensor:
        if dim is None:
            raise TypeError('softmax() missing 1 required positional arguments: "dim"')
        return softmax(self, dim)

    def log_softmax(self, dim: builtins.int | None = None) -> Tensor:
        if dim is None:
            raise TypeError('log_softmax() missing 1 required positional arguments: "dim"')
        return log_softmax(self, dim)

    # --- elementwise ----------------------------------------------------------------------------
    def exp(self) -> Tensor:
        return _apply1(O.EXP, self)

    def log(self) -> Tensor:
        return _apply1(O.LOG, self)

    def log1p(self) -> Tensor:
        return _apply1(O.LOG1P, self)

    def sqrt(self) -> Tensor:
        return _apply1(O.SQRT, self)

    def rsqrt(self) -> Tensor:
        return _apply1(O.RSQRT, self)

    def abs(self) -> Tensor:
        return _apply1(O.ABS, self)

    def sin(self) -> Tensor:
        return _apply1(O.SIN, self)

    def cos(self) -> Tensor:
        return _apply1(O.COS, self)

    def tanh(self) -> Tensor:
        return _apply1(O.TANH, self)

    def sigmoid(self) -> Tensor:
        return _apply1(O.SIGMOID, self)

    def relu(self) -> Tensor:
        return _apply1(O.RELU, self)

    def neg(self) -> Tensor:
        return _apply1(O.NEG, self)

    def reciprocal(self) -> Tensor:
        return _apply1(O.RECIPROCAL, self)

    def square(self) -> Tensor:
        return pow(self, 2)

    def floor(self) -> Tensor:
        return _apply1(O.FLOOR, self)

    def tan(self) -> Tensor:
        return _apply1(O.TAN, self)

    def log2(self) -> Tensor:
        return _apply1(O.LOG2, self)

    def log10(self) -> Tensor:
        return _apply1(O.LOG10, self)

    def expm1(self) -> Tensor:
        return _apply1(O.EXPM1, self)

    def erf(self) -> Tensor:
        return _apply1(O.ERF, self)

    def ceil(self) -> Tensor:
        return _apply1(O.CEIL, self)

    def cumsum(self, dim: builtins.int) -> Tensor:
        return cumsum(self, dim)

    def masked_fill(self, mask: Tensor, value: Any) -> Tensor:
        return masked_fill(self, mask, value)

    def sort(self, dim: builtins.int = -1, descending: builtins.bool = False) -> Any:
        return sort(self, dim, descending)

    def argsort(self, dim: builtins.int = -1, descending: builtins.bool = False) -> Tensor:
        return argsort(self, dim, descending)

    def topk(self, k: builtins.int, dim: builtins.int = -1, largest: builtins.bool = True) -> Any:
        return topk(self, k, dim, largest)

    def nonzero(self) -> Tensor:
        return nonzero(self)

    def new_zeros(self, *size: Any) -> Tensor:
        return zeros(*size, dtype=self.dtype, device=self.device)

    def new_ones(self, *size: Any) -> Tensor:
        return ones(*size, dtype=self.dtype, device=self.device)

    def new_full(self, size: Any, fill_value: Any) -> Tensor:
        return full(size, fill_value, dtype=self.dtype, device=self.device)

    def new_tensor(self, data: Any) -> Tensor:
        return tensor(data, dtype=self.dtype, device=self.device)

    def sign(self) -> Tensor:
        return _nograd_unary(self, np.sign)

    def pow(self, exponent: Any) -> Tensor:
        return pow(self, exponent)

    def clamp(self, min: Any = None, max: Any = None) -> Tensor:
        return clamp(self, min, max)

    clip = clamp

    def round(self, decimals: builtins.int = 0) -> Tensor:
        return round(self, decimals=decimals)

    def maximum(self, other: Tensor) -> Tensor:
        return maximum(self, other)

    def minimum(self, other: Tensor) -> Tensor:
        return minimum(self, other)

    def add(self, other: Any, alpha: Any = 1) -> Tensor:
        return add(self, other, alpha=alpha)

    def sub(self, other: Any, alpha: Any = 1) -> Tensor:
        return sub(self, other, alpha=alpha)

    def mul(self, other: Any) -> Tensor:
        return mul(self, other)

    def div(self, other: Any) -> Tensor:
        return div(self, other)

    def matmul(self, other: Tensor) -> Tensor:
        return matmul(self, other)

    def mm(self, other: Tensor) -> Tensor:
        return matmul(self, other)

    def dot(self, other: Tensor) -> Tensor:
        return matmul(self, other)

    def eq(self, other: Any) -> Tensor:
        return self == other

    def ne(self, other: Any) -> Tensor:
        return self != other

    def lt(self, other: Any) -> Tensor:
        return self < other

    def le(self, other: Any) -> Tensor:
        return self <= other

    def gt(self, other: Any) -> Tensor:
        return self > other

    def ge(self, other: Any) -> Tensor:
        return self >= other

    def all(self) -> Tensor:
        return Tensor._wrap(self._data.all())

    def any(self) -> Tensor:
        return Tensor._wrap(self._data.any())

    def isnan(self) -> Tensor:
        return _nograd_unary(self, np.isnan)

    def allclose(
        self, other: Tensor, rtol: builtins.float = 1e-5, atol: builtins.float = 1e-8
    ) -> builtins.bool:
        return bool(np.allclose(to_numpy(self._data), to_numpy(other._data), rtol=rtol, atol=atol))

    def equal(self, other: Tensor) -> builtins.bool:
        return self.shape == other.shape and bool((self._data == other._data).all())

    # --- operators ------------------------------------------------------------------------------
    def __add__(self, other: Any) -> Tensor:
        return binary(O.ADD, self, other)

    def __radd__(self, other: Any) -> Tensor:
        return binary(O.ADD, self, other)

    def __sub__(self, other: Any) -> Tensor:
        return binary(O.SUB, self, other)

    def __rsub__(self, other: Any) -> Tensor:
        if isinstance(other, Tensor):
            return binary(O.SUB, other, self)
        return binary(O.RSUB, self, other)

    def __mul__(self, other: Any) -> Tensor:
        return binary(O.MUL, self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return binary(O.MUL, self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return binary(O.DIV, self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        # PyTorch records scalar / t as reciprocal(t) * scalar
        return binary(O.MUL, apply(O.RECIPROCAL, (_as_float(self),)), other)

    def __floordiv__(self, other: Any) -> Tensor:
        _check_int_division(self, other)
        return _nograd_binary(self, other, np.floor_divide)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return _nograd_binary(self, other, lambda a, b: np.floor_divide(b, a))

    def __mod__(self, other: Any) -> Tensor:
        _check_int_division(self, other)
        return _nograd_binary(self, other, np.remainder)  # Python's sign rule, as torch's %

    def __pow__(self, other: Any) -> Tensor:
        return pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return rpow(other, self)

    def __matmul__(self, other: Any) -> Tensor:
        return matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return matmul(_as_tensor(other), self)

    def __neg__(self) -> Tensor:
        return _apply1(O.NEG, self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _apply1(O.ABS, self)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _compare(self, other, np.equal)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        return _compare(self, other, np.not_equal)

    def __lt__(self, other: Any) -> Tensor:
        return _compare(self, other, np.less)

    def __le__(self, other: Any) -> Tensor:
        return _compare(self, other, np.less_equal)

    def __gt__(self, other: Any) -> Tensor:
        return _compare(self, other, np.greater)

    def __ge__(self, other: Any) -> Tensor:
        return _compare(self, other, np.greater_equal)

    def __and__(self, other: Any) -> Tensor:
        return _nograd_binary(
            self, other, np.logical_and if self._data.dtype.kind == "b" else np.bitwise_and
        )

    def __or__(self, other: Any) -> Tensor:
        return _nograd_binary(
            self, other, np.logical_or if self._data.dtype.kind == "b" else np.bitwise_or
        )

    def __invert__(self) -> Tensor:
        return _nograd_unary(self, np.logical_not if self._data.dtype.kind == "b" else np.invert)


def _check_int_division(a: Tensor, b: Any) -> None:
    """Integer // and % by zero raise, as in PyTorch (NumPy would return 0 silently)."""
    bd = to_numpy(b._data) if isinstance(b, Tensor) else np.asarray(b)
    if a._data.dtype.kind in "iub" and bd.dtype.kind in "iub" and not np.all(bd):
        raise RuntimeError("ZeroDivisionError")


class _no_record:
    """Grad mode off for engine-internal work (in-place updates outside the graph)."""

    def __enter__(self) -> None:
        self._prev = _mode.enabled
        _mode.enabled = False

    def __exit__(self, *exc: object) -> None:
        _mode.enabled = self._prev


# --- the one entry point for recorded ops -------------------------------------------------------


_ndarray = np.ndarray
_generic = np.generic
_new = object.__new__


def apply(
    op: O.Op,
    inputs: tuple[Any, ...],
    attrs: dict[str, Any] | None = None,
    name: str | None = None,
    out_dtype: Any = None,
) -> Tensor:
    """Run ``op`` forward on ``inputs`` and record a graph node if anything requires grad.

    This is the engine's hot path: it is written flat on purpose (no helper calls on the
    common route), because a small op's cost is mostly this function's Python overhead.
    """
    arrays = [x._data if x.__class__ is Tensor else x for x in inputs]
    a0 = arrays[0]
    xp = np if a0.__class__ is _ndarray else array_module(a0)
    lim = limits.active
    if lim is not None:
        lim.before(op.name, arrays, attrs)
    try:
        data = op.forward(xp, *arrays, **attrs) if attrs else op.forward(xp, *arrays)
    except (ValueError, IndexError) as exc:
        raise _shape_error(op, arrays, exc) from None
    except TypeError:  # CuPy refuses host arrays: say so as PyTorch does
        _check_same_device(inputs)
        raise
    if out_dtype is not None and data.dtype != out_dtype:
        data = data.astype(out_dtype)
    if data.__class__ is not _ndarray and isinstance(data, _generic):
        data = np.asarray(data)
    out = _new(Tensor)
    out._data = data
    out.grad = None
    out._version = 0
    needs = [x.__class__ is Tensor and x.requires_grad for x in inputs]
    if True in needs:
        if _mode.enabled:
            node = Node(op, inputs, attrs, name, needs, arrays)
            node.out = weakref.ref(out)
            out.grad_fn = node
            out.requires_grad = True
            if lim is not None:
                lim.node()
            return out
        out._untracked = "computed under torch.no_grad()"
    out.grad_fn = None
    out.requires_grad = False
    return out


def _apply1(op: O.Op, a: Tensor) -> Tensor:
    """apply() for one tensor input and no attributes: the elementwise fast path."""
    ad = a._data
    lim = limits.active
    if lim is not None or ad.__class__ is not _ndarray:
        return apply(op, (a,))
    data = op.forward(np, ad)
    if data.__class__ is not _ndarray:
        data = np.asarray(data)
    out = _new(Tensor)
    out._data = data
    out.grad = None
    out._version = 0
    if a.requires_grad:
        if _mode.enabled:
            node = Node(op, (a,), None, None, _NEEDS_1, [ad])
            node.out = weakref.ref(out)
            out.grad_fn = node
            out.requires_grad = True
            return out
        out._untracked = "computed under torch.no_grad()"
    out.grad_fn = None
    out.requires_grad = False
    return out


_NEEDS_1 = [True]
_NEEDS_TT = [True, True]
_NEEDS_TF = [True, False]
_NEEDS_FT = [False, True]


def _apply2(op: O.Op, a: Tensor, b: Any) -> Tensor:
    """apply() for a tensor and a tensor-or-scalar of matching dtype: the binary fast path."""
    ad = a._data
    bt = b.__class__ is Tensor
    bd = b._data if bt else b
    lim = limits.active
    if lim is not None or ad.__class__ is not _ndarray:
        return apply(op, (a, b))
    try:
        data = op.forward(np, ad, bd)
    except ValueError as exc:
        raise _shape_error(op, [ad, bd], exc) from None
    except TypeError:
        _check_same_device((a, b))
        raise
    if data.__class__ is not _ndarray:
        data = np.asarray(data)
    out = _new(Tensor)
    out._data = data
    out.grad = None
    out._version = 0
    ra = a.requires_grad
    rb = bt and b.requires_grad
    if ra or rb:
        if _mode.enabled:
            node = Node(
                op,
                (a, b),
                None,
                None,
                (_NEEDS_TT if rb else _NEEDS_TF) if ra else _NEEDS_FT,
                [ad, bd],
            )
            node.out = weakref.ref(out)
            out.grad_fn = node
            out.requires_grad = True
            return out
        out._untracked = "computed under torch.no_grad()"
    out.grad_fn = None
    out.requires_grad = False
    return out


def _shape_error(op: O.Op, arrays: list[Any], exc: Exception) -> Exception:
    msg = str(exc)
    shapes = [a.shape for a in arrays if hasattr(a, "shape")]
    if "broadcast" in msg and len(shapes) >= 2:
        a, b = shapes[0], shapes[1]
        n = builtins.max(len(a), len(b))
        pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
        for i in range(n - 1, -1, -1):
            if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
                return RuntimeError(
                    f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) "
                    f"at non-singleton dimension {i}"
                )
    if isinstance(exc, IndexError):
        return IndexError(msg.replace("axis", "dimension"))
    return RuntimeError(msg)


def _as_float(t: Tensor) -> Tensor:
    if t._data.dtype.kind != "f":
        return Tensor._wrap(t._data.astype(np.float32))
    return t


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else tensor(x)


def _result_dtype(a: Any, b: Any) -> Any:
    """PyTorch's promoted dtype for a binary op between tensors and/or Python scalars."""
    ops_, scalars = [], []
    for x in (a, b):
        if x.__class__ is Tensor:
            ops_.append((x._data.dtype, x._data.ndim))
        else:
            scalars.append(x)
    return dtypes.promote(ops_, scalars)


def binary(op: O.Op, a: Tensor, b: Any) -> Tensor:
    """A binary elementwise op with PyTorch's promotion (``b`` may be a Python scalar)."""
    if b.__class__ is float and a._data.dtype.kind == "f":  # the commonest case first
        return _apply2(op, a, b)
    if b.__class__ is Tensor:
        if a._data.__class__ is not b._data.__class__:  # cpu and cuda (cheap check first)
            a, b = _same_device(a, b)
        ad, bd = a._data.dtype, b._data.dtype
        if ad is bd or ad == bd:
            if op is O.DIV and ad.kind != "f":
                return apply(op, (a, b), out_dtype=np.float32)
            return _apply2(op, a, b)
        target = _result_dtype(a, b)
        if op is O.DIV and target.kind != "f":
            target = np.dtype(np.float32)
        if a.device != b.device:
            raise RuntimeError(
                "Expected all tensors to be on the same device, but found at least two devices, "
                f"{b.device} and {a.device}!"
            )
        a2 = a if ad == target else _cast_keep_graph(a, target)
        b2 = b if bd == target else _cast_keep_graph(b, target)
        return apply(op, (a2, b2))
    if isinstance(b, _Scalar):
        kind = a._data.dtype.kind
        if kind == "f" or (
            kind in "iu" and isinstance(b, int | np.integer) and not isinstance(b, bool)
        ):
            if op is O.DIV and kind != "f":
                return apply(op, (a, b), out_dtype=np.float32)
            return _apply2(op, a, b)
        target = _result_dtype(a, b)
        if op is O.DIV and target.kind != "f":
            target = np.dtype(np.float32)
        return apply(op, (a, b), out_dtype=target)
    if isinstance(b, list | tuple):
        raise TypeError(
            f"unsupported operand type(s) for {op.name}: 'Tensor' and '{type(b).__name__}'"
        )
    return NotImplemented  # type: ignore[no-any-return]


def _same_device(a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
    """PyTorch's rule for a binary op across devices: a 0-dim CPU tensor joins the other
    operand's device (as a Python scalar would); anything else is an error."""
    da, db = a.device, b.device
    if da == db:
        return a, b
    if db.type == "cpu" and b._data.ndim == 0:
        return a, b.to(da)
    if da.type == "cpu" and a._data.ndim == 0:
        return a.to(db), b
    raise _device_error(db, da)


def _device_error(d1: Device, d2: Device) -> RuntimeError:
    return RuntimeError(
        "Expected all tensors to be on the same device, but found at least two devices, "
        f"{d1} and {d2}!"
    )


def _check_same_device(inputs: Iterable[Any]) -> None:
    """Raise PyTorch's error if the tensors among ``inputs`` are on more than one device."""
    first: Device | None = None
    for x in inputs:
        if isinstance(x, Tensor):
            d = x.device
            if first is None:
                first = d
            elif d != first:
                raise _device_error(d, first)


def _cast_keep_graph(t: Tensor, target: Any) -> Tensor:
    if t.requires_grad:
        return apply(O.TO_COPY, (t,), {"dtype": target})
    return Tensor._wrap(t._data.astype(target))


def _compare(a: Tensor, b: Any, fn: Any) -> Tensor:
    if isinstance(b, Tensor) and a._data.__class__ is not b._data.__class__:
        a, b = _same_device(a, b)
    bd = b._data if isinstance(b, Tensor) else b
    if isinstance(bd, list | tuple):
        return NotImplemented  # type: ignore[no-any-return]
    try:
        return Tensor._wrap(fn(a._data, bd))
    except ValueError as exc:
        raise _shape_error(O.ADD, [a._data, bd], exc) from None


def _nograd_unary(a: Tensor, fn: Any) -> Tensor:
    return Tensor._wrap(fn(a._data))


def _nograd_binary(a: Tensor, b: Any, fn: Any) -> Tensor:
    if isinstance(b, Tensor) and a._data.__class__ is not b._data.__class__:
        a, b = _same_device(a, b)
    bd = b._data if isinstance(b, Tensor) else b
    try:
        return Tensor._wrap(fn(a._data, bd))
    except ValueError as exc:
        raise _shape_error(O.ADD, [a._data, bd], exc) from None


# --- factories ----------------------------------------------------------------------------------


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


def set_default_device(device: Any) -> None:
    """torch.set_default_device: where factories put tensors when no device is given."""
    global _default_device
    _default_device = parse_device(device) if device is not None else CPU


def get_default_device() -> Device:
    return _default_device


def _device(device: Any) -> Device:
    return _default_device if device is None else parse_device(device)


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
        else:
            raise TypeError(f"Could not infer dtype of {type(x).__name__}")

    scan(data)
    if "f" in kinds or not kinds:
        return np.float32
    if "i" in kinds:
        return np.int64
    return np.bool_


def _to_nested(data: Any) -> Any:
    if isinstance(data, Tensor):
        return to_numpy(data._data)
    if isinstance(data, list | tuple):
        return [_to_nested(x) for x in data]
    return data


def tensor(
    data: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    """torch.tensor: copy data (numbers, nested lists, arrays, tensors) into a new leaf."""
    dev = _device(device)
    if isinstance(data, Tensor):
        arr = to_numpy(data._data).copy()
        if dtype is not None:
            arr = arr.astype(dtype.np)
    elif isinstance(data, np.ndarray):
        arr = np.array(data, dtype=dtype.np if dtype else None)
        if dtype is None and arr.dtype == np.float64:
            arr = arr.astype(np.float64)
    else:
        np_dtype = dtype.np if dtype is not None else _infer_dtype(data)
        if limits.active is not None:
            limits.active.check_nested(data)
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
    if limits.active is not None:
        limits.active.alloc(arr.size)
    t = Tensor._wrap(move(arr, dev) if dev.type != "cpu" else arr)
    if requires_grad:
        if arr.dtype.kind != "f":
            raise RuntimeError(
                "Only Tensors of floating point and complex dtype can require gradients"
            )
        t.requires_grad_(True)
    return t


def as_tensor(data: Any, dtype: DType | None = None, device: Any = None) -> Tensor:
    if isinstance(data, Tensor) and dtype is None and device is None:
        return data
    return tensor(data, dtype=dtype, device=device)


def from_numpy(array: np.ndarray) -> Tensor:
    return Tensor._wrap(array)


def _shape_arg(shape: Sequence[Any]) -> tuple[int, ...]:
    if len(shape) == 1 and isinstance(shape[0], list | tuple | Size):
        shape = tuple(shape[0])
    out = []
    for s in shape:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, int | np.integer) or isinstance(s, bool):
            raise TypeError(f"expected a sequence of integers as the shape, got {type(s).__name__}")
        out.append(int(s))
    return tuple(out)


def _factory(
    shape: Any,
    dtype: DType | None,
    device: Any,
    requires_grad: bool,
    fill: Any,
    fname: str = "",
) -> Tensor:
    dims = _shape_arg(shape)
    for d in dims:
        if d < 0:
            if fname == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(dims)}")
    dev = _device(device)
    np_dtype = (dtype or dtypes.float32).np
    n = int(np.prod(dims)) if dims else 1
    if limits.active is not None:
        limits.active.alloc(n)
    arr = fill(dev.xp, dims, np_dtype)
    t = Tensor._wrap(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def zeros(
    *shape: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    return _factory(shape, dtype, device, requires_grad, lambda xp, s, d: xp.zeros(s, d), "zeros")


def ones(
    *shape: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    return _factory(shape, dtype, device, requires_grad, lambda xp, s, d: xp.ones(s, d))


def empty(
    *shape: Any, dtype: DType | None = None, device: Any = None, requires_grad: bool = False
) -> Tensor:
    return zeros(*shape, dtype=dtype, device=device, requires_grad=requires_grad)


def full(
    size: Any,
    fill_value: Any,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if dtype is None:
        dtype = dtypes.from_numpy(_infer_dtype(fill_value))
    return _factory(
        (size,), dtype, device, requires_grad, lambda xp, s, d: xp.full(s, fill_value, d)
    )


def _like(t: Tensor, dtype: DType | None) -> tuple[Any, DType]:
    return t._data.shape, dtype or t.dtype


def zeros_like(t: Tensor, dtype: DType | None = None, requires_grad: bool = False) -> Tensor:
    shape, dt = _like(t, dtype)
    return zeros(shape, dtype=dt, device=t.device, requires_grad=requires_grad)


def ones_like(t: Tensor, dtype: DType | None = None, requires_grad: bool = False) -> Tensor:
    shape, dt = _like(t, dtype)
    return ones(shape, dtype=dt, device=t.device, requires_grad=requires_grad)


def full_like(t: Tensor, fill_value: Any, dtype: DType | None = None) -> Tensor:
    shape, dt = _like(t, dtype)
    return full(shape, fill_value, dtype=dt, device=t.device)


def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if dtype is None:
        dtype = dtypes.float32 if builtins.any(isinstance(v, float) for v in vals) else dtypes.int64
    n = builtins.max(0, int(np.ceil((vals[1] - vals[0]) / vals[2])))
    if limits.active is not None:
        limits.active.alloc(n)
    arr = (np.arange(n, dtype=np.float64) * vals[2] + vals[0]).astype(dtype.np)
    t = Tensor._wrap(move(arr, _device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


def linspace(
    start: float,
    end: float,
    steps: int,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    if limits.active is not None:
        limits.active.alloc(int(steps))
    dt = (dtype or dtypes.float32).np
    if steps == 1:
        arr = np.array([start], dtype=dt)
    else:
        # PyTorch fills the first half from start and the second half from end
        step = (end - start) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        half = steps // 2
        arr = np.where(i < half, start + step * i, end - step * (steps - 1 - i)).astype(dt)
    t = Tensor._wrap(move(arr, _device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


def eye(n: int, m: int | None = None, dtype: DType | None = None, device: Any = None) -> Tensor:
    if limits.active is not None:
        limits.active.alloc(n * (m or n))
    return Tensor._wrap(move(np.eye(n, m, dtype=(dtype or dtypes.float32).np), _device(device)))


def _random(shape: Any, dtype: DType | None, device: Any, requires_grad: bool, draw: Any) -> Tensor:
    from engine.random import default_generator

    dims = _shape_arg(shape)
    for d in dims:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: {list(dims)}")
    n = int(np.prod(dims)) if dims else 1
    if limits.active is not None:
        limits.active.alloc(n)
    np_dtype = (dtype or dtypes.float32).np
    arr = draw(default_generator, n, np_dtype).reshape(dims)
    t = Tensor._wrap(move(arr, _device(device)))
    if requires_grad:
        t.requires_grad_(True)
    return t


def rand(
    *shape: Any,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    return _random(shape, dtype, device, requires_grad, lambda g, n, d: g.uniform(n, 0.0, 1.0, d))


def randn(
    *shape: Any,
    dtype: DType | None = None,
    device: Any = None,
    requires_grad: bool = False,
    generator: Any = None,
) -> Tensor:
    return _random(shape, dtype, device, requires_grad, lambda g, n, d: g.normal(n, 0.0, 1.0, d))


def randint(
    low: int, high: Any = None, size: Any = None, dtype: DType | None = None, device: Any = None
) -> Tensor:
    if size is None:
        low, high, size = 0, low, high
    return _random(
        size,
        dtype or dtypes.int64,
        device,
        False,
        lambda g, n, d: g.randint(low, high, n).astype(d),
    )


def randperm(n: int, dtype: DType | None = None, device: Any = None) -> Tensor:
    from engine.random import default_generator

    if limits.active is not None:
        limits.active.alloc(n)
    arr = default_generator.randperm(n).astype((dtype or dtypes.int64).np)
    return Tensor._wrap(move(arr, _device(device)))


def rand_like(t: Tensor) -> Tensor:
    return rand(t._data.shape, dtype=t.dtype, device=t.device)


def randn_like(t: Tensor) -> Tensor:
    return randn(t._data.shape, dtype=t.dtype, device=t.device)


def normal(mean: float, std: float, size: Any) -> Tensor:
    return randn(size) * std + mean


# --- function API (torch.add, torch.exp ...) ----------------------------------------------------


def add(a: Any, b: Any, alpha: Any = 1) -> Tensor:
    a = _as_tensor(a)
    return binary(O.ADD, a, b if alpha == 1 else b * alpha)


def sub(a: Any, b: Any, alpha: Any = 1) -> Tensor:
    a = _as_tensor(a)
    return binary(O.SUB, a, b if alpha == 1 else b * alpha)


def mul(a: Any, b: Any) -> Tensor:
    return binary(O.MUL, _as_tensor(a), b)


def div(a: Any, b: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return _as_tensor(b).__rtruediv__(a)
    return binary(O.DIV, a, b)


true_divide = divide = div
multiply = mul
subtract = sub


def pow(a: Any, exponent: Any) -> Tensor:
    if not isinstance(a, Tensor):
        return rpow(a, exponent)
    if isinstance(exponent, Tensor):
        if exponent._data.ndim == 0 and not exponent.requires_grad:
            return pow(a, exponent.item())
        target = _result_dtype(a, exponent)
        return apply(
            O.POW_T,
            (_cast_keep_graph(a, target) if a._data.dtype != target else a, exponent),
            out_dtype=target,
        )
    if not isinstance(exponent, _Scalar):
        raise TypeError(
            f"unsupported operand type(s) for ** or pow(): 'Tensor' and '{type(exponent).__name__}'"
        )
    if a._data.dtype.kind in "iub" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    target = _result_dtype(a, exponent)
    src = a if a._data.dtype == target else _cast_keep_graph(a, target)
    return apply(O.POW, (src,), {"p": exponent})


def rpow(base: Any, exponent: Tensor) -> Tensor:
    if isinstance(base, Tensor):
        return pow(base, exponent)
    target = _result_dtype(exponent, base)
    src = exponent if exponent._data.dtype == target else _cast_keep_graph(exponent, target)
    return apply(O.RPOW, (src,), {"base": base}, out_dtype=target)


def _unary(op: O.Op) -> Any:
    def fn(a: Tensor) -> Tensor:
        if a.__class__ is not Tensor:
            raise TypeError(
                f"{op.name}(): argument 'input' (position 1) must be Tensor, not {type(a).__name__}"
            )
        if a._data.dtype.kind != "f" and op.name not in ("neg", "abs", "relu"):
            a = _as_float(a)
        return _apply1(op, a)

    fn.__name__ = op.name
    fn.__doc__ = f"torch.{op.name}"
    return fn


exp = _unary(O.EXP)
log = _unary(O.LOG)
log1p = _unary(O.LOG1P)
sqrt = _unary(O.SQRT)
rsqrt = _unary(O.RSQRT)
sin = _unary(O.SIN)
cos = _unary(O.COS)
tanh = _unary(O.TANH)
sigmoid = _unary(O.SIGMOID)
relu = _unary(O.RELU)
tan = _unary(O.TAN)
log2 = _unary(O.LOG2)
log10 = _unary(O.LOG10)
expm1 = _unary(O.EXPM1)
erf = _unary(O.ERF)
neg = negative = _unary(O.NEG)
reciprocal = _unary(O.RECIPROCAL)


def abs(a: Tensor) -> Tensor:
    return apply(O.ABS, (_as_tensor(a),))


def square(a: Tensor) -> Tensor:
    return pow(a, 2)


def clamp(a: Tensor, min: Any = None, max: Any = None) -> Tensor:
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    lo = min.item() if isinstance(min, Tensor) else min
    hi = max.item() if isinstance(max, Tensor) else max
    return apply(O.CLAMP, (a,), {"lo": lo, "hi": hi})


clip = clamp


def round(a: Tensor, decimals: int = 0) -> Tensor:
    return apply(O.ROUND, (a,), {"decimals": decimals}, name="RoundBackward1" if decimals else None)


def maximum(a: Tensor, b: Tensor) -> Tensor:
    return binary(O.MAXIMUM, _as_tensor(a), _as_tensor(b))


def minimum(a: Tensor, b: Tensor) -> Tensor:
    return binary(O.MINIMUM, _as_tensor(a), _as_tensor(b))


def where(condition: Tensor, a: Any = None, b: Any = None) -> Any:
    if a is None and b is None:
        return tuple(Tensor._wrap(i) for i in np.nonzero(condition._data))
    ta = a if isinstance(a, Tensor) else None
    tb = b if isinstance(b, Tensor) else None
    ref = ta if ta is not None else tb
    if ref is None:
        ta = tensor(a)
        ref = ta
    xp = array_module(ref._data)  # a scalar operand goes to the tensor operand's device
    if ta is None:
        ta = Tensor._wrap(xp.asarray(a, dtype=ref._data.dtype))
    if tb is None:
        tb = Tensor._wrap(xp.asarray(b, dtype=ref._data.dtype))
    if ta._data.dtype != tb._data.dtype:
        target = _result_dtype(ta, tb)
        ta, tb = _cast_keep_graph(ta, target), _cast_keep_graph(tb, target)
    cond = condition._data if isinstance(condition, Tensor) else np.asarray(condition)
    return apply(O.WHERE, (Tensor._wrap(cond.astype(bool, copy=False)), ta, tb))


def _norm_dim(dim: int, ndim: int) -> int:
    lo, hi = -builtins.max(ndim, 1), builtins.max(ndim, 1) - 1
    if not lo <= dim <= hi:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim % builtins.max(ndim, 1)


def _norm_dims(dim: Any, ndim: int) -> Any:
    if dim is None:
        return None
    if isinstance(dim, list | tuple):
        if len(dim) == 0:
            return None
        return tuple(_norm_dim(d, ndim) for d in dim)
    return _norm_dim(int(dim), ndim) if ndim else None


def sum(a: Tensor, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
    if isinstance(a, list | tuple):
        raise TypeError("sum(): argument 'input' must be Tensor, not list")
    axis = _norm_dims(dim, a._data.ndim)
    target = (
        dtype.np
        if dtype is not None
        else (np.dtype(np.int64) if a._data.dtype.kind in "iub" else None)
    )
    name = "SumBackward1" if dim is not None else None
    return apply(O.SUM, (a,), {"axis": axis, "keepdim": keepdim}, name=name, out_dtype=target)


def mean(a: Tensor, dim: Any = None, keepdim: bool = False, dtype: DType | None = None) -> Tensor:
    if a._data.dtype.kind != "f" and dtype is None:
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point "
            f"or complex dtype. Got: {dtypes.type_word(a._data.dtype)}"
        )
    axis = _norm_dims(dim, a._data.ndim)
    name = "MeanBackward1" if dim is not None else None
    return apply(
        O.MEAN,
        (a,),
        {"axis": axis, "keepdim": keepdim},
        name=name,
        out_dtype=dtype.np if dtype is not None else a._data.dtype,
    )


def _max_min(a: Tensor, dim: Any, keepdim: bool, mode: str) -> Any:
    if isinstance(dim, Tensor):
        return maximum(a, dim) if mode == "max" else minimum(a, dim)
    if dim is None:
        if a._data.size == 0:
            raise RuntimeError(
                f"{mode}(): Expected reduction dim to be specified for input.numel() == 0. "
                "Specify the reduction dim with the 'dim' argument."
            )
        return apply(
            O.AMAX,
            (a,),
            {"axis": None, "keepdim": False, "mode": mode},
            name="MaxBackward1" if mode == "max" else "MinBackward1",
        )
    axis = _norm_dim(dim, a._data.ndim)
    data = a._data
    indices = data.argmax(axis=axis) if mode == "max" else data.argmin(axis=axis)
    if data.ndim == 0:
        indices = array_module(data).asarray(0)
    values = apply(
        O.MAX_DIM,
        (a,),
        {"axis": axis, "keepdim": keepdim, "indices": indices},
        name="MaxBackward0" if mode == "max" else "MinBackward0",
    )
    idx = Tensor._wrap((np.expand_dims(indices, axis) if keepdim else indices).astype(np.int64))
    return _ReturnTypes(mode, values, idx)


def max(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _max_min(a, dim, keepdim, "max")


def min(a: Tensor, dim: Any = None, keepdim: bool = False) -> Any:
    return _max_min(a, dim, keepdim, "min")


def amax(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axis = _norm_dims(dim, a._data.ndim)
    return apply(O.AMAX, (a,), {"axis": axis, "keepdim": keepdim, "mode": "max"})


def amin(a: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    axis = _norm_dims(dim, a._data.ndim)
    return apply(
        O.AMAX, (a,), {"axis": axis, "keepdim": keepdim, "mode": "min"}, name="AminBackward0"
    )


def argmax(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._wrap(a._data.argmax().astype(np.int64))  # stays on the device
    out = a._data.argmax(axis=_norm_dim(dim, a._data.ndim), keepdims=keepdim)
    return Tensor._wrap(out.astype(np.int64))


def argmin(a: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    if dim is None:
        return Tensor._wrap(a._data.argmin().astype(np.int64))
    out = a._data.argmin(axis=_norm_dim(dim, a._data.ndim), keepdims=keepdim)
    return Tensor._wrap(out.astype(np.int64))


def var(
    a: Tensor, dim: Any = None, unbiased: bool = True, keepdim: bool = False, correction: Any = None
) -> Tensor:
    # NOTE: a composite (mean of squared deviations), so the graph shows its parts rather than
    # PyTorch's single VarBackward0 node.
    corr = (1 if unbiased else 0) if correction is None else correction
    m = mean(a, dim, keepdim=True)
    d = a - m
    n = (
        a._data.size
        if dim is None
        else int(
            np.prod(
                [
                    a._data.shape[d_]
                    for d_ in (
                        _norm_dims(dim, a._data.ndim)
                        if isinstance(dim, list | tuple)
                        else (_norm_dim(dim, a._data.ndim),)
                    )
                ]
            )
        )
    )
    return sum(d * d, dim, keepdim) / builtins.max(n - corr, 0)


def std(
    a: Tensor, dim: Any = None, unbiased: bool = True, keepdim: bool = False, correction: Any = None
) -> Tensor:
    return sqrt(var(a, dim, unbiased=unbiased, keepdim=keepdim, correction=correction))


def norm(a: Tensor, p: Any = 2, dim: Any = None, keepdim: bool = False) -> Tensor:
    if p == 2 or p == "fro":
        return sqrt(sum(a * a, dim, keepdim))
    if p == 1:
        return sum(abs(a), dim, keepdim)
    return pow(sum(pow(abs(a), p), dim, keepdim), 1.0 / p)


def softmax(a: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    a = _as_float(a)
    return apply(O.SOFTMAX, (a,), {"dim": _norm_dim(dim, a._data.ndim)})


def log_softmax(a: Tensor, dim: int, dtype: DType | None = None) -> Tensor:
    a = _as_float(a)
    return apply(O.LOG_SOFTMAX, (a,), {"dim": _norm_dim(dim, a._data.ndim)})


def matmul(a: Tensor, b: Tensor) -> Tensor:
    if not isinstance(a, Tensor) or not isinstance(b, Tensor):
        raise TypeError(
            f"matmul(): argument 'other' (position 1) must be Tensor, not "
            f"{type(b).__name__ if isinstance(a, Tensor) else type(a).__name__}"
        )
    ad, bd = a._data, b._data
    if ad.ndim == 0 or bd.ndim == 0:
        raise RuntimeError(
            f"both arguments to matmul need to be at least 1D, but they are {ad.ndim}D and "
            f"{bd.ndim}D"
        )
    if ad.dtype != bd.dtype and ad.ndim == 1 and bd.ndim == 1:
        raise RuntimeError(
            "dot : expected both vectors to have same dtype, but found "
            f"{dtypes.type_word(ad.dtype)} and {dtypes.type_word(bd.dtype)}"
        )
    if ad.dtype != bd.dtype:
        raise RuntimeError(
            f"expected m1 and m2 to have the same dtype, but got: {_dtype_word(ad.dtype)} != "
            f"{_dtype_word(bd.dtype)}"
        )
    k_a = ad.shape[-1]
    k_b = bd.shape[0] if bd.ndim == 1 else bd.shape[-2]
    if k_a != k_b:
        if ad.ndim == 1 and bd.ndim == 1:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{ad.shape[0]}] and src [{bd.shape[0]}] to have the same "
                f"number of elements, but got {ad.shape[0]} and {bd.shape[0]} elements respectively"
            )
        if ad.ndim == 2 and bd.ndim == 1:
            raise RuntimeError(
                f"size mismatch, got input ({ad.shape[0]}), mat ({ad.shape[0]}x{ad.shape[1]}), "
                f"vec ({bd.shape[0]})"
            )
        sa = "x".join(
            str(s)
            for s in (ad.shape if ad.ndim == 2 else (int(np.prod(ad.shape[:-1])), ad.shape[-1]))
        )
        sb = "x".join(str(s) for s in (bd.shape if bd.ndim == 2 else (bd.shape[0], 1)))
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({sa} and {sb})")
    if ad.ndim == 1 and bd.ndim == 1:
        name = "DotBackward0"
    elif ad.ndim == 2 and bd.ndim == 1:
        name = "MvBackward0"
    elif ad.ndim == 2 and bd.ndim == 2:
        name = None
    elif ad.ndim == 1:
        name = "SqueezeBackward4"
    else:
        name = "UnsafeViewBackward0"
    return apply(O.MATMUL, (a, b), name=name)


mm = matmul
dot = matmul


def _dtype_word(np_dtype: Any) -> str:
    return {"float32": "float", "float64": "double", "int64": "long int"}.get(
        np.dtype(np_dtype).name, np.dtype(np_dtype).name
    )


def linear(x: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """F.linear: one node, named as PyTorch names it for this input's rank."""
    xd, wd = x._data, weight._data
    if xd.shape[-1] != wd.shape[-1]:
        rows = int(np.prod(xd.shape[:-1])) if xd.ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{xd.shape[-1]} and "
            f"{wd.shape[1]}x{wd.shape[0]})"
        )
    if xd.dtype != wd.dtype:
        raise RuntimeError(
            f"mat1 and mat2 must have the same dtype, but got {dtypes.type_word(xd.dtype)} and "
            f"{dtypes.type_word(wd.dtype)}"
        )
    if xd.ndim == 2:
        name = None if bias is not None else "MmBackward0"
    elif bias is None:
        name = "SqueezeBackward4" if xd.ndim == 1 else "UnsafeViewBackward0"
    else:
        name = "ViewBackward0"
    inputs = (x, weight) if bias is None else (x, weight, bias)
    return apply(O.LINEAR, inputs, name=name)


def reshape(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    size = a._data.size
    if builtins.sum(1 for s in shape if s == -1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = int(np.prod([s for s in shape if s != -1])) if shape else 1
    if -1 in shape:
        if known == 0 or size % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    elif known != size:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {size}")
    return apply(O.VIEW, (a,), {"shape": shape})


def flatten(a: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    nd = a._data.ndim
    if nd == 0:
        return reshape(a, (1,))
    s, e = _norm_dim(start_dim, nd), _norm_dim(end_dim, nd)
    shape = a._data.shape
    new = (*shape[:s], int(np.prod(shape[s : e + 1])), *shape[e + 1 :])
    return reshape(a, new)


def unsqueeze(a: Tensor, dim: int) -> Tensor:
    d = _norm_dim(dim, a._data.ndim + 1)
    shape = (*a._data.shape[:d], 1, *a._data.shape[d:])
    return apply(O.VIEW, (a,), {"shape": shape}, name="UnsqueezeBackward0")


def squeeze(a: Tensor, dim: Any = None) -> Tensor:
    shape = a._data.shape
    if dim is None:
        new = tuple(s for s in shape if s != 1)
        name = "SqueezeBackward0"
    else:
        dims = {
            _norm_dim(d, a._data.ndim) for d in (dim if isinstance(dim, list | tuple) else (dim,))
        }
        new = tuple(s for i, s in enumerate(shape) if not (i in dims and s == 1))
        name = "SqueezeBackward1" if not isinstance(dim, list | tuple) else "SqueezeBackward2"
    return apply(O.VIEW, (a,), {"shape": new}, name=name)


def permute(a: Tensor, dims: tuple[int, ...], name: str | None = None) -> Tensor:
    nd = a._data.ndim
    if len(dims) != nd:
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {nd} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    norm = tuple(_norm_dim(d, nd) for d in dims)
    return apply(O.PERMUTE, (a,), {"dims": norm}, name=name)


def transpose(a: Tensor, dim0: int, dim1: int) -> Tensor:
    nd = a._data.ndim
    dims = list(range(nd))
    if nd:
        d0, d1 = _norm_dim(dim0, nd), _norm_dim(dim1, nd)
        dims[d0], dims[d1] = dims[d1], dims[d0]
    return apply(O.PERMUTE, (a,), {"dims": tuple(dims)}, name="TransposeBackward0")


swapaxes = transpose


def t(a: Tensor) -> Tensor:
    return a.t()


def expand(a: Tensor, shape: tuple[int, ...]) -> Tensor:
    cur = a._data.shape
    if len(shape) < len(cur):
        raise RuntimeError(
            f"expand(torch.FloatTensor{{{list(cur)}}}, size=[{', '.join(map(str, shape))}]): the "
            "number of sizes provided ({}) must be greater or equal to the number of dimensions "
            "in the tensor ({})".format(len(shape), len(cur))
        )
    pad = (1,) * (len(shape) - len(cur)) + cur
    new = tuple(p if s == -1 else s for s, p in zip(shape, pad, strict=True))
    for i, (s, p) in enumerate(zip(new, pad, strict=True)):
        if p != 1 and p != s:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({p}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: "
                f"{list(cur)}"
            )
    return apply(O.EXPAND, (a,), {"shape": new})


def broadcast_to(a: Tensor, shape: Any) -> Tensor:
    return expand(a, _shape_arg((shape,)))


def _index(key: Any, ndim: int) -> tuple[Any, bool]:
    """Turn a PyTorch index into a NumPy one; report whether it is advanced indexing."""
    parts = key if isinstance(key, tuple) else (key,)
    out: list[Any] = []
    advanced = False
    for k in parts:
        if isinstance(k, Tensor):
            arr = to_numpy(k._data) if k.device.type == "cpu" else k._data
            if arr.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if arr.ndim == 0 and arr.dtype.kind in "iu":
                out.append(int(arr))
                continue
            out.append(arr)
            advanced = True
        elif isinstance(k, list):
            arr = np.asarray(_to_nested(k))
            if arr.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            out.append(arr)
            advanced = True
        elif isinstance(k, bool):
            out.append(k)
            advanced = True
        elif isinstance(k, int | np.integer | slice) or k is None or k is Ellipsis:
            if isinstance(k, slice) and k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero")
            out.append(k)
        else:
            raise IndexError(
                "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                f"are valid indices (got {type(k).__name__})"
            )
    return (tuple(out) if isinstance(key, tuple) else out[0]), advanced


def getitem(a: Tensor, key: Any) -> Tensor:
    index, advanced = _index(key, a._data.ndim)
    parts = index if isinstance(index, tuple) else (index,)
    if advanced:
        name = "IndexBackward0"
    else:
        name = "AliasBackward0"
        for p in parts:
            if isinstance(p, int | np.integer):
                name = "SelectBackward0"
            elif isinstance(p, slice) and p != slice(None):
                name = "SliceBackward0"
            elif p is None:
                name = "UnsqueezeBackward0"
    try:
        return apply(O.GETITEM, (a,), {"index": index, "advanced": advanced}, name=name)
    except IndexError as exc:
        raise IndexError(str(exc).replace("axis", "dimension")) from None


def gather(a: Tensor, dim: int, index: Tensor) -> Tensor:
    d = _norm_dim(dim, a._data.ndim)
    idx = index._data
    if idx.ndim != a._data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if idx.dtype != np.int64:
        raise RuntimeError("gather(): Expected dtype int64 for index")
    if idx.size and (idx.max() >= a._data.shape[d] or idx.min() < -a._data.shape[d]):
        raise RuntimeError(
            f"index {int(idx.max())} is out of bounds for dimension {d} with "
            f"size {a._data.shape[d]}"
        )
    return apply(O.GATHER, (a,), {"dim": d, "index": idx})


def _seq_tensors(tensors: Iterable[Tensor], fname: str) -> list[Tensor]:
    ts = list(tensors)
    if not ts:
        raise RuntimeError(f"{fname}(): expected a non-empty list of Tensors")
    for x in ts:
        if not isinstance(x, Tensor):
            raise TypeError(
                f"expected Tensor as element {ts.index(x)} in argument 0, but got "
                f"{type(x).__name__}"
            )
    return ts


def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    ts = _seq_tensors(tensors, "torch.cat")
    nd = ts[0]._data.ndim
    if nd == 0:
        raise RuntimeError("zero-dimensional tensor (at position 0) cannot be concatenated")
    d = _norm_dim(dim, nd)
    for i, x in enumerate(ts[1:], 1):
        xs = x._data.shape
        if len(xs) != nd or builtins.any(
            xs[j] != ts[0]._data.shape[j] for j in range(nd) if j != d
        ):
            for j in range(builtins.min(nd, len(xs))):
                if j != d and xs[j] != ts[0]._data.shape[j]:
                    raise RuntimeError(
                        f"Sizes of tensors must match except in dimension {d}. Expected size "
                        f"{ts[0]._data.shape[j]} but got size {xs[j]} for tensor number {i} in "
                        "the list."
                    )
            raise RuntimeError(
                f"Tensors must have same number of dimensions: got {nd} and {len(xs)}"
            )
    ts = _promote_all(ts)
    return apply(O.CAT, tuple(ts), {"dim": d})


concat = concatenate = cat


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    if not list(tensors):
        raise RuntimeError("stack expects a non-empty TensorList")
    ts = _seq_tensors(tensors, "stack")
    shape = ts[0]._data.shape
    for i, x in enumerate(ts[1:], 1):
        if x._data.shape != shape:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 "
                f"and {list(x._data.shape)} at entry {i}"
            )
    d = _norm_dim(dim, len(shape) + 1)
    ts = _promote_all(ts)
    return apply(O.STACK, tuple(ts), {"dim": d})


def _promote_all(ts: list[Tensor]) -> list[Tensor]:
    target = dtypes.promote([(x._data.dtype, 1) for x in ts], [])
    return [x if x._data.dtype == target else _cast_keep_graph(x, target) for x in ts]


def to_copy(a: Tensor, dtype: DType | None, device: Any) -> Tensor:
    dev = parse_device(device) if device is not None else None
    np_dtype = dtype.np if dtype is not None else a._data.dtype
    same_dev = dev is None or dev == a.device
    if np_dtype == a._data.dtype and same_dev:
        return a
    if dtype is not None and dtype.is_floating_point is False and a.requires_grad:
        out = Tensor._wrap(a._data.astype(np_dtype))
        return out
    out = apply(O.TO_COPY, (a,), {"dtype": np_dtype})
    if not same_dev and dev is not None:
        out._data = move(out._data, dev)
    return out


def numel(a: Tensor) -> int:
    return a.numel()


def is_tensor(x: Any) -> bool:
    return isinstance(x, Tensor)


def allclose(a: Tensor, b: Tensor, rtol: float = 1e-5, atol: float = 1e-8) -> bool:
    return a.allclose(b, rtol, atol)


def equal(a: Tensor, b: Tensor) -> bool:
    return a.equal(b)


def isnan(a: Tensor) -> Tensor:
    return a.isnan()


def sign(a: Tensor) -> Tensor:
    return a.sign()


def outer(a: Tensor, b: Tensor) -> Tensor:
    return unsqueeze(a, 1) * unsqueeze(b, 0)


def floor(a: Tensor) -> Tensor:
    return a.floor()


def ceil(a: Tensor) -> Tensor:
    return a.ceil()


def cumsum(a: Tensor, dim: int) -> Tensor:
    return apply(O.CUMSUM, (a,), {"dim": _norm_dim(dim, a._data.ndim)})


def masked_fill(a: Tensor, mask: Tensor, value: Any) -> Tensor:
    """where(mask, value, a): the filled places get no gradient."""
    if mask._data.dtype.kind != "b":
        raise RuntimeError(
            f"masked_fill_ only supports boolean masks, but got mask with dtype {mask.dtype.name}"
        )
    fill = value if isinstance(value, Tensor) else full_like(a, value)
    if fill._data.dtype != a._data.dtype:
        fill = _cast_keep_graph(fill, a._data.dtype)
    cond = Tensor._wrap(mask._data)
    return apply(O.WHERE, (cond, fill, a), name="MaskedFillBackward0")


def argsort(a: Tensor, dim: int = -1, descending: bool = False) -> Tensor:
    d = _norm_dim(dim, a._data.ndim)
    xp = array_module(a._data)
    order = xp.argsort(-a._data if descending else a._data, axis=d, kind="stable")
    return Tensor._wrap(order.astype(np.int64))


def sort(a: Tensor, dim: int = -1, descending: bool = False) -> _ReturnTypes:
    # NOTE: values are a gather of the input at the sorted indices (one node, named as
    # PyTorch names it), so their gradient flows back to the original positions.
    d = _norm_dim(dim, a._data.ndim)
    idx = argsort(a, d, descending)
    values = apply(O.GATHER, (a,), {"dim": d, "index": idx._data}, name="SortBackward0")
    return _ReturnTypes("sort", values, idx)


def topk(a: Tensor, k: int, dim: int = -1, largest: bool = True) -> _ReturnTypes:
    d = _norm_dim(dim, a._data.ndim)
    if not 0 <= k <= a._data.shape[d]:
        raise RuntimeError("selected index k out of range")
    order = argsort(a, d, descending=largest)._data
    idx = (
        np.take(order, np.arange(k), axis=d)
        if order.__class__ is np.ndarray
        else (array_module(order).take(order, array_module(order).arange(k), axis=d))
    )
    values = apply(O.GATHER, (a,), {"dim": d, "index": idx}, name="TopkBackward0")
    return _ReturnTypes("topk", values, Tensor._wrap(idx))


def nonzero(a: Tensor) -> Tensor:
    xp = array_module(a._data)
    return Tensor._wrap(xp.stack(xp.nonzero(a._data), axis=1).astype(np.int64))
