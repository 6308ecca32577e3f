"""``nn.ModuleDict``, ``nn.ParameterList`` and ``nn.ParameterDict`` (PyTorch's
``torch.nn.modules.container``): sub-modules and parameters held by key or index, registered
so that ``parameters()``, ``state_dict()`` and the optimizers see them."""

from __future__ import annotations

import operator
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from engine.nn.modules import Module, Parameter
from engine.tensor import Tensor

__all__ = ["ModuleDict", "ParameterDict", "ParameterList", "torch_repr"]


def torch_repr(module: Module) -> str:
    """``repr(module)`` by PyTorch's rule: a one-line extra_repr inline, anything longer (or
    with children) on lines of its own, indented."""
    extra = module.extra_repr()
    extra_lines = extra.split("\n") if extra else []
    child_lines = []
    for key, child in module._modules.items():
        text = repr(child).replace("\n", "\n  ")
        child_lines.append(f"({key}): {text}")
    lines = extra_lines + child_lines
    main = type(module).__name__ + "("
    if lines:
        if len(extra_lines) == 1 and not child_lines:
            main += extra_lines[0]
        else:
            main += "\n  " + "\n  ".join(lines) + "\n"
    return main + ")"


class _Keyed(Module):
    """ModuleDict and ParameterDict: the dict protocol over the keys each holds (``_store``),
    in insertion order."""

    def _store(self) -> dict[str, Any]:
        raise NotImplementedError

    def __len__(self) -> int:
        return len(self._store())

    def __iter__(self) -> Iterator[str]:
        return iter(self._store())

    def __contains__(self, key: object) -> bool:
        return key in self._store()

    def keys(self) -> Any:
        return self._store().keys()

    def clear(self) -> None:
        for key in list(self._store()):
            del self[key]

    def pop(self, key: str) -> Any:
        value = self[key]  # type: ignore[index]
        del self[key]
        return value


