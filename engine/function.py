"""``torch.autograd.Function``: an operation whose forward and backward the user writes.

A subclass defines static ``forward(ctx, *args)`` and ``backward(ctx, *grads)``; ``apply``
runs the forward outside the graph and records one graph node for the whole call, named as
PyTorch names it (``SquareBackward``). The node's row in the op table is made per subclass:
its rule calls the user's ``backward`` (with NumPy arrays wrapped as tensors for a plain
backward, with recorded tensors under ``create_graph=True``), checks what it returns as
PyTorch does, and the walk shows the step as ``Square.backward(∂L/∂y)``.

Several differentiable outputs are recorded as one node for the call plus one small node per
output (``output k``), whose gradients the call's node receives together, in one flat array.
"""

from __future__ import annotations

import weakref
from typing import Any

import numpy as np

from engine import dtypes
from engine.backend import array_module
from engine.core import (
    _FREED_MSG,
    _HINT,
    Node,
    _forward_name,
    _mode,
    _type_name,
    no_grad,
    program_code_added,
)
from engine.ops import Op
from engine.tensor import Tensor, _share_version, apply

_DOCS = "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function"


class FunctionCtx:
    """The ``ctx`` of a custom Function: what ``forward`` stashes for ``backward``."""

    def __init__(self) -> None:
        self.needs_input_grad: tuple[bool, ...] = ()
        self._saved: tuple[Any, ...] = ()
        self._saved_versions: tuple[int | None, ...] = ()
        self._non_differentiable: set[int] = set()
        self._materialize_grads = True
        self._node: Node | None = None

    def save_for_backward(self, *tensors: Any) -> None:
        for t in tensors:
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(
                    "save_for_backward can only save variables, but argument "
                    f"{tensors.index(t)} is of type {type(t).__name__}"
                )
        self._saved = tensors
        self._saved_versions = tuple(None if t is None else t._version for t in tensors)

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        """The tensors given to ``save_for_backward``; PyTorch's errors once the graph was
        freed by a backward, or when one of them was changed in place since."""
        node = self._node
        if node is not None and node.freed:
            raise RuntimeError(_FREED_MSG)
        for t, v in zip(self._saved, self._saved_versions, strict=True):
            if t is not None and t._version != v:
                where = ""
                if t.grad_fn is not None:
                    where = f", which is output 0 of {_forward_name(t.grad_fn)},"
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: {_type_name(t)}{where} is at version {t._version}; "
                    f"expected version {v} instead. {_HINT}"
                )
        return self._saved

    saved_variables = saved_tensors

    def mark_non_differentiable(self, *tensors: Tensor) -> None:
        """Outputs that get no gradient (indices, masks); backward receives zeros for them."""
        self._non_differentiable.update(id(t) for t in tensors)

    def set_materialize_grads(self, value: bool) -> None:
        """False: backward receives None (not zeros) for outputs that got no gradient."""
        self._materialize_grads = bool(value)

    def mark_dirty(self, *tensors: Tensor) -> None:
        raise RuntimeError(
            "ctx.mark_dirty (a custom Function changing its input in place) is not supported in "
            "the playground; return a new tensor instead"
        )


class _FunctionNode(Node):
    """Base of the per-Function node classes (``SquareBackward``), as PyTorch's
    ``BackwardCFunction``; ``type(y.grad_fn).__name__`` is the name PyTorch shows."""

    __slots__ = ()
    custom = True  # its backward is the program's (engine.core's walk copies what it receives)

    def __repr__(self) -> str:
        return f"<torch.autograd.function.{self.type_name()} object at {id(self):#x}>"


