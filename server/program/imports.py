"""What a program can import: what Python has, loaded once in the zygote before any worker is
forked (a jailed worker cannot open a file, so nothing can be loaded after the jail).

``import torch`` (and ``torch.nn``, ``torch.nn.functional``, ``torch.optim``,
``torch.utils.data``, ``torch.autograd``...) gives the engine itself, presented under PyTorch's
names so that ``type(x)`` prints ``<class 'torch.Tensor'>``; NumPy and the whole standard
library import as themselves (``os``, ``pathlib``, ``traceback``, ``csv``...), and ``sys`` is
the real one's attributes without the host's paths. What a module then asks of the kernel is
the jail's to allow or refuse (``os.listdir('/')`` is a PermissionError): there is no import
allow-list. A module Python does not have here is Python's own ``ModuleNotFoundError``.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import pkgutil
import sys
import types
import warnings
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

#: Standard modules that are not preloaded: side effects on import (``antigravity`` opens a
#: browser, ``this`` prints), terminals and windows, the test suite and packaging tools.
STDLIB_SKIPPED = frozenset(
    {
        "antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test",
        "lib2to3", "ensurepip", "venv", "pydoc_data", "readline", "__main__", "__phello__",
        "distutils",
    }
)  # fmt: skip

#: NumPy's public submodules (its tests, f2py and build tools are not preloaded).
NUMPY: tuple[str, ...] = (
    "numpy", "numpy.random", "numpy.linalg", "numpy.fft", "numpy.testing", "numpy.polynomial",
    "numpy.ma", "numpy.lib", "numpy.lib.recfunctions", "numpy.lib.stride_tricks", "numpy.char",
    "numpy.ctypeslib", "numpy.emath", "numpy.exceptions", "numpy.dtypes", "numpy.rec",
    "numpy.strings", "numpy.typing",
)  # fmt: skip

#: torch.* -> the engine's module.
TORCH: dict[str, str] = {
    "torch": "engine",
    "torch.nn": "engine.nn",
    "torch.nn.functional": "engine.nn.functional",
    "torch.nn.init": "engine.nn.init",
    "torch.nn.utils": "engine.nn.utils",
    "torch.optim": "engine.optim",
    "torch.optim.lr_scheduler": "engine.optim.lr_scheduler",
    "torch.autograd": "engine.autograd",
    "torch.autograd.function": "engine.function",
    "torch.autograd.functional": "engine.autograd_functional",
    "torch.functional": "engine.functional",
    "torch.profiler": "engine.profiler",
    "torch.autograd.profiler": "engine.profiler",
    "torch.cuda": "engine.cuda",
    "torch.utils": "engine.utils",
    "torch.utils.data": "engine.utils.data",
    # PyTorch's own module layout, as lessons import from it
    "torch.utils.data.dataloader": "engine.utils.data",
    "torch.utils.data.dataset": "engine.utils.data",
    "torch.utils.data.sampler": "engine.utils.data",
    "torch.nn.modules": "engine.nn",
    "torch.nn.parameter": "engine.nn",
    "torch.optim.optimizer": "engine.optim.optimizer",
    "torch.optim.sgd": "engine.optim.sgd",
    "torch.optim.adam": "engine.optim.adam",
    "torch.optim.adamw": "engine.optim.adamw",
    "torch.optim.rmsprop": "engine.optim.rmsprop",
    "torch.optim.adagrad": "engine.optim.adagrad",
    "torch.optim.adadelta": "engine.optim.adadelta",
    "torch.optim.adamax": "engine.optim.adamax",
    "torch.optim.nadam": "engine.optim.nadam",
    "torch.optim.radam": "engine.optim.radam",
    "torch.optim.asgd": "engine.optim.asgd",
    "torch.optim.lbfgs": "engine.optim.lbfgs",
    "torch.random": "engine.random",
    "torch.backends": "engine.backends",
    "torch.backends.cudnn": "engine.backends.cudnn",
    "torch.backends.mps": "engine.backends.mps",
    "torch.backends.mkl": "engine.backends.mkl",
    "torch.backends.openmp": "engine.backends.openmp",
    "torch.accelerator": "engine.accelerator",
    "torch.linalg": "engine.linalg",
    "torch.testing": "engine.testing",
    "torch.distributions": "engine.distributions",
    "torch.distributions.normal": "engine.distributions.normal",
    "torch.distributions.uniform": "engine.distributions.uniform",
    "torch.distributions.bernoulli": "engine.distributions.bernoulli",
    "torch.distributions.categorical": "engine.distributions.categorical",
    "torch.distributions.multinomial": "engine.distributions.multinomial",
}

#: Packages of the playground itself: not what Python has, so not importable by a program.
_OURS = ("engine", "recorder", "server", "tests")


#: Where PyTorch 2.13 defines the classes the engine offers (``type(x)`` and reprs show it):
#: each module and the classes in it. (A class whose name ends in ``Loss`` is in
#: torch.nn.modules.loss; any other is where the engine's module maps to, else torch.)
_TORCH_CLASSES: dict[str, str] = {
    "torch": "Tensor Size Device DType Generator",
    "torch.nn.parameter": "Parameter",
    "torch.nn.modules.module": "Module",
    "torch.nn.modules.linear": "Linear Identity Bilinear",
    "torch.nn.modules.container": "Sequential ModuleList ModuleDict ParameterList ParameterDict",
    "torch.nn.modules.dropout": "Dropout Dropout1d Dropout2d",
    "torch.nn.modules.flatten": "Flatten Unflatten",
    "torch.nn.modules.normalization": "LayerNorm GroupNorm",
    "torch.nn.modules.batchnorm": "BatchNorm1d BatchNorm2d",
    "torch.nn.modules.sparse": "Embedding",
    "torch.nn.modules.distance": "CosineSimilarity PairwiseDistance",
    "torch.nn.modules.padding": "ZeroPad2d",
    "torch.nn.modules.upsampling": "Upsample",
    "torch.nn.modules.conv": "Conv1d Conv2d",
    "torch.nn.modules.pooling": "MaxPool1d MaxPool2d AvgPool1d AvgPool2d AdaptiveAvgPool2d",
    "torch.nn.modules.rnn": "RNN LSTM GRU RNNBase RNNCell LSTMCell GRUCell",
    "torch.nn.modules.activation": (
        "ReLU LeakyReLU Tanh Sigmoid GELU SiLU ELU Softplus Softmax LogSoftmax ReLU6 Hardtanh "
        "PReLU SELU CELU GLU Mish Softsign Hardswish Hardsigmoid Threshold Softmin LogSigmoid "
        "Tanhshrink Softshrink Hardshrink"
    ),
    "torch.optim.optimizer": "Optimizer",
    "torch.optim.sgd": "SGD",
    "torch.optim.adam": "Adam",
    "torch.optim.adamw": "AdamW",
    "torch.optim.rmsprop": "RMSprop",
    "torch.optim.adagrad": "Adagrad",
    "torch.optim.adadelta": "Adadelta",
    "torch.optim.adamax": "Adamax",
    "torch.optim.nadam": "NAdam",
    "torch.optim.radam": "RAdam",
    "torch.optim.asgd": "ASGD",
    "torch.optim.lbfgs": "LBFGS",
    "torch.autograd.grad_mode": "no_grad enable_grad set_grad_enabled inference_mode",
    "torch.autograd.function": "Function",
    "torch.autograd.variable": "Variable",
    "torch.utils.data.dataloader": "DataLoader",
    "torch.utils.data.dataset": "Dataset IterableDataset TensorDataset Subset ConcatDataset",
    "torch.utils.data.sampler": (
        "Sampler SequentialSampler RandomSampler BatchSampler SubsetRandomSampler "
        "WeightedRandomSampler"
    ),
}
_TORCH_CLASS_MODULES = {
    name: module for module, names in _TORCH_CLASSES.items() for name in names.split()
}


def stdlib_names() -> list[str]:
    """Every public standard module and submodule that imports on this interpreter."""
    names = []
    for top in sorted(sys.stdlib_module_names):
        if top.startswith("_") or top in STDLIB_SKIPPED:
            continue
        names.append(top)
    return names


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """An import that prints or warns (a deprecated module) says nothing at preload."""
    with (
        warnings.catch_warnings(),
        contextlib.redirect_stdout(io.StringIO()),
        contextlib.redirect_stderr(io.StringIO()),
    ):
        warnings.simplefilter("ignore")
        yield


def _import_quietly(name: str) -> types.ModuleType | None:
    try:
        with _quiet():
            return importlib.import_module(name)
    except BaseException:  # a module this interpreter lacks (dbm.gnu), or one for Windows
        return None


def _submodules(package: types.ModuleType) -> Iterator[str]:
    path = getattr(package, "__path__", None)
    if not path:
        return
    for info in pkgutil.walk_packages(path, package.__name__ + ".", onerror=lambda _: None):
        parts = info.name.split(".")
        if any(p in STDLIB_SKIPPED or p.startswith(("test", "_")) for p in parts[1:]):
            continue
        yield info.name


def preload(extra: Sequence[str] = ()) -> dict[str, types.ModuleType]:
    """Import everything a program may import (in the zygote, before any jail): the standard
    library, NumPy, the engine as torch; returns the modules a program's import resolves to
    before sys.modules is asked (torch's names, ``sys``'s stand-in)."""
    for top in stdlib_names():
        module = _import_quietly(top)
        if module is not None:
            for sub in _submodules(module):
                _import_quietly(sub)
    for name in (*NUMPY, *extra):
        _import_quietly(name)
    loaded: dict[str, types.ModuleType] = {}
    for public, ours in TORCH.items():
        loaded[public] = importlib.import_module(ours)
    engine = loaded["torch"]
    for info in pkgutil.walk_packages(engine.__path__, engine.__name__ + "."):
        importlib.import_module(info.name)  # the engine imports some of its parts lazily
    # modules that the loaded ones import lazily on first use
    for lazy in ("numpy.core._dtype", "encodings.idna", "unicodedata"):
        _import_quietly(lazy)
    loaded["sys"] = _sys_stand_in()
    return loaded


def present_as_torch(loaded: Mapping[str, types.ModuleType]) -> None:
    """Rename the engine's modules and classes to PyTorch's names (in the zygote only)."""
    engine_names: dict[str, str] = {}
    for public, ours in TORCH.items():
        engine_names.setdefault(ours, public)  # the canonical name, not an alias
    for name, module in list(sys.modules.items()):
        if not (name == "engine" or name.startswith("engine.")):
            continue
        for value in vars(module).values():
            if isinstance(value, type) and value.__module__ == name:
                value.__module__ = _class_module(value, name, engine_names)
    named: set[int] = set()
    for public, module in loaded.items():
        if public in TORCH:
            if id(module) not in named:  # its canonical name: the first of its aliases
                named.add(id(module))
                module.__name__ = public
                if module.__spec__ is not None:
                    module.__spec__.name = public  # what the module's repr shows
            sys.modules.setdefault(public, module)


def _class_module(cls: type, defined_in: str, engine_names: Mapping[str, str]) -> str:
    if cls.__name__ in _TORCH_CLASS_MODULES:
        return _TORCH_CLASS_MODULES[cls.__name__]
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


#: attributes of ``sys`` a program does not get from the stand-in: the host's paths, the
#: import machinery (nothing can be loaded in a worker) and the interpreter's frames
_SYS_HIDDEN = frozenset(
    {
        "executable", "_base_executable", "prefix", "exec_prefix", "base_prefix",
        "base_exec_prefix", "platlibdir", "pycache_prefix", "orig_argv", "path", "path_hooks",
        "path_importer_cache", "meta_path", "modules", "argv", "_getframe", "_current_frames",
        "_current_exceptions", "_xoptions", "warnoptions", "_git", "_framework", "_home",
        "_stdlib_dir", "dont_write_bytecode",
    }
)  # fmt: skip


def _sys_stand_in() -> types.ModuleType:
    """``import sys`` in a program: the real one's attributes (``version``, ``maxsize``,
    ``float_info``, ``exit``, ``getsizeof``, ``stdout``...) without the host's paths."""
    stand_in = types.ModuleType("sys", sys.__doc__)
    for name, value in vars(sys).items():
        if name not in _SYS_HIDDEN and not (name.startswith("__") and name != "__stdout__"):
            setattr(stand_in, name, value)
    stand_in.argv = ["<program>"]  # type: ignore[attr-defined]
    stand_in.path = []  # type: ignore[attr-defined]
    stand_in.executable = ""  # type: ignore[attr-defined]
    stand_in.modules = {}  # type: ignore[attr-defined]
    return stand_in


