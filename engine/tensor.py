"""Tensor: data, grad, requires_grad, grad_fn, is_leaf, version; the operators; ``apply``.

Every differentiable operation goes through :func:`apply` (or its unary/binary fast paths),
which runs an ``ops`` row's forward and, when grad mode is on and an input requires grad,
records a :class:`Node`.

The class holds what a tensor *is* (attributes, conversions, printing, the autograd state,
the in-place machinery and the arithmetic operators, the hot path). Its other methods are the
function API seen from a tensor: ``engine.methods`` binds them from the op table's rows and the
hand-written functions of ``engine.functions`` / ``engine.factories`` (see engine.registry).
"""

from __future__ import annotations

import builtins
import weakref
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from engine import _format, core, dtypes, random
from engine import ops as O
from engine import shape_ops as S
from engine.backend import Device, array_module, device_of, to_numpy
from engine.core import _NODE_TYPES as _node_types
from engine.core import (
    GradHooks,
    Node,
    RemovableHandle,
    _mode,
    next_seq,
    node_type,
    program_code_added,
)
from engine.dtypes import DType
from engine.registry import missing
from engine.sizes import Size

_Scalar = (int, float, bool, np.number, np.bool_)


def _operator(op: O.Op) -> Callable[[Tensor, Any], Tensor]:
    """``t + x`` and the other arithmetic operators: binary(), with its first case (a Python
    float and a floating tensor) taken one call sooner."""

    def operator(self: Tensor, other: Any) -> Tensor:
        if other.__class__ is builtins.float and self._data.dtype.kind == "f":
            return _apply2(op, self, other)
        return binary(op, self, other)

    return operator


def _comparison(ufunc: Any) -> Callable[[Tensor, Any], Tensor]:
    def compare(self: Tensor, other: Any) -> Tensor:
        return _compare(self, other, ufunc)

    return compare


def _bitwise(
    logical: Any, bitwise: Any, kernel: str, reflected: builtins.bool = False
) -> Callable[[Tensor, Any], Tensor]:
    """``&``, ``|``, ``^``, ``<<``, ``>>``: logical on bool tensors, bitwise on integers, and
    PyTorch's error for floats (its CPU kernel's name: ``bitwise_and_cpu``)."""

    def op(self: Tensor, other: Any) -> Tensor:
        for x in (self, other):
            d = x._data.dtype if isinstance(x, Tensor) else None
            if (d is not None and d.kind in "fc") or isinstance(x, builtins.float):
                word = dtypes.type_word(d if d is not None else np.float32)
                raise NotImplementedError(f'"{kernel}_cpu" not implemented for {word!r}')
        kind = self._data.dtype.kind
        if kind == "b" and other.__class__ is builtins.int:  # a bool tensor and an int: int64
            self = Tensor._wrap(self._data.astype(np.int64))
            kind = "i"
        if isinstance(other, Tensor) and other._data.dtype.kind != kind:
            kind = "i"  # bool with integers: as integers
        fn = logical if kind == "b" and logical is not None else bitwise
        if reflected:
            return _nograd_binary(self, other, lambda a, b: fn(b, a))
        return _nograd_binary(self, other, fn)

    return op