class _Call:
    """One ``apply``: the ctx, the forward's arguments and outputs, and how the node's rule
    turns its upstream gradient(s) into the gradients of its tensor inputs."""

    def __init__(self, fn: type[Function], ctx: FunctionCtx, args: tuple[Any, ...]) -> None:
        self.fn = fn
        self.ctx = ctx
        self.args = args
        self.tensor_args = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        self.outputs: list[Any] = []  # the forward's outputs (non-tensors as they are)
        self.differentiable: list[int] = []  # positions of the outputs that get gradients

    def run_backward(self, grads: list[Any], graphed: bool) -> tuple[Any, ...]:
        """The user's backward on one gradient per output (tensors); one gradient (or None)
        per tensor input, checked and cast as PyTorch checks them."""
        fn, ctx = self.fn, self.ctx
        name = fn._node_name
        if fn.backward is Function.backward:
            raise NotImplementedError(
                "You must implement either the backward or vjp method for your custom "
                "autograd.Function to use it with backward mode AD."
            )
        full: list[Any] = []
        for k, made in enumerate(self.outputs):
            g = grads[self.differentiable.index(k)] if k in self.differentiable else None
            if g is None and isinstance(made, Tensor) and ctx._materialize_grads:
                g = Tensor._wrap(array_module(made._data).zeros_like(made._data))
            full.append(g)
        if graphed:
            result = fn.backward(ctx, *full)
        else:
            with no_grad():
                result = fn.backward(ctx, *full)
        returned = list(result) if isinstance(result, tuple) else [result]
        n_args = len(self.args)
        if len(returned) > n_args and all(r is None for r in returned[n_args:]):
            returned = returned[:n_args]
        if len(returned) != n_args:
            raise RuntimeError(
                f"function {name} returned an incorrect number of gradients (expected {n_args}, "
                f"got {len(returned)})"
            )
        out: list[Any] = []
        for i, (arg, g) in enumerate(zip(self.args, returned, strict=True)):
            if not isinstance(arg, Tensor):
                if g is not None:
                    raise RuntimeError(
                        f"function {name} returned a gradient different than None at position "
                        f"{i + 1}, but the corresponding forward input was not a Variable"
                    )
                continue
            if g is None or not arg.requires_grad:
                out.append(None)
                continue
            if not isinstance(g, Tensor):
                raise RuntimeError(f"expected Variable or None (got {type(g).__name__})")
            shape, want = g._data.shape, arg._data.shape
            if shape != want and not _sums_to(shape, want):
                raise RuntimeError(
                    f"Function {name} returned an invalid gradient at index {i} - got "
                    f"{list(shape)} but expected shape compatible with {list(want)}"
                )
            if g._data.dtype != arg._data.dtype:
                g = g.to(arg.dtype) if graphed else Tensor._wrap(g._data.astype(arg._data.dtype))
            out.append(g if graphed else g._data)
        return tuple(out)


def _sums_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """Whether a gradient of ``shape`` sums back to ``target`` (target broadcasts to it)."""
    try:
        return np.broadcast_shapes(target, shape) == shape
    except ValueError:
        return False


def _call_vjp(xp: Any, g: Any, out: Any, xs: Any, at: Any, n: Any) -> tuple[Any, ...]:
    """The node's rule for one differentiable output (the plain backward, on arrays)."""
    call: _Call = at["call"]
    return call.run_backward([Tensor._wrap(g)], graphed=False)


def _bundle_vjp(xp: Any, g: Any, out: Any, xs: Any, at: Any, n: Any) -> tuple[Any, ...]:
    """The call's node when it has several differentiable outputs: g is their gradients,
    flattened and concatenated (each output's node adds its part)."""
    call: _Call = at["call"]
    grads = []
    for k, (start, stop) in zip(call.differentiable, at["spans"], strict=True):
        like = call.outputs[k]._data
        part = g[start:stop].reshape(like.shape).astype(like.dtype, copy=False)
        grads.append(Tensor._wrap(part))
    return call.run_backward(grads, graphed=False)


def _output_fwd(xp: Any, bundle: Any, start: int, stop: int, shape: Any, dtype: Any, k: int) -> Any:
    return bundle[start:stop].reshape(shape).astype(dtype)


def _output_vjp(xp: Any, g: Any, out: Any, xs: Any, at: Any, n: Any) -> tuple[Any, ...]:
    """Output k of a call: its gradient placed at its span of the bundle (zeros elsewhere)."""
    bundle = xs[0]
    grad = xp.zeros(bundle.shape, dtype=bundle.dtype)
    grad[at["start"] : at["stop"]] = g.reshape(-1)
    return (grad,)


