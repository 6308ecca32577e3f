"""``torch.nn`` modules: Module, Parameter, Linear, Sequential, activations, losses."""

from __future__ import annotations

import math
import types
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any, Self

from engine import dtypes
from engine.conversions import to_copy
from engine.core import ModuleCall, _mode, no_grad, zero_grads
from engine.factories import empty, ones, zeros
from engine.nn import functional as F
from engine.nn import init
from engine.nn.losses import legacy_reduction
from engine.tensor import Parameter as Parameter
from engine.tensor import Tensor

_new = object.__new__


class _IncompatibleKeys:
    """What load_state_dict returns; prints as PyTorch's."""

    def __init__(self, missing_keys: list[str], unexpected_keys: list[str]) -> None:
        self.missing_keys = missing_keys
        self.unexpected_keys = unexpected_keys

    def __iter__(self) -> Iterator[list[str]]:
        return iter((self.missing_keys, self.unexpected_keys))

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return (
            f"_IncompatibleKeys(missing_keys={self.missing_keys}, "
            f"unexpected_keys={self.unexpected_keys})"
        )


class Module:
    """Base class: registers parameters and sub-modules assigned as attributes."""

    def __init__(self) -> None:
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "training", True)

    def register_buffer(self, name: str, tensor: Tensor | None) -> None:
        """State that is not a parameter (saved in state_dict, moved by .to(), no gradient)."""
        self._buffers[name] = tensor
        object.__setattr__(self, name, tensor)

    def named_buffers(self, prefix: str = "") -> Iterator[tuple[str, Tensor]]:
        for mod_prefix, mod in self.named_modules(prefix):
            for name, b in mod.__dict__.get("_buffers", {}).items():
                if b is not None:
                    yield (f"{mod_prefix}.{name}" if mod_prefix else name), b

    def buffers(self) -> Iterator[Tensor]:
        for _, b in self.named_buffers():
            yield b

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if params is None:  # before Module.__init__: plain attributes only, as in PyTorch
            if isinstance(value, Tensor) and value._param:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            if isinstance(value, Module):
                raise AttributeError("cannot assign module before Module.__init__() call")
            object.__setattr__(self, name, value)
            return
        # Parameters and sub-modules are registered *and* mirrored in the instance dict, so
        # reading self.weight in forward() is a plain attribute lookup, not __getattr__.
        if isinstance(value, Tensor) and value._param:
            params[name] = value
            self._modules.pop(name, None)
        elif isinstance(value, Module):
            self._modules[name] = value
            params.pop(name, None)
        elif name in params:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{type(value).__name__}' as parameter '{name}' "
                    "(torch.nn.Parameter or None expected)"
                )
            params[name] = value
        object.__setattr__(self, name, value)

    def __getattr__(self, name: str) -> Any:
        d = self.__dict__
        if name in d.get("_parameters", {}):
            return d["_parameters"][name]
        if name in d.get("_modules", {}):
            return d["_modules"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def forward(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """forward(), inside a ModuleCall: the nodes it records know which module call made
        them (the graph draws them as one box named after it)."""
        mode = _mode
        call = _new(ModuleCall)  # ModuleCall.__init__, inlined: this runs once per layer call
        call.module = self
        call.parent = prev = mode.module
        call.inputs = args
        mode.module = call
        try:
            return self.forward(*args, **kwargs)
        finally:
            mode.module = prev

    # --- traversal -------------------------------------------------------------------------------
    def named_parameters(
        self, prefix: str = "", recurse: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        seen: set[int] = set()
        for mod_prefix, mod in self.named_modules(prefix) if recurse else [(prefix, self)]:
            for name, p in mod._parameters.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{mod_prefix}.{name}" if mod_prefix else name), p

    def parameters(self, recurse: bool = True) -> Iterator[Tensor]:
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_modules(self, prefix: str = "") -> Iterator[tuple[str, Module]]:
        yield prefix, self
        for name, m in self._modules.items():
            if m is not None:
                yield from m.named_modules(f"{prefix}.{name}" if prefix else name)

    def modules(self) -> Iterator[Module]:
        for _, m in self.named_modules():
            yield m

    def children(self) -> Iterator[Module]:
        yield from self._modules.values()

    def named_children(self) -> Iterator[tuple[str, Module]]:
        yield from self._modules.items()

    # --- state -----------------------------------------------------------------------------------
    def zero_grad(self, set_to_none: bool = True) -> None:
        zero_grads(self.parameters(), set_to_none)

    def train(self, mode: bool = True) -> Module:
        for m in self.modules():
            object.__setattr__(m, "training", bool(mode))
        return self

    def eval(self) -> Module:  # noqa: S307, RUF100 - PyTorch's Module.eval(), not Python's eval
        return self.train(False)

    def requires_grad_(self, requires_grad: bool = True) -> Module:
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def to(self, *args: Any, **kwargs: Any) -> Module:
        dtype = kwargs.get("dtype")
        device = kwargs.get("device")
        for a in args:
            if isinstance(a, dtypes.DType):
                dtype = a
            else:
                device = a
        for m in self.modules():
            for b in list(m.__dict__.get("_buffers", {}).values()):
                if b is not None:  # buffers follow the device; integer counters keep their dtype
                    keep = dtype if b._data.dtype.kind == "f" else None
                    b._data = to_copy(b, keep, device)._data
            for p in list(m._parameters.values()):
                if p is None:
                    continue
                moved = to_copy(p.detach(), dtype, device)
                p._data = moved._data
                if p.grad is not None:
                    p.grad._data = to_copy(p.grad, dtype, device)._data
        return self

    def float(self) -> Module:
        return self.to(dtypes.float32)

    def double(self) -> Module:
        return self.to(dtypes.float64)

    def cpu(self) -> Module:
        return self.to("cpu")

    def cuda(self) -> Module:
        return self.to("cuda")

    def state_dict(self) -> OrderedDict[str, Tensor]:
        """Each module's parameters then its buffers, depth first (PyTorch's order)."""
        out: OrderedDict[str, Tensor] = OrderedDict()
        for prefix, mod in self.named_modules():
            dot = f"{prefix}." if prefix else ""
            for name, p in mod._parameters.items():
                if p is not None:
                    out[dot + name] = p.detach()
            for name, b in mod.__dict__.get("_buffers", {}).items():
                if b is not None:
                    out[dot + name] = b.detach()
        return out

    def load_state_dict(
        self, state_dict: dict[str, Tensor], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy the values in; PyTorch's errors for missing and unexpected keys (``strict``)."""
        own = {**dict(self.named_parameters()), **dict(self.named_buffers())}
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        if strict and (missing or unexpected):
            parts = []
            if unexpected:
                parts.append(
                    "Unexpected key(s) in state_dict: "
                    + ", ".join(f'"{k}"' for k in unexpected)
                    + ". "
                )
            if missing:
                parts.append(
                    "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ". "
                )
            raise RuntimeError(
                f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                + "\n\t".join(parts)
            )
        for k, v in state_dict.items():
            if k in own:
                value = v._data if isinstance(v, Tensor) else v
                if own[k]._data.shape != getattr(value, "shape", ()):
                    raise RuntimeError(
                        f"Error(s) in loading state_dict for {type(self).__name__}:\n\tsize "
                        f"mismatch for {k}: copying a param with shape {list(value.shape)} from "
                        f"checkpoint, the shape in current model is {list(own[k]._data.shape)}."
                    )
                own[k]._data[...] = value
                own[k]._version += 1
        return _IncompatibleKeys(missing, unexpected)

    def add_module(self, name: str, module: Module | None) -> None:
        """Register a sub-module under ``name`` (any string, as ``'block 0'``)."""
        if not isinstance(module, Module) and module is not None:
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        if not isinstance(name, str):
            raise TypeError(f"module name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'module name can\'t contain ".", got: {name}')
        if name == "":
            raise KeyError('module name can\'t be empty string ""')
        self._modules[name] = module
        object.__setattr__(self, name, module)

    register_module = add_module

    def register_parameter(self, name: str, param: Tensor | None) -> None:
        if param is not None and not (isinstance(param, Tensor) and param._param):
            raise TypeError(
                f"cannot assign '{type(param).__name__}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        self._parameters[name] = param
        object.__setattr__(self, name, param)

    def get_submodule(self, target: str) -> Module:
        mod = self
        for item in target.split(".") if target else []:
            if item not in mod._modules:
                raise AttributeError(f"{type(mod).__name__} has no attribute `{item}`")
            mod = mod._modules[item]
        return mod

    def get_parameter(self, target: str) -> Tensor:
        path, _, name = target.rpartition(".")
        mod = self.get_submodule(path)
        if name not in mod._parameters:
            raise AttributeError(f"{type(mod).__name__} has no parameter `{name}`")
        return mod._parameters[name]

    def __delattr__(self, name: str) -> None:
        for registry in ("_parameters", "_buffers", "_modules"):
            store = self.__dict__.get(registry)
            if store is not None and name in store:
                del store[name]
        if name in self.__dict__:
            object.__delattr__(self, name)

    def apply(self, fn: Any) -> Module:
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # --- printing --------------------------------------------------------------------------------
    def extra_repr(self) -> str:
        return ""

    def __repr__(self) -> str:
        lines = []
        for name, m in self._modules.items():
            mod = repr(m).replace("\n", "\n  ")
            lines.append(f"({name}): {mod}")
        head = f"{type(self).__name__}({self.extra_repr()}"
        if not lines:
            return head + ")"
        return head + "\n  " + "\n  ".join(lines) + "\n)"


class Linear(Module):
    """y = x Wᵀ + b, initialised as PyTorch does (Kaiming-uniform weight, uniform bias)."""

    def __init__(
        self,
        in_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype, device=device))
        self.bias = Parameter(empty(out_features, dtype=dtype, device=device)) if bias else None
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.in_features
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in_features={self.in_features}, out_features={self.out_features}, "
            f"bias={self.bias is not None}"
        )


class _Numbered(Module):
    """Sequential and ModuleList: sub-modules held under their positions "0", "1", ..."""

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Self:
        self._modules[str(len(self._modules))] = module
        return self


class Sequential(_Numbered):
    def __init__(self, *modules: Module) -> None:
        super().__init__()
        if len(modules) == 1 and isinstance(modules[0], OrderedDict):
            for name, m in modules[0].items():
                self._modules[name] = m
        else:
            for i, m in enumerate(modules):
                if not isinstance(m, Module):
                    raise TypeError(f"{type(m).__name__} is not a Module subclass")
                self._modules[str(i)] = m

    def forward(self, input: Any) -> Any:
        for m in self._modules.values():
            input = m(input)
        return input

    def __getitem__(self, idx: int | slice) -> Any:
        mods = list(self._modules.values())
        if isinstance(idx, slice):
            return Sequential(*mods[idx])
        if not -len(mods) <= idx < len(mods):
            raise IndexError(f"index {idx} is out of range")
        return mods[idx]


class ModuleList(_Numbered):
    def __init__(self, modules: Any = None) -> None:
        super().__init__()
        for i, m in enumerate(modules or []):
            self._modules[str(i)] = m

    def __getitem__(self, idx: int) -> Module:
        return list(self._modules.values())[idx]


class _SharedForward(Module):
    """A base whose subclasses share its ``forward``: each gets its own copy, so that a missing
    argument names the module as PyTorch's does (``ReLU.forward() missing 1 required ...``);
    a program's subclass inherits it as it would PyTorch's."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "forward" not in cls.__dict__ and cls.__module__.startswith("engine."):
            f = cls.forward
            own = types.FunctionType(
                f.__code__, f.__globals__, f.__name__, f.__defaults__, f.__closure__
            )
            own.__qualname__ = f"{cls.__name__}.forward"
            cls.forward = own  # type: ignore[method-assign]


class _Functional(_SharedForward):
    """A module that is one call of a functional, ``fn(input, *settings)``: the settings are
    what its constructor passes to ``super().__init__`` by keyword, in ``fn``'s order; they
    become attributes and print as PyTorch's modules print them (``name=value``, a string
    quoted, ``inplace`` only when true)."""

    fn: Any = None
    _settings: tuple[str, ...] = ()

    def __init__(self, **settings: Any) -> None:
        super().__init__()
        for name, value in settings.items():
            setattr(self, name, value)
        self._settings = tuple(settings)

    def forward(self, input: Tensor) -> Tensor:
        if not self._settings:  # Tanh, Sigmoid ...: a plain call (a model's every step)
            return type(self).fn(input)
        return type(self).fn(input, *[getattr(self, name) for name in self._settings])

    def extra_repr(self) -> str:
        shown = []
        for name in self._settings:
            value = getattr(self, name)
            if name != "inplace":
                shown.append(f"{name}={value!r}" if isinstance(value, str) else f"{name}={value}")
            elif value:
                shown.append("inplace=True")
        return ", ".join(shown)


class ReLU(_Functional):
    fn: Any = staticmethod(F.relu)


class Tanh(_Functional):
    fn: Any = staticmethod(F.tanh)


class Sigmoid(_Functional):
    fn: Any = staticmethod(F.sigmoid)


class GELU(_Functional):
    fn = staticmethod(F.gelu)

    def __init__(self, approximate: str = "none") -> None:
        super().__init__(approximate=approximate)


class SiLU(_Functional):
    fn = staticmethod(F.silu)


class Softplus(_Functional):
    fn = staticmethod(F.softplus)

    def __init__(self, beta: float = 1.0, threshold: float = 20.0) -> None:
        super().__init__(beta=beta, threshold=threshold)


class ELU(_Functional):
    fn = staticmethod(F.elu)

    def __init__(self, alpha: float = 1.0) -> None:
        super().__init__(alpha=alpha)


class Identity(Module):
    def forward(self, input: Tensor) -> Tensor:
        return input


class LeakyReLU(_Functional):
    fn = staticmethod(F.leaky_relu)

    def __init__(self, negative_slope: float = 0.01) -> None:
        super().__init__(negative_slope=negative_slope)


class Softmax(_Functional):
    fn = staticmethod(F.softmax)

    def __init__(self, dim: int | None = None) -> None:
        super().__init__(dim=dim)


class LogSoftmax(Softmax):
    fn = staticmethod(F.log_softmax)


class Dropout(Module):
    def __init__(self, p: float = 0.5) -> None:
        super().__init__()
        self.p = p

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace=False"


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class _Loss(Module):
    """A loss module: its reduction, from ``reduction`` or the deprecated ``size_average`` /
    ``reduce`` (with PyTorch's warning)."""

    def __init__(
        self, size_average: Any = None, reduce: Any = None, reduction: str = "mean"
    ) -> None:
        super().__init__()
        self.reduction = legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class MSELoss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.mse_loss(input, target, reduction=self.reduction)


class L1Loss(_Loss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.l1_loss(input, target, reduction=self.reduction)


class BCELoss(_WeightedLoss):
    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy(input, target, self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        pos_weight: Tensor | None = None,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.binary_cross_entropy_with_logits(
            input, target, self.weight, reduction=self.reduction, pos_weight=self.pos_weight
        )


class CrossEntropyLoss(_WeightedLoss):
    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
        label_smoothing: float = 0.0,
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.cross_entropy(
            input,
            target,
            self.weight,
            ignore_index=self.ignore_index,
            reduction=self.reduction,
            label_smoothing=self.label_smoothing,
        )


class NLLLoss(_WeightedLoss):
    def __init__(
        self,
        weight: Tensor | None = None,
        size_average: Any = None,
        ignore_index: int = -100,
        reduce: Any = None,
        reduction: str = "mean",
    ) -> None:
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.nll_loss(
            input, target, self.weight, ignore_index=self.ignore_index, reduction=self.reduction
        )


class LayerNorm(Module):
    def __init__(
        self,
        normalized_shape: Any,
        eps: float = 1e-5,
        elementwise_affine: bool = True,
        bias: bool = True,
    ) -> None:
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else normalized_shape
        self.normalized_shape = tuple(shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self.weight: Tensor | None = None
        self.bias: Tensor | None = None
        if elementwise_affine:
            self.weight = Parameter(ones(*self.normalized_shape))
            self.bias = Parameter(zeros(*self.normalized_shape)) if bias else None

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}"
        )


class Embedding(Module):
    def __init__(
        self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None
    ) -> None:
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        self.weight = Parameter(empty(num_embeddings, embedding_dim))
        init.normal_(self.weight)
        if padding_idx is not None:
            with no_grad():
                self.weight[padding_idx] = 0.0

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        pad = f", padding_idx={self.padding_idx}" if self.padding_idx is not None else ""
        return f"{self.num_embeddings}, {self.embedding_dim}{pad}"


class HuberLoss(_Loss):
    def __init__(self, reduction: str = "mean", delta: float = 1.0) -> None:
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(_Loss):
    def __init__(
        self,
        size_average: Any = None,
        reduce: Any = None,
        reduction: str = "mean",
        beta: float = 1.0,
    ) -> None:
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)