class Tensor:
    """A multi-dimensional array that can record the operations that produced it."""

    # Hot attributes are slots; rare ones (_name, _untracked, _param, _hooks) live in the
    # lazily created instance dict and default to the class attributes below, so creating a
    # tensor sets five attributes, not nine.
    __slots__ = ("__dict__", "__weakref__", "_data", "_version", "grad", "grad_fn", "requires_grad")
    _name: str | None = None
    _untracked: str | None = None
    _param: bool = False
    _hooks: GradHooks | None = None  # register_hook / retain_grad
    # (sequence number, grad_fn) pairs: the histories an in-place op replaced, for the nodes
    # recorded before it (engine.core.edge); None for a tensor never changed in place
    _fn_history: list[tuple[builtins.int, Any]] | None = None
    # tensors sharing one version counter (detach()), as weak references; None when alone
    _vgroup: _VersionGroup | None = None
    __array_priority__ = 1000  # so numpy scalars defer to our reflected operators

    _data: Any
    _version: builtins.int
    grad: Tensor | None
    grad_fn: Node | None
    requires_grad: bool

    if TYPE_CHECKING:
        # The function API's methods are bound from the op table and engine.functions
        # (engine.methods); for the type checker they are attributes of any type (operators
        # are looked up on the class, so the bound ones are declared).
        def __getitem__(self, key: Any) -> Tensor: ...
        def __setitem__(self, key: Any, value: Any) -> None: ...
        def __pow__(self, other: Any) -> Tensor: ...
        def __rpow__(self, other: Any) -> Tensor: ...
        def __matmul__(self, other: Any) -> Tensor: ...
        def __rmatmul__(self, other: Any) -> Tensor: ...

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        """Only for a name the tensor lacks (the function API's methods are bound from the op
        table, engine.methods): saying so where PyTorch's Tensor has it."""
        cls = type(self).__name__
        if name.startswith("_") or hasattr(type(self), name):  # a slot unset, a property failing
            raise AttributeError(f"{cls!r} object has no attribute {name!r}", name=name, obj=self)
        raise missing("Tensor", f"{cls!r} object", name, self)

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
        return self._hooks is not None and self._hooks.retain

    def _dim(self, dim: builtins.int) -> builtins.int:
        return _norm_dim(dim, self._data.ndim)

    # --- conversion -----------------------------------------------------------------------------
    def item(self) -> Any:
        data = self._data
        if data.size != 1:
            raise RuntimeError(f"a Tensor with {data.size} elements cannot be converted to Scalar")
        return data.item() if data.__class__ is np.ndarray else to_numpy(data).reshape(()).item()

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

    def __array__(self, dtype: Any = None, copy: builtins.bool | None = None) -> np.ndarray:
        """``np.asarray(t)``: the data, as ``numpy()`` gives it (PyTorch's checks included)."""
        data = self.numpy()
        if dtype is not None and data.dtype != dtype:
            return data.astype(dtype)
        return data.copy() if copy else data

    def __array_wrap__(self, array: Any, context: Any = None, return_scalar: Any = False) -> Tensor:
        """A NumPy ufunc applied to a tensor gives a tensor, as in PyTorch (``np.exp(t)``)."""
        return Tensor._wrap(np.asarray(array))

    def __float__(self) -> builtins.float:
        return float(self._scalar("float"))

    def __int__(self) -> builtins.int:
        return int(self._scalar("int"))

    def __bool__(self) -> builtins.bool:
        if self._data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __index__(self) -> builtins.int:
        data = self._data
        if data.dtype.kind not in "iub" or data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(data.item() if data.__class__ is np.ndarray else self.item())

    def _scalar(self, what: str) -> Any:
        """float(t), int(t): PyTorch's ValueError for several elements (item() says otherwise)."""
        if self._data.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return self.item()

    def __len__(self) -> builtins.int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return int(self._data.shape[0])

    def __iter__(self) -> Any:
        data = self._data
        if data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        if data.ndim == 1 and data.__class__ is np.ndarray and not self.requires_grad:
            # a batch of indices, say: the elements as 0-d tensors, as self[i] makes them
            # (copies, as NumPy's elements are, outside any graph), without its per-item work
            return (Tensor._wrap(np.asarray(x)) for x in data)
        return (self[i] for i in range(data.shape[0]))

    __hash__ = object.__hash__  # identity, at C speed (== is elementwise, as in PyTorch)

    def __repr__(self) -> str:
        text = self._repr()
        return "Parameter containing:\n" + text if self._param else text

    __str__ = __repr__

    def _repr(self) -> str:
        grad_fn = self.grad_fn.type_name() if self.grad_fn is not None else None
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

    def detach(self) -> Tensor:
        """The same storage outside the graph, sharing the version counter as PyTorch's does:
        an in-place change through either is seen by backward (``.data`` does not share it)."""
        t = Tensor._wrap(self._data)
        if self.requires_grad:
            t._untracked = "detach()"
        _share_version(self, t)
        return t

    def _bump(self) -> None:
        """Count an in-place change: this tensor's version, and its detached aliases'."""
        self._version += 1
        group = self._vgroup
        if group is not None:
            for ref in group:
                other = ref()
                if other is not None and other is not self:
                    other._version += 1

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
            self._grad_hooks().retain = True

    def register_hook(self, hook: Any) -> RemovableHandle:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a tensor it returns
        replaces the gradient (for a leaf, what is accumulated into ``.grad``)."""
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        fns = self._grad_hooks().fns
        handle = RemovableHandle(fns)
        fns[handle.id] = hook
        return handle

    def _grad_hooks(self) -> GradHooks:
        program_code_added()  # (a pass that runs it is walked as it runs: recorder.replay)
        hooks = self._hooks
        if hooks is None:
            hooks = self._hooks = GradHooks()
        return hooks

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
                    f"result type {dtypes.type_word(new.dtype)} can't be "
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
        self._bump()
        if result.grad_fn is not None:
            if self.grad_fn is not result.grad_fn:  # earlier consumers keep the old history
                history = self._fn_history or []
                history.append((result.grad_fn.seq, self.grad_fn))
                self._fn_history = history
            self.grad_fn = result.grad_fn
            self.requires_grad = True
            result.grad_fn.out = weakref.ref(self)
            result.grad_fn.out_version = self._version  # what backward may read: this value
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

    def _inplace_fast(self, ufunc: Any, other: Any) -> builtins.bool:
        """An unrecorded in-place update of a CPU array by a same-dtype tensor (same shape or
        0-d) or a Python float, done by NumPy in place: ``p -= lr * p.grad`` under no_grad.
        False when the general path must run (graph, promotion, broadcasting, budgets, GPU)."""
        if _mode.enabled and self.requires_grad:
            return False
        sd = self._data
        if sd.__class__ is not _ndarray:
            return False
        if (oc := other.__class__) is Tensor or oc is Parameter:
            if _mode.enabled and other.requires_grad:
                return False
            od = other._data
            if od.__class__ is not _ndarray or od.dtype != sd.dtype:
                return False
            if od.shape != sd.shape and od.ndim != 0:
                return False
        elif other.__class__ is not builtins.float or sd.dtype.kind != "f":
            return False
        else:
            od = other
        ufunc(sd, od, out=sd)
        self._bump()
        return True

    def __iadd__(self, other: Any) -> Tensor:
        return self.add_(other)

    def __isub__(self, other: Any) -> Tensor:
        return self.sub_(other)

    def __imul__(self, other: Any) -> Tensor:
        return self.mul_(other)

    def __itruediv__(self, other: Any) -> Tensor:
        return self.div_(other)

    # In-place forms of the elementwise functions (``x.exp_()``): the function's result written
    # back into x, recorded in the graph as PyTorch records them (ExpBackward0, ...).

    def _named(self, result: Tensor, name: str) -> Tensor:
        """Name the node an in-place composite recorded as PyTorch names that op's node."""
        if result.grad_fn is not None:
            result.grad_fn._name = name
        return result

    # --- conversions that record ----------------------------------------------------------------

    def is_contiguous(self) -> builtins.bool:
        flags = getattr(self._data, "flags", None)
        return flags is None or builtins.bool(flags.c_contiguous)

    def __deepcopy__(self, memo: Any) -> Tensor:
        t = type(self)._wrap(self._data.copy(), self.requires_grad)
        if self.grad is not None:
            t.grad = Tensor._wrap(self.grad._data.copy())
        memo[id(self)] = t
        return t

    # --- shapes ---------------------------------------------------------------------------------

    # --- reductions -----------------------------------------------------------------------------

    # --- elementwise ----------------------------------------------------------------------------

    # --- methods that are the module functions of the same name -------------------------------

    def element_size(self) -> builtins.int:
        return builtins.int(self._data.dtype.itemsize)

    def ndimension(self) -> builtins.int:
        return builtins.int(self._data.ndim)

    # --- operators ------------------------------------------------------------------------------
    __add__ = __radd__ = _operator(O.ADD)
    __sub__ = _operator(O.SUB)
    __mul__ = __rmul__ = _operator(O.MUL)
    __truediv__ = _operator(O.DIV)
    __eq__ = _comparison(np.equal)  # type: ignore[assignment]
    __ne__ = _comparison(np.not_equal)  # type: ignore[assignment]
    __lt__ = _comparison(np.less)
    __le__ = _comparison(np.less_equal)
    __gt__ = _comparison(np.greater)
    __ge__ = _comparison(np.greater_equal)
    __and__ = _bitwise(np.logical_and, np.bitwise_and, "bitwise_and")
    __or__ = _bitwise(np.logical_or, np.bitwise_or, "bitwise_or")
    __xor__ = _bitwise(np.logical_xor, np.bitwise_xor, "bitwise_xor")
    __rand__ = _bitwise(np.logical_and, np.bitwise_and, "bitwise_and", reflected=True)
    __ror__ = _bitwise(np.logical_or, np.bitwise_or, "bitwise_or", reflected=True)
    __rxor__ = _bitwise(np.logical_xor, np.bitwise_xor, "bitwise_xor", reflected=True)
    __lshift__ = _bitwise(None, np.left_shift, "lshift")
    __rshift__ = _bitwise(None, np.right_shift, "rshift")
    __rlshift__ = _bitwise(None, np.left_shift, "lshift", reflected=True)
    __rrshift__ = _bitwise(None, np.right_shift, "rshift", reflected=True)

    def __rsub__(self, other: Any) -> Tensor:
        if isinstance(other, Tensor):
            return binary(O.SUB, other, self)
        return binary(O.RSUB, self, other)

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

    def __neg__(self) -> Tensor:
        return _apply1(O.NEG, self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _apply1(O.ABS, self)

    def __invert__(self) -> Tensor:
        if self._data.dtype.kind in "fc":
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return _nograd_unary(self, np.logical_not if self._data.dtype.kind == "b" else np.invert)


class _VersionGroup(list[Any]):
    """Weak references to the tensors that share one storage's version counter; the dead are
    dropped when it has doubled since the last sweep (each append amortised O(1), however many
    views stay alive: a batch of 32 slices of one dataset swept the list on every append)."""

    __slots__ = ("sweep_at",)

    def __init__(self, first: Any) -> None:
        super().__init__((first,))
        self.sweep_at = 8


def _share_version(base: Tensor, alias: Tensor) -> None:
    """Make alias (a view or detach() of base, same storage) share base's version counter."""
    group = base._vgroup
    if group is None:
        group = base._vgroup = _VersionGroup(weakref.ref(base))
    if len(group) >= group.sweep_at:  # drop the dead (views made each step, say)
        group[:] = [ref for ref in group if ref() is not None]
        group.sweep_at = max(8, 2 * len(group))
    group.append(weakref.ref(alias))
    alias._vgroup = group
    alias._version = base._version


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


def named(out: Tensor, name: str) -> Tensor:
    """PyTorch's node name for a composite on its result's (last) node, as y.grad_fn prints."""
    if out.grad_fn is not None:
        core.rename(out.grad_fn, name)
    return out


# --- the one entry point for recorded ops -------------------------------------------------------


_ndarray = np.ndarray
_generic = np.generic


class Parameter(Tensor):
    """``nn.Parameter(t)``: a leaf that requires grad and that modules register; shares t's
    data. Operations on it give plain tensors, as in PyTorch."""

    __slots__ = ()
    _param = True

    def __new__(cls, data: Tensor | None = None, requires_grad: builtins.bool = True) -> Parameter:
        if data is None:
            base = np.empty((0,), dtype=np.float32)
        elif isinstance(data, Tensor):
            base = data._data
        else:
            raise TypeError(
                f"Parameter.__new__(): argument 'data' (position 1) must be Tensor, not "
                f"{type(data).__name__}"
            )
        p = cls._wrap(base)
        p.requires_grad = builtins.bool(requires_grad)
        return p  # type: ignore[return-value]

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (Parameter, (Tensor._wrap(self._data), self.requires_grad))


_new = object.__new__
_weakref = weakref.ref
_next_seq = next_seq


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
    arrays = [x._data if (c := x.__class__) is Tensor or c is Parameter else x for x in inputs]
    a0 = arrays[0]
    xp = np if a0.__class__ is _ndarray else array_module(a0)
    try:
        data = op.forward(xp, *arrays, **attrs) if attrs else op.forward(xp, *arrays)
    except (ValueError, IndexError) as exc:
        raise failed(_shape_error(op, arrays, exc), op.name, inputs) from None
    except TypeError as exc:  # CuPy refuses host arrays: say so as PyTorch does
        failed(exc, op.name, inputs)
        _check_same_device(inputs, op.name)
        raise
    if out_dtype is not None and data.dtype != out_dtype:
        data = data.astype(out_dtype)
    if data.__class__ is not _ndarray and isinstance(data, _generic):
        data = np.asarray(data)
    out = _new(Tensor)
    out._data = data
    out.grad = None
    out._version = 0
    base = getattr(data, "base", None)
    if base is not None and (base is a0 or base is getattr(a0, "base", None)):
        _share_version(inputs[0], out)  # a view (reshape, slice, transpose ...) of its input
    needs = [((c := x.__class__) is Tensor or c is Parameter) and x.requires_grad for x in inputs]
    if True in needs:
        if _mode.enabled:
            return _record(out, op, inputs, arrays, needs, attrs, name)
        out._untracked = "computed under torch.no_grad()"
    out.grad_fn = None
    out.requires_grad = False
    return out


def _record(
    out: Tensor,
    op: O.Op,
    inputs: tuple[Any, ...],
    arrays: Any,
    needs: list[builtins.bool],
    attrs: dict[str, Any] | None = None,
    name: str | None = None,
) -> Tensor:
    """Make ``out`` the result of a recorded ``op``: the one place the tensor layer builds a
    graph node (Node.__init__'s work, written flat: this is every recorded op's path)."""
    node = _new(_node_types.get(name or op.grad_fn) or node_type(name or op.grad_fn))
    node.op = op
    node.inputs = inputs
    node.arrays = arrays  # the input arrays as the forward saw them
    node.attrs = attrs
    node.seq = _next_seq()
    node.freed = False
    node._name = name
    node.needs = needs
    saves = op.saves
    if saves == "in" or saves == "both":  # the inputs' versions (a comprehension costs more)
        n = len(inputs)
        if n == 1:
            node.versions = (getattr(inputs[0], "_version", None),)
        elif n == 2:
            v0, v1 = getattr(inputs[0], "_version", None), getattr(inputs[1], "_version", None)
            node.versions = (v0, v1)
        else:
            node.versions = [getattr(x, "_version", None) for x in inputs]
    else:
        node.versions = None
    node.out = _weakref(out)
    node.out_version = out._version  # not 0 for a view of a changed tensor
    scope = _mode.module
    if scope is not None:
        node.module = scope
    out.grad_fn = node
    out.requires_grad = True
    return out


def _apply1(op: O.Op, a: Tensor) -> Tensor:
    """apply() for one tensor input and no attributes: the elementwise fast path."""
    ad = a._data
    if ad.__class__ is not _ndarray:
        return apply(op, (a,))
    host = op.host
    data = host(ad) if host is not None else op.forward(np, ad)
    if data.__class__ is not _ndarray:
        data = np.asarray(data)
    out = _new(Tensor)
    out._data = data
    out.grad = None
    out._version = 0
    if a.requires_grad:
        if _mode.enabled:
            return _record(out, op, (a,), (ad,), _NEEDS_1)
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
    bt = (bc := b.__class__) is Tensor or bc is Parameter
    bd = b._data if bt else b
    if ad.__class__ is not _ndarray:
        return apply(op, (a, b))
    host = op.host
    try:
        data = host(ad, bd) if host is not None else op.forward(np, ad, bd)
    except ValueError as exc:
        raise failed(_shape_error(op, [ad, bd], exc), op.name, (a, b)) from None
    except TypeError as exc:
        failed(exc, op.name, (a, b))
        _check_same_device((a, b), op.name)
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
            needs = (_NEEDS_TT if rb else _NEEDS_TF) if ra else _NEEDS_FT
            return _record(out, op, (a, b), (ad, bd), needs)
        out._untracked = "computed under torch.no_grad()"
    out.grad_fn = None
    out.requires_grad = False
    return out


def broadcast_mismatch(a: Sequence[int], b: Sequence[int]) -> RuntimeError | None:
    """PyTorch's error for two shapes that do not broadcast (the last dimension that differs,
    neither size 1, counted from the left of the longer shape), or None if they do."""
    if a == b:  # the common case: a loss's input and target of one shape, every step
        return None
    n = builtins.max(len(a), len(b))
    pa, pb = (1,) * (n - len(a)) + tuple(a), (1,) * (n - len(b)) + tuple(b)
    for i in range(n - 1, -1, -1):
        if pa[i] != pb[i] and pa[i] != 1 and pb[i] != 1:
            return RuntimeError(
                f"The size of tensor a ({pa[i]}) must match the size of tensor b ({pb[i]}) "
                f"at non-singleton dimension {i}"
            )
    return None


def _shape_error(op: O.Op, arrays: list[Any], exc: Exception) -> Exception:
    msg = str(exc)
    shapes = [a.shape for a in arrays if hasattr(a, "shape")]
    if "broadcast" in msg and len(shapes) >= 2:
        mismatch = broadcast_mismatch(shapes[0], shapes[1])
        if mismatch is not None:
            return mismatch
    if isinstance(exc, IndexError):
        return IndexError(msg.replace("axis", "dimension"))
    return RuntimeError(msg)


def _floating(t: Tensor) -> Tensor:
    """t itself when floating point, else t as float32 (what PyTorch's float functions take)."""
    return t if t._data.dtype.kind == "f" else _as_float(t)


def _as_float(t: Tensor) -> Tensor:
    if t._data.dtype.kind != "f":
        return Tensor._wrap(t._data.astype(np.float32))
    return t


def _result_dtype(a: Any, b: Any) -> Any:
    """PyTorch's promoted dtype for a binary op between tensors and/or Python scalars."""
    ops_, scalars = [], []
    for x in (a, b):
        if (c := x.__class__) is Tensor or c is Parameter:
            ops_.append((x._data.dtype, x._data.ndim))
        else:
            scalars.append(x)
    return dtypes.promote(ops_, scalars)


def binary(op: O.Op, a: Tensor, b: Any) -> Tensor:
    """A binary elementwise op with PyTorch's promotion (``b`` may be a Python scalar)."""
    if b.__class__ is float and a._data.dtype.kind == "f":  # the commonest case first
        return _apply2(op, a, b)
    if isinstance(b, _generic):  # a NumPy scalar counts as a Python number (PyTorch's rule)
        b = b.item()
    if (bc := b.__class__) is Tensor or bc is Parameter:
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
        raise failed(
            TypeError(
                f"unsupported operand type(s) for {op.name}: 'Tensor' and '{type(b).__name__}'"
            ),
            op.name,
            (a, b),
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


def _check_same_device(inputs: Iterable[Any], op: str | None = None) -> None:
    """Raise PyTorch's error if the tensors among ``inputs`` are on more than one device."""
    first: Device | None = None
    for x in inputs:
        if isinstance(x, Tensor):
            d = x.device
            if first is None:
                first = d
            elif d != first:
                exc = _device_error(d, first)
                raise exc if op is None else failed(exc, op, tuple(inputs))


class FailedOp(tuple):  # type: ignore[type-arg]
    """``(op name, inputs)`` of a forward error; ``module`` is the nn.Module call it ran in."""

    module: Any


def failed(exc: BaseException, op: str, inputs: Iterable[Any]) -> BaseException:
    """exc, marked with the op that raised it and that op's inputs (``exc.failed_op``): the
    playground then draws the graph recorded up to the error (recorder.graph.export_error).
    Called on error paths only."""
    mark = FailedOp((op, tuple(inputs)))
    mark.module = _mode.module
    exc.failed_op = mark  # type: ignore[attr-defined]
    return exc


def _cast_keep_graph(t: Tensor, target: Any) -> Tensor:
    if t.requires_grad:
        return apply(S.TO_COPY, (t,), {"dtype": target})
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


def _norm_dim(dim: int, ndim: int) -> int:
    """dim as a non-negative index into ndim dimensions, or PyTorch's IndexError."""
    lo, hi = -builtins.max(ndim, 1), builtins.max(ndim, 1) - 1
    if not lo <= dim <= hi:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})"
        )
    return dim % builtins.max(ndim, 1)


random.wrap_state = Tensor._wrap  # generator states are uint8 tensors
core._TensorType = Tensor  # the class of gradients, for the backward loop