class _FunctionMeta(type):
    """Gives each Function subclass its node class, named as PyTorch names it."""

    def __init__(cls, name: str, bases: tuple[type, ...], ns: dict[str, Any]) -> None:
        super().__init__(name, bases, ns)
        node_name = f"{name}Backward"
        cls._node_name = node_name
        cls._node_cls = type(node_name, (_FunctionNode,), {"__slots__": ()})
        cls._node_cls.__module__ = "torch.autograd.function"
        cls._rows: dict[tuple[Any, ...], Op] = {}
        cls._output_row = Op(
            "function_output",
            node_name,
            _output_fwd,
            _output_vjp,
            ("1",),
            f"{name}(…)[{{k}}]",
            saves="",
            chain=("{g} as output {k}",),
            graphed=_output_graphed,
        )


def _call_row(fn: type[Function], tensor_args: tuple[int, ...], n_args: int, bundle: bool) -> Op:
    """The op-table row for calls of ``fn`` with tensors at these argument positions: the
    walk's formula names which of backward's results reaches each input."""
    key = (tensor_args, n_args, bundle)
    row = fn._rows.get(key)
    if row is None:
        name = fn.__name__
        step = f"{name}.backward({{g}})"
        row = fn._rows[key] = Op(
            "function",
            fn._node_name,
            _no_forward,
            _bundle_vjp if bundle else _call_vjp,
            tuple(f"given by {name}.backward" for _ in tensor_args),
            f"{name}({{a}})" if len(tensor_args) == 1 else f"{name}(…)",
            saves="",
            chain=tuple(f"{step}[{i}]" if n_args > 1 else step for i in tensor_args),
            graphed=_call_graphed,
        )
    return row


def _call_graphed(hx: Any, node: Any, g: Any, xs: Any) -> tuple[Any, ...]:
    """The graphed rule (create_graph=True): the user's backward, run on recorded tensors."""
    at = node.attrs or {}
    call = at["call"]
    grads = [g.t]
    if "spans" in at:  # several outputs: the flat gradient cut back into one per output
        grads = [
            g.t[lo:hi].reshape(*call.outputs[k].shape)
            for k, (lo, hi) in zip(call.differentiable, at["spans"], strict=True)
        ]
    return tuple(hx.wrap(t) for t in call.run_backward(grads, graphed=True))


def _output_graphed(hx: Any, node: Any, g: Any, xs: Any) -> tuple[Any, ...]:
    """Output k of a Function with several outputs, graphed: g at its span of the bundle."""
    at = node.attrs or {}
    attrs = {
        "shape": tuple(xs[0].shape),
        "index": slice(at["start"], at["stop"]),
        "advanced": False,
    }
    return (hx.Arr(hx.apply(hx.SCATTER, (g.t.reshape(-1),), attrs)),)


def _no_forward(xp: Any, *arrays: Any) -> Any:
    raise RuntimeError("a custom Function's forward runs through Function.apply")


class Function(metaclass=_FunctionMeta):
    """Base class for custom differentiable operations (``torch.autograd.Function``)."""

    _node_name: str
    _node_cls: type[_FunctionNode]
    _rows: dict[tuple[Any, ...], Op]
    _output_row: Op

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            "new-style autograd function with static forward method. (Example: "
            f"{_DOCS})"
        )

    @staticmethod
    def forward(ctx: Any, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            "You must implement the forward function for custom autograd.Function."
        )

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> Any:
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Any, *grad_outputs: Any) -> Any:
        raise NotImplementedError(
            "You must implement either the backward or vjp method for your custom "
            "autograd.Function to use it with backward mode AD."
        )

    vjp = backward

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> Any:
        """Run ``forward`` outside the graph and record it as one node (when an input
        requires grad and grad mode is on)."""
        ctx = FunctionCtx()
        inputs = (*args, *kwargs.values())  # what backward returns one gradient for
        ctx.needs_input_grad = tuple(isinstance(a, Tensor) and a.requires_grad for a in inputs)
        record = _mode.enabled and any(ctx.needs_input_grad)
        with no_grad():
            if cls.setup_context is not Function.setup_context:  # forward without ctx
                result = cls.forward(*args, **kwargs)
                cls.setup_context(ctx, args, result)
            else:
                result = cls.forward(ctx, *args, **kwargs)
        single = not isinstance(result, tuple)
        outputs = [result] if single else list(result)
        for k, o in enumerate(outputs):
            if isinstance(o, Tensor) and any(o is a for a in inputs):
                alias = Tensor._wrap(o._data)  # an input returned as is: a new tensor on it
                _share_version(o, alias)
                outputs[k] = alias
        if record:
            _record(cls, ctx, inputs, outputs)
        return outputs[0] if single else tuple(outputs)