_loaded: tuple[tuple[int, str | None], dict[str, types.ModuleType]] = ((-1, None), {})


def _loaded_modules() -> dict[str, types.ModuleType]:
    """The loaded modules a program may see (``sys.modules`` less ours), remembered while
    ``sys.modules`` holds as many and the same last one: a worker loads none, and this runs
    on every request."""
    global _loaded
    mark = (len(sys.modules), next(reversed(sys.modules), None))
    if _loaded[0] != mark:
        _loaded = (
            mark,
            {
                name: module
                for name, module in list(sys.modules.items())
                if name.partition(".")[0] not in _OURS and isinstance(module, types.ModuleType)
            },
        )
    return _loaded[1]


#: ``sys.modules`` as programs see it: (the mark of :func:`_loaded_modules`, the id and size
#: of the mapping of our modules it was made with) and the dict
_visible: tuple[tuple[Any, ...], dict[str, types.ModuleType]] = ((), {})
#: True in a process that runs one program and exits (:func:`one_program_per_process`)
_shared = False


def one_program_per_process() -> None:
    """This process runs one program, then exits (a sandbox worker): the program's
    ``sys.modules`` may be the remembered dict itself, made in the zygote before the fork,
    rather than a copy of it. Making a copy, or freeing the one an earlier run left, touches
    every loaded module's reference count: a copy-on-write page fault each in a fresh fork
    (~600 of them, ~2 ms of CPU a run). What the program does to the dict dies with its
    process; nothing else reads it."""
    global _shared
    _shared = True


