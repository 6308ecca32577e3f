"""What a program can import, loaded once in the zygote before any worker is forked.

``import torch`` (and ``torch.nn``, ``torch.nn.functional``, ``torch.optim``,
``torch.autograd``...) gives the engine itself, presented under PyTorch's names so that
``type(x)`` prints ``<class 'torch.Tensor'>``; NumPy and a list of standard modules import as
themselves; ``sys`` is a small stand-in (``exit``, ``argv``, ``version``...) that shows no host
path. Anything else is a ``ModuleNotFoundError`` naming what can be imported.

This is a convenience, not a security layer: a worker cannot open files anyway (the jail), so
a module that was not loaded before the jail could not be loaded after it. The import hook
gives the learner a clear message instead of a PermissionError from deep inside importlib.
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import sys
import types
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

#: Standard modules a program may import, as themselves.
STDLIB: tuple[str, ...] = (
    "math", "cmath", "random", "collections", "collections.abc", "itertools", "functools",
    "dataclasses", "typing", "statistics", "operator", "string", "time", "copy", "enum", "abc",
    "heapq", "bisect", "re", "json", "fractions", "decimal", "numbers", "warnings",
    "contextlib", "textwrap", "pprint", "io", "__future__", "types", "weakref", "array",
    "datetime",
)  # fmt: skip

#: NumPy and the submodules that lessons use (loaded eagerly: nothing loads after the jail).
NUMPY: tuple[str, ...] = ("numpy", "numpy.random", "numpy.linalg", "numpy.fft", "numpy.testing")

#: torch.* -> the engine's module.
TORCH: dict[str, str] = {
    "torch": "engine",
    "torch.nn": "engine.nn",
    "torch.nn.functional": "engine.nn.functional",
    "torch.nn.init": "engine.nn.init",
    "torch.optim": "engine.optim",
    "torch.autograd": "engine.autograd",
    "torch.autograd.function": "engine.function",
    "torch.cuda": "engine.cuda",
}

#: Where PyTorch 2.13 defines the classes the engine offers (``type(x)`` and reprs show it).
_TORCH_CLASS_MODULES: dict[str, str] = {
    "Tensor": "torch", "Size": "torch", "Device": "torch", "DType": "torch",
    "Generator": "torch",
    "Parameter": "torch.nn.parameter", "Module": "torch.nn.modules.module",
    "Linear": "torch.nn.modules.linear", "Identity": "torch.nn.modules.linear",
    "Sequential": "torch.nn.modules.container", "ModuleList": "torch.nn.modules.container",
    "Dropout": "torch.nn.modules.dropout", "Flatten": "torch.nn.modules.flatten",
    "LayerNorm": "torch.nn.modules.normalization", "BatchNorm1d": "torch.nn.modules.batchnorm",
    "Embedding": "torch.nn.modules.sparse",
    "Optimizer": "torch.optim.optimizer", "SGD": "torch.optim.sgd", "Adam": "torch.optim.adam",
    "AdamW": "torch.optim.adamw", "RMSprop": "torch.optim.rmsprop",
    "Adagrad": "torch.optim.adagrad",
    "no_grad": "torch.autograd.grad_mode", "enable_grad": "torch.autograd.grad_mode",
    "set_grad_enabled": "torch.autograd.grad_mode", "inference_mode": "torch.autograd.grad_mode",
    "Function": "torch.autograd.function",
}  # fmt: skip
_ACTIVATIONS = frozenset(
    [
        "ReLU",
        "LeakyReLU",
        "Tanh",
        "Sigmoid",
        "GELU",
        "SiLU",
        "ELU",
        "Softplus",
        "Softmax",
        "LogSoftmax",
    ]
)


def importable() -> list[str]:
    """Every name ``import`` accepts, sorted (shown in the error for anything else)."""
    return sorted({*TORCH, *NUMPY, *STDLIB, "sys"})


def preload(extra: Sequence[str] = ()) -> dict[str, types.ModuleType]:
    """Import everything a program may import (in the zygote, before any jail)."""
    loaded: dict[str, types.ModuleType] = {}
    for name in (*STDLIB, *NUMPY, *extra):
        loaded[name] = importlib.import_module(name)
    for public, ours in TORCH.items():
        loaded[public] = importlib.import_module(ours)
    engine = loaded["torch"]
    for info in pkgutil.walk_packages(engine.__path__, engine.__name__ + "."):
        importlib.import_module(info.name)  # the engine imports some of its parts lazily
    # modules that the loaded ones import lazily on first use
    for lazy in ("numpy.core._dtype", "numpy.lib.recfunctions", "encodings.idna", "unicodedata"):
        with contextlib.suppress(ImportError):
            importlib.import_module(lazy)
    loaded["sys"] = _sys_stand_in()
    return loaded


def present_as_torch(loaded: Mapping[str, types.ModuleType]) -> None:
    """Rename the engine's modules and classes to PyTorch's names (in the zygote only)."""
    engine_names = {ours: public for public, ours in TORCH.items()}
    for name, module in list(sys.modules.items()):
        if not (name == "engine" or name.startswith("engine.")):
            continue
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == name:
                value.__module__ = _class_module(value, name, engine_names)
    for public, module in loaded.items():
        if public in TORCH:
            module.__name__ = public
            if module.__spec__ is not None:
                module.__spec__.name = public  # what the module's repr shows
            sys.modules.setdefault(public, module)


def _class_module(cls: type, defined_in: str, engine_names: Mapping[str, str]) -> str:
    if cls.__name__ in _TORCH_CLASS_MODULES:
        return _TORCH_CLASS_MODULES[cls.__name__]
    if cls.__name__ in _ACTIVATIONS:
        return "torch.nn.modules.activation"
    if cls.__name__.endswith("Loss"):
        return "torch.nn.modules.loss"
    return engine_names.get(defined_in, "torch")


#: PyTorch's warning (TensorBase::grad) for reading ``.grad`` of a non-leaf tensor that does
#: not retain its gradient: it is None, and always will be.
NON_LEAF_GRAD_WARNING = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad "
    "field to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. "
    "If you access the non-leaf Tensor by mistake, make sure you access the leaf Tensor "
    "instead. See github.com/pytorch/pytorch/pull/30531 for more information."
)


def warn_on_non_leaf_grad(tensor_type: type, is_program_file: Callable[[str], bool]) -> None:
    """Make ``t.grad`` warn as PyTorch does when a program reads it on a non-leaf tensor.

    The engine keeps ``grad`` as a plain slot for speed; in a worker the slot is wrapped in a
    property that warns only for reads made by the program itself (its frames' file name).
    """
    slot = tensor_type.__dict__["grad"]

    def get(t: Any) -> Any:
        value = slot.__get__(t, tensor_type)
        if (
            value is None
            and t.grad_fn is not None
            and not t.retains_grad
            and is_program_file(sys._getframe(1).f_code.co_filename)
        ):
            warnings.warn(NON_LEAF_GRAD_WARNING, UserWarning, stacklevel=2)
        return value

    def set_(t: Any, value: Any) -> None:
        slot.__set__(t, value)

    def delete(t: Any) -> None:
        slot.__set__(t, None)

    prop = property(get, set_, delete, "The gradient (see PyTorch's).")
    type.__setattr__(tensor_type, "grad", prop)


def scrub_paths() -> None:
    """Drop host paths from every loaded module, so ``print(numpy)`` shows none."""
    for module in list(sys.modules.values()):
        if not isinstance(module, types.ModuleType):
            continue
        for attr in ("__file__", "__cached__"):
            try:
                if attr in vars(module):
                    delattr(module, attr)
            except (AttributeError, TypeError):
                pass
        with contextlib.suppress(AttributeError, TypeError):
            if "__loader__" in vars(module):
                module.__loader__ = None
        spec = getattr(module, "__spec__", None)
        if spec is not None:
            try:
                spec.loader = None
                spec.origin = None
                spec.cached = None
                spec.has_location = False
                if spec.submodule_search_locations is not None:
                    spec.submodule_search_locations = []
            except (AttributeError, TypeError):
                pass
        path = vars(module).get("__path__")
        if isinstance(path, list):
            path.clear()


def _sys_stand_in() -> types.ModuleType:
    """``import sys`` in a program: what lessons use, without the interpreter's paths."""
    real = sys
    stand_in = types.ModuleType("sys", "The playground's sys: exit, argv, version and friends.")
    stand_in.exit = real.exit  # type: ignore[attr-defined]
    stand_in.argv = ["<program>"]  # type: ignore[attr-defined]
    for name in (
        "version", "version_info", "hexversion", "platform", "byteorder", "maxsize",
        "float_info", "int_info", "hash_info", "float_repr_style", "getsizeof",
        "getrecursionlimit", "setrecursionlimit", "getdefaultencoding", "implementation",
        "exc_info", "exception", "get_int_max_str_digits", "set_int_max_str_digits",
        "intern", "is_finalizing",
    ):  # fmt: skip
        if hasattr(real, name):
            setattr(stand_in, name, getattr(real, name))
    return stand_in


class Importer:
    """The ``__import__`` a program's builtins hold: the loaded modules, and nothing else."""

    def __init__(self, modules: Mapping[str, types.ModuleType]) -> None:
        self.modules = dict(modules)
        self.names = importable()

    def bind_sys_streams(self, stdout: Any, stderr: Any) -> None:
        """The stand-in ``sys`` shows the program's own output streams."""
        stand_in = self.modules["sys"]
        stand_in.stdout = stdout  # type: ignore[attr-defined]
        stand_in.stderr = stderr  # type: ignore[attr-defined]
        stand_in.modules = {}  # type: ignore[attr-defined]

    def __call__(
        self,
        name: str,
        globals: Mapping[str, Any] | None = None,
        locals: Mapping[str, Any] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> types.ModuleType:
        if level:
            raise ImportError("relative imports are not available in the playground (no package)")
        if isinstance(fromlist, list):
            # C code importing what it needs (PyImport_Import passes a list; an import
            # statement passes None or a tuple): NumPy's ndarray.__str__, for one. Only what
            # is already loaded: nothing can be loaded inside the jail.
            loaded = sys.modules.get(name)
            if loaded is None:
                raise ModuleNotFoundError(f"No module named '{name}'", name=name)
            return loaded
        module = self.modules.get(name)
        if module is None:
            raise ModuleNotFoundError(
                f"No module named '{name}' (the playground can import: {', '.join(self.names)})",
                name=name,
            )
        if fromlist:
            for item in fromlist:
                if item != "*" and not hasattr(module, item):
                    sub = self.modules.get(f"{name}.{item}")
                    if sub is not None:
                        setattr(module, item, sub)
            return module
        top = name.partition(".")[0]
        return self.modules[top]