def _record(
    fn: type[Function], ctx: FunctionCtx, args: tuple[Any, ...], outputs: list[Any]
) -> None:
    """Make the call's node (and one node per output when several get gradients)."""
    program_code_added()  # (a pass through it is walked as it runs: recorder.replay)
    call = _Call(fn, ctx, args)
    call.outputs = outputs
    call.differentiable = [
        k
        for k, o in enumerate(outputs)
        if isinstance(o, Tensor)
        and o._data.dtype.kind == "f"
        and id(o) not in ctx._non_differentiable
    ]
    for o in outputs:
        if isinstance(o, Tensor):
            o.__dict__.pop("_untracked", None)
            if o._data.dtype.kind != "f" or id(o) in ctx._non_differentiable:
                o._untracked = f"not differentiable (an output of {fn.__name__})"
    if not call.differentiable:
        return
    inputs = tuple(args[i] for i in call.tensor_args)
    positions = tuple(call.tensor_args)
    if len(call.differentiable) == 1:
        out = outputs[call.differentiable[0]]
        row = _call_row(fn, positions, len(args), bundle=False)
        ctx._node = _attach(fn._node_cls, row, inputs, {"call": call}, out)
        return
    datas = [outputs[k]._data for k in call.differentiable]
    common = dtypes.promote_types(*[d.dtype for d in datas])
    xp = array_module(datas[0])
    bundle = Tensor._wrap(xp.concatenate([d.reshape(-1).astype(common) for d in datas]))
    spans, start = [], 0
    for d in datas:
        spans.append((start, start + d.size))
        start += d.size
    row = _call_row(fn, positions, len(args), bundle=True)
    ctx._node = _attach(fn._node_cls, row, inputs, {"call": call, "spans": spans}, bundle)
    for k, (lo, hi) in zip(call.differentiable, spans, strict=True):
        out = outputs[k]
        attrs = {
            "start": lo,
            "stop": hi,
            "shape": out._data.shape,
            "dtype": out._data.dtype,
            "k": k,
        }
        made = apply(fn._output_row, (bundle,), attrs, name=fn._node_name)
        node = made.grad_fn
        if node is not None:
            node.__class__ = fn._node_cls  # prints as PyTorch's SplitBackward ...
            node.out = weakref.ref(out)
            out.grad_fn = node
            out.requires_grad = True


def _attach(
    node_cls: type[Node], row: Op, inputs: tuple[Any, ...], attrs: dict[str, Any], out: Tensor
) -> Node:
    """Record ``out`` as the result of ``row`` on ``inputs`` (a node of class ``node_cls``)."""
    node = node_cls(row, inputs, attrs)
    node.out = weakref.ref(out)
    out.grad_fn = node
    out.requires_grad = True
    return node


def once_differentiable(backward: Any) -> Any:
    """``@once_differentiable``: the backward runs outside the graph even under
    ``create_graph=True`` (its result cannot be differentiated again)."""

    def wrapper(ctx: Any, *grads: Any) -> Any:
        with no_grad():
            return backward(ctx, *grads)

    wrapper.__name__ = getattr(backward, "__name__", "backward")
    wrapper.__doc__ = getattr(backward, "__doc__", None)
    return wrapper