def visible_modules(ours: Mapping[str, types.ModuleType]) -> dict[str, types.ModuleType]:
    """``sys.modules`` as a program sees it: the loaded modules less ours, then ``ours``
    (torch's names, ``sys``'s stand-in) over them; remembered while ``sys.modules`` and
    ``ours`` are the same."""
    global _visible
    loaded = _loaded_modules()
    mark = (_loaded[0], id(ours), len(ours))
    if _visible[0] != mark:
        visible = dict(loaded)
        visible.update(ours)
        _visible = (mark, visible)
    return _visible[1]


def settle_sys_modules(ours: Mapping[str, types.ModuleType]) -> None:
    """The zygote's last step before it forks: make the dict :func:`visible_modules` remembers,
    and put it on ``sys``'s stand-in in place of the copy the last warm-up run left there. A
    worker then assigns the same dict again, and frees nothing: freeing that copy in the
    worker would touch every module it holds (~640 copy-on-write faults, ~2 ms a run)."""
    ours["sys"].modules = visible_modules(ours)  # type: ignore[attr-defined]


class Importer:
    """The ``__import__`` a program's builtins hold: torch's names and ``sys``'s stand-in, then
    every module the zygote loaded (Python's own import would look for files, which a jailed
    worker cannot open), and for anything else Python's own error."""

    def __init__(self, modules: Mapping[str, types.ModuleType]) -> None:
        self.given = modules
        self.modules = dict(modules)

    def bind_sys_streams(self, stdout: Any, stderr: Any) -> None:
        """The stand-in ``sys`` shows the program's own output streams, and the modules a
        program can import as ``sys.modules``."""
        stand_in = self.modules["sys"]
        for name in ("stdout", "__stdout__"):
            setattr(stand_in, name, stdout)
        for name in ("stderr", "__stderr__"):
            setattr(stand_in, name, stderr)
        if _shared:  # this process's one program: the dict made before the fork
            visible = visible_modules(self.given)
        else:  # a copy: a program may change its own sys.modules, and the next must not see it
            visible = dict(_loaded_modules())
            visible.update(self.modules)
        stand_in.modules = visible  # type: ignore[attr-defined]

    def find(self, name: str) -> types.ModuleType | None:
        """The module ``import name`` gives, or None."""
        module = self.modules.get(name)
        if module is not None:
            return module
        if name.partition(".")[0] in _OURS:
            return None
        found = sys.modules.get(name)
        return found if isinstance(found, types.ModuleType) else None

    def __call__(
        self,
        name: str,
        globals: Mapping[str, Any] | None = None,
        locals: Mapping[str, Any] | None = None,
        fromlist: Sequence[str] | None = (),
        level: int = 0,
    ) -> types.ModuleType:
        if level:
            raise ImportError("attempted relative import with no known parent package", name=name)
        if isinstance(fromlist, list):
            # C code importing what it needs (PyImport_Import passes a list; an import
            # statement passes None or a tuple): NumPy's ndarray.__str__, for one.
            loaded = sys.modules.get(name)
            if loaded is None:
                raise ModuleNotFoundError(f"No module named '{name}'", name=name)
            return loaded
        module = self.find(name)
        if module is None:
            raise _not_found(name)
        if fromlist:
            for item in fromlist:
                if item != "*" and not hasattr(module, item):
                    sub = self.find(f"{name}.{item}")
                    if sub is not None:
                        setattr(module, item, sub)
            return module
        top = self.find(name.partition(".")[0])
        if top is None:
            raise _not_found(name)
        return top


def _not_found(name: str) -> ModuleNotFoundError:
    """Python's error, naming the first missing part (``No module named 'sklearn'``)."""
    parts = name.split(".")
    missing = name
    for i in range(1, len(parts) + 1):
        prefix = ".".join(parts[:i])
        if prefix not in sys.modules and prefix not in TORCH:
            missing = prefix
            break
    exc = ModuleNotFoundError(f"No module named '{missing}'", name=missing)
    exc.add_note(
        "(The playground has Python's standard library, NumPy, and PyTorch's API as torch; "
        "other packages are not installed.)"
    )
    return exc