class ModuleDict(_Keyed):
    """Sub-modules by name, in insertion order."""

    def __init__(self, modules: Mapping[str, Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]  # type: ignore[no-any-return]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]
        self.__dict__.pop(key, None)

    def _store(self) -> dict[str, Any]:
        return self._modules  # type: ignore[no-any-return]

    def items(self) -> Any:
        return self._modules.items()

    def values(self) -> Any:
        return self._modules.values()

    def update(self, modules: Any) -> None:
        if not isinstance(modules, Iterable):
            raise TypeError(
                "ModuleDict.update should be called with an iterable of key/value pairs, but got "
                + type(modules).__name__
            )
        if isinstance(modules, OrderedDict | ModuleDict | Mapping):
            for key, module in modules.items():
                self[key] = module
        else:
            for key, module in _pairs(modules, "ModuleDict"):
                self[key] = module


def _pairs(items: Iterable[Any], kind: str) -> Iterator[tuple[Any, Any]]:
    """``update``'s (key, value) pairs from a sequence, checked with PyTorch's messages."""
    for j, item in enumerate(items):
        if not isinstance(item, Iterable):
            raise TypeError(
                f"{kind} update sequence element #{j} should be Iterable; is{type(item).__name__}"
            )
        if not len(item) == 2:  # type: ignore[arg-type]
            raise ValueError(
                f"{kind} update sequence element #{j} has length {len(item)}; 2 is required"  # type: ignore[arg-type]
            )
        key, value = item
        yield key, value


def _tensor_line(key: Any, p: Any, dtype_text: str) -> str:
    if isinstance(p, Tensor):
        size = "x".join(str(s) for s in p.shape)
        device = f" ({p.device})" if p.device.type == "cuda" else ""
        kind = "Parameter" if isinstance(p, Parameter) else "Tensor"
        return f"  ({key}): {kind} containing: [{dtype_text} of size {size}{device}]"
    return f"  ({key}): Object of type: {type(p).__name__}"


def _as_parameter(value: Any) -> Any:
    """Tensors are stored as Parameters (sharing their data), anything else as it is."""
    if isinstance(value, Tensor) and not isinstance(value, Parameter):
        return Parameter(value)
    return value


class ParameterList(Module):
    """Parameters by index: ``params[0]``, registered as ``0``, ``1`` ..."""

    def __init__(self, values: Iterable[Any] | None = None) -> None:
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _get_abs_string_index(self, idx: Any) -> str:
        idx = operator.index(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        if idx < 0:
            idx += len(self)
        return str(idx)

    def __getitem__(self, idx: Any) -> Any:
        if isinstance(idx, slice):
            start, stop, step = idx.indices(len(self))
            out = self.__class__()
            for i in range(start, stop, step):
                out.append(self[i])
            return out
        return getattr(self, self._get_abs_string_index(idx))

    def __setitem__(self, idx: int, param: Any) -> None:
        setattr(self, self._get_abs_string_index(idx), _as_parameter(param))

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[Any]:
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters: Iterable[Any]) -> ParameterList:
        return self.extend(parameters)

    def append(self, value: Any) -> ParameterList:
        new_idx = len(self)
        self._size += 1
        self[new_idx] = value
        return self

    def extend(self, values: Iterable[Any]) -> ParameterList:
        if not isinstance(values, Iterable) or isinstance(values, Tensor):
            raise TypeError(
                "ParameterList.extend should be called with an iterable, but got "
                + type(values).__name__
            )
        for value in values:
            self.append(value)
        return self

    def extra_repr(self) -> str:
        return "\n".join(
            _tensor_line(k, p, str(p.dtype) if isinstance(p, Tensor) else "")
            for k, p in enumerate(self)
        )

    def __repr__(self) -> str:
        return torch_repr(self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("ParameterList should not be called.")


class ParameterDict(_Keyed):
    """Parameters by string key, in insertion order (a plain dict's items sorted by key, as
    PyTorch's ``update`` takes them)."""

    def __init__(self, parameters: Any = None) -> None:
        super().__init__()
        self._keys: dict[str, None] = {}
        if parameters is not None:
            self.update(parameters)

    def _key_to_attr(self, key: Any) -> str:
        if not isinstance(key, str):
            raise TypeError(
                "Index given to ParameterDict cannot be used as a key as it is not a string "
                f"(type is '{type(key).__name__}'). Open an issue on github if you need "
                "non-string keys."
            )
        return key

    def __getitem__(self, key: str) -> Any:
        return getattr(self, self._key_to_attr(key))

    def __setitem__(self, key: str, value: Any) -> None:
        self._keys[key] = None
        setattr(self, self._key_to_attr(key), _as_parameter(value))

    def __delitem__(self, key: str) -> None:
        del self._keys[key]
        delattr(self, self._key_to_attr(key))

    def _store(self) -> dict[str, Any]:
        return self._keys

    def __reversed__(self) -> Iterator[str]:
        return reversed(self._keys)

    def copy(self) -> ParameterDict:
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key: str, default: Any | None = None) -> Any:
        if key not in self:
            self[key] = default
        return self[key]

    def popitem(self) -> tuple[str, Any]:
        k, _ = self._keys.popitem()
        self._keys[k] = None
        val = self[k]
        del self[k]
        return k, val

    def get(self, key: str, default: Any | None = None) -> Any:
        return self[key] if key in self else default  # noqa: SIM401 - this is get itself

    def fromkeys(self, keys: Iterable[str], default: Any | None = None) -> ParameterDict:
        return ParameterDict((k, default) for k in keys)

    def items(self) -> Iterator[tuple[str, Any]]:
        return ((k, self[k]) for k in self._keys)

    def values(self) -> Iterator[Any]:
        return (self[k] for k in self._keys)

    def update(self, parameters: Any) -> None:
        if not isinstance(parameters, Iterable):
            raise TypeError(
                "ParametersDict.update should be called with an iterable of key/value pairs, "
                "but got " + type(parameters).__name__
            )
        if isinstance(parameters, OrderedDict | ParameterDict):
            for key, parameter in parameters.items():
                self[key] = parameter
        elif isinstance(parameters, Mapping):
            for key, parameter in sorted(parameters.items()):
                self[key] = parameter
        else:
            for key, value in _pairs(parameters, "ParameterDict"):
                self[key] = value

    def extra_repr(self) -> str:
        return "\n".join(
            _tensor_line(k, p, p.type() if isinstance(p, Tensor) else "") for k, p in self.items()
        )

    def __repr__(self) -> str:
        return torch_repr(self)

    def __call__(self, input: Any) -> Any:
        raise RuntimeError("ParameterDict should not be called.")

    def __or__(self, other: ParameterDict) -> ParameterDict:
        copy = self.copy()
        copy.update(other)
        return copy

    def __ror__(self, other: ParameterDict) -> ParameterDict:
        copy = other.copy()
        copy.update(self)
        return copy

    def __ior__(self, other: ParameterDict) -> ParameterDict:
        self.update(other)
        return self
