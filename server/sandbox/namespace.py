"""What user code can reach: bound names, module proxies and per-type attribute allow-lists.

Attribute access from user code goes only through :func:`get_attribute`, which looks the
object's type up in the tables below. Nothing else ever calls ``getattr`` with a name the
user wrote, so no real Python attribute (``__class__``, ``__globals__`` ...) is reachable.
Engine objects are exposed by table rows: module functions, Tensor methods/properties,
Module and optimizer methods. A name missing from the engine is simply absent.
"""

from __future__ import annotations

import importlib
import math
import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import islice
from typing import Any

from server.sandbox.errors import BudgetError, UserError

# ---- the torch-like namespace: names per module -----------------------------------------------

TORCH_NAMES = """
tensor as_tensor from_numpy zeros ones zeros_like ones_like full full_like empty empty_like eye
arange linspace logspace rand randn randint rand_like randn_like randperm normal manual_seed
no_grad enable_grad set_grad_enabled is_grad_enabled inference_mode
float32 float64 float16 bfloat16 int64 int32 int16 int8 uint8 bool long float double half int
cat concat stack hstack vstack where maximum minimum max min argmax argmin sum mean prod std var
norm exp log log2 log10 log1p expm1 sqrt rsqrt abs neg sign sin cos tan tanh sinh cosh asin acos
atan atan2 sigmoid relu softmax log_softmax clamp clip floor ceil round trunc frac square pow
matmul mm bmm mv dot outer einsum transpose permute reshape flatten squeeze unsqueeze t numel
allclose isclose equal eq ne lt le gt ge logical_and logical_or logical_not isnan isinf isfinite
cumsum cumprod sort argsort topk unique chunk split gather index_select masked_fill diag tril triu
nonzero add sub subtract mul multiply div divide true_divide amax amin initial_seed
broadcast_to broadcast_tensors meshgrid lerp addmm baddbmm erf dist cdist
Tensor FloatTensor DoubleTensor LongTensor IntTensor BoolTensor Size device dtype is_tensor
get_default_dtype set_default_dtype pi e inf nan
"""

NN_NAMES = """
Module Parameter Linear Sequential ReLU LeakyReLU Tanh Sigmoid GELU SiLU ELU Softplus Softmax
LogSoftmax Identity Flatten Dropout MSELoss L1Loss SmoothL1Loss HuberLoss BCELoss
BCEWithLogitsLoss CrossEntropyLoss NLLLoss ModuleList LayerNorm BatchNorm1d Embedding
"""

FUNCTIONAL_NAMES = """
relu relu_ leaky_relu gelu silu elu softplus sigmoid tanh softmax log_softmax linear dropout
mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy binary_cross_entropy_with_logits
cross_entropy nll_loss one_hot normalize pad layer_norm embedding batch_norm
"""

INIT_NAMES = """
uniform_ normal_ zeros_ ones_ constant_ kaiming_uniform_ kaiming_normal_ xavier_uniform_
xavier_normal_ calculate_gain
"""
OPTIM_NAMES = "SGD Adam AdamW RMSprop Adagrad Optimizer"
AUTOGRAD_NAMES = "grad backward Function"
CUDA_NAMES = "is_available device_count"
MATH_NAMES = """
sqrt exp log log2 log10 log1p expm1 sin cos tan asin acos atan atan2 sinh cosh tanh floor ceil
trunc fabs isclose isnan isinf isfinite pi e inf nan tau hypot copysign degrees radians erf gamma
lgamma fsum gcd
"""

# ---- per-type attribute allow-lists ----------------------------------------------------------

TENSOR_METHODS = """
abs abs_ neg neg_ add add_ sub sub_ mul mul_ div div_ true_divide floor_divide remainder fmod
pow pow_ exp exp_ log log_ log2 log10 log1p expm1 sqrt sqrt_ rsqrt sin cos tan tanh sinh cosh
asin acos atan sigmoid sigmoid_ relu relu_ clamp clamp_ clip clip_ sign floor ceil round trunc
frac square square_ reciprocal lerp erf
sum mean max min amax amin argmax argmin prod std var norm cumsum cumprod logsumexp
matmul mm bmm mv dot outer t transpose permute reshape reshape_as view view_as flatten squeeze
unsqueeze unsqueeze_ expand expand_as repeat contiguous chunk split unbind narrow flip roll
gather index_select masked_fill masked_fill_ where topk sort argsort unique diag tril triu
item tolist numel nelement dim ndimension size backward detach detach_ requires_grad_ retain_grad
zero_ fill_ clone copy_ float double long int bool half to cpu cuda type type_as
softmax log_softmax eq ne lt le gt ge equal allclose isclose isnan isinf isfinite all any
logical_and logical_or logical_not maximum minimum is_floating_point is_contiguous element_size
new_zeros new_ones new_full new_tensor new_empty normal_ uniform_ nonzero
"""
TENSOR_PROPERTIES = """
shape dtype device grad requires_grad is_leaf grad_fn data T mT ndim is_cuda retains_grad
output_nr itemsize nbytes
"""
TENSOR_SETTABLE = "grad requires_grad data"

MODULE_METHODS = """
forward parameters named_parameters children named_children modules named_modules zero_grad train
eval to cpu cuda double float half requires_grad_ state_dict load_state_dict extra_repr buffers
named_buffers
append extend insert add_module
"""
MODULE_PROPERTIES = """
training weight bias in_features out_features negative_slope reduction p dim normalized_shape eps
num_features running_mean running_var momentum num_embeddings embedding_dim start_dim end_dim
num_batches_tracked padding_idx affine track_running_stats elementwise_affine delta beta
"""
OPTIMIZER_METHODS = "step zero_grad state_dict add_param_group"
OPTIMIZER_PROPERTIES = "param_groups defaults"
GRAD_FN_METHODS = "name"
GRAD_FN_PROPERTIES = "next_functions variable"
DEVICE_PROPERTIES = "type index"
DTYPE_PROPERTIES = "is_floating_point itemsize is_signed"
SIZE_METHODS = "numel count index"

LIST_METHODS = "append extend insert pop remove index count reverse sort copy clear"
DICT_METHODS = "keys values items get pop setdefault update copy clear"
TUPLE_METHODS = "count index"
STR_METHODS = """
upper lower strip lstrip rstrip split rsplit splitlines join replace startswith endswith find
rfind index rindex count isdigit isalpha isalnum isspace isupper islower title capitalize
swapcase format ljust rjust center zfill removeprefix removesuffix partition rpartition
"""
RANGE_PROPERTIES = "start stop step"
RANGE_METHODS = "count index"
FLOAT_METHODS = "is_integer as_integer_ratio hex conjugate"
FLOAT_PROPERTIES = "real imag"
INT_METHODS = "bit_length bit_count conjugate"


def _names(text: str) -> frozenset[str]:
    return frozenset(text.split())


@dataclass
class TypeRules:
    """Which attributes of one type user code may read, call or assign."""

    type_name: str
    methods: frozenset[str] = frozenset()
    properties: frozenset[str] = frozenset()
    settable: frozenset[str] = frozenset()
    # name -> factory(obj, ctx) returning a checked callable (for size-growing builtin methods).
    wrapped: dict[str, Callable[[Any, Any], Any]] = field(default_factory=dict)


class ModuleProxy:
    """A module as user code sees it: only the listed members, nothing of the real module."""

    __slots__ = ("_members", "_name")

    def __init__(self, name: str, members: dict[str, Any]) -> None:
        self._name = name
        self._members = members

    def __repr__(self) -> str:
        return f"<module '{self._name}'>"


ModuleProxy.__name__ = "module"
ModuleProxy.__qualname__ = "module"


class SandboxContext:
    """Per-run state that attribute access needs: budgets and the backward() flag."""

    def __init__(self, max_list_len: int, max_str_len: int, to_str: Callable[[Any], str]) -> None:
        self.max_list_len = max_list_len
        self.max_str_len = max_str_len
        self.to_str = to_str
        self.backward_called = False
        #: warnings PyTorch would print (to stderr), in order, without repeats
        self.warnings: list[str] = []

    def warn(self, line: int, message: str) -> None:
        """Record a warning once per line, as Python's default warning filter shows it once
        per location."""
        text = f"Line {line}: {message}"
        if text not in self.warnings:
            self.warnings.append(text)


#: PyTorch's warning (torch/csrc/autograd: TensorBase::grad) for reading ``.grad`` of a
#: non-leaf tensor that does not retain its gradient: it is None, and always will be.
NON_LEAF_GRAD_WARNING = (
    "UserWarning: The .grad attribute of a Tensor that is not a leaf Tensor is being "
    "accessed. Its .grad attribute won't be populated during autograd.backward(). If you "
    "indeed want the .grad field to be populated for a non-leaf Tensor, use .retain_grad() on "
    "the non-leaf Tensor. If you access the non-leaf Tensor by mistake, make sure you access "
    "the leaf Tensor instead."
)


def reads_non_leaf_grad(obj: Any, name: str) -> bool:
    """``obj.grad`` where obj is a tensor with a grad_fn that does not retain its gradient."""
    if name != "grad":
        return False
    engine = load_engine()
    tensor_type = getattr(engine, "Tensor", None)
    return (
        tensor_type is not None
        and isinstance(obj, tensor_type)
        and obj.grad_fn is not None
        and obj.grad is None
        and not obj.retains_grad
    )


# ---- engine access (lazy: the engine lands in parts) -------------------------------------------


def load_engine() -> types.ModuleType | None:
    """The engine package, or None when it cannot be imported here."""
    try:
        return importlib.import_module("engine")
    except Exception:
        return None


def _submodule(engine: types.ModuleType, dotted: str) -> Any:
    obj: Any = engine
    for part in dotted.split("."):
        obj = getattr(obj, part, None)
        if obj is None:
            try:
                obj = importlib.import_module(f"{engine.__name__}.{dotted}")
            except Exception:
                return None
            break
    return obj


def _members(source: Any, names: str) -> dict[str, Any]:
    if source is None:
        return {}
    return {n: getattr(source, n) for n in names.split() if hasattr(source, n)}


_MODULES: dict[str, ModuleProxy] | None = None


def modules() -> dict[str, ModuleProxy]:
    """The importable modules ('torch', 'torch.nn', ..., 'math'), built once per process."""
    global _MODULES
    if _MODULES is not None:
        return _MODULES
    proxies: dict[str, ModuleProxy] = {"math": ModuleProxy("math", _members(math, MATH_NAMES))}
    engine = load_engine()
    if engine is not None:
        functional = ModuleProxy(
            "torch.nn.functional", _members(_submodule(engine, "nn.functional"), FUNCTIONAL_NAMES)
        )
        nn_members = _members(_submodule(engine, "nn"), NN_NAMES)
        nn_members["functional"] = functional
        init = ModuleProxy("torch.nn.init", _members(_submodule(engine, "nn.init"), INIT_NAMES))
        nn_members["init"] = init
        nn = ModuleProxy("torch.nn", nn_members)
        optim = ModuleProxy("torch.optim", _members(_submodule(engine, "optim"), OPTIM_NAMES))
        autograd = ModuleProxy(
            "torch.autograd", _members(_submodule(engine, "autograd"), AUTOGRAD_NAMES)
        )
        cuda = ModuleProxy("torch.cuda", _members(_submodule(engine, "cuda"), CUDA_NAMES))
        torch_members = _members(engine, TORCH_NAMES)
        torch_members.update(nn=nn, optim=optim, autograd=autograd, cuda=cuda)
        proxies.update(
            {
                "torch": ModuleProxy("torch", torch_members),
                "torch.nn": nn,
                "torch.nn.functional": functional,
                "torch.nn.init": init,
                "torch.optim": optim,
                "torch.autograd": autograd,
            }
        )
    _MODULES = proxies
    return proxies


_RULES: list[tuple[type, TypeRules]] | None = None


def _checked_len(ctx: SandboxContext, n: int, what: str = "list") -> None:
    if n > ctx.max_list_len:
        raise BudgetError("max_list_len", f"{what} too long: more than {ctx.max_list_len} items")


def _checked_str(ctx: SandboxContext, n: int) -> None:
    if n > ctx.max_str_len:
        raise BudgetError("max_str_len", f"string too long: more than {ctx.max_str_len} characters")


def _list_rules() -> TypeRules:
    def append(obj: list[Any], ctx: SandboxContext) -> Callable[[Any], None]:
        def append(item: Any) -> None:
            _checked_len(ctx, len(obj) + 1)
            obj.append(item)

        return append

    def insert(obj: list[Any], ctx: SandboxContext) -> Callable[[int, Any], None]:
        def insert(index: int, item: Any) -> None:
            _checked_len(ctx, len(obj) + 1)
            obj.insert(index, item)

        return insert

    def extend(obj: list[Any], ctx: SandboxContext) -> Callable[[Iterable[Any]], None]:
        def extend(items: Iterable[Any]) -> None:
            room = ctx.max_list_len - len(obj)
            new = list(islice(iter(items), room + 1))
            _checked_len(ctx, len(obj) + len(new))
            obj.extend(new)

        return extend

    def sort(obj: list[Any], ctx: SandboxContext) -> Callable[..., None]:
        def sort(*, reverse: bool = False) -> None:
            obj.sort(reverse=reverse)

        return sort

    return TypeRules(
        "list",
        methods=_names(LIST_METHODS),
        wrapped={"append": append, "insert": insert, "extend": extend, "sort": sort},
    )


def _str_rules() -> TypeRules:
    from server.sandbox.formatting import SafeFormatter

    def join(obj: str, ctx: SandboxContext) -> Callable[[Iterable[Any]], str]:
        def join(items: Iterable[Any]) -> str:
            parts = list(islice(iter(items), ctx.max_list_len + 1))
            _checked_len(ctx, len(parts))
            total = sum(len(p) if isinstance(p, str) else 0 for p in parts) + len(obj) * max(
                len(parts) - 1, 0
            )
            _checked_str(ctx, total)
            return obj.join(parts)

        return join

    def replace(obj: str, ctx: SandboxContext) -> Callable[..., str]:
        def replace(old: str, new: str, count: int = -1) -> str:
            if isinstance(old, str) and isinstance(new, str):
                hits = obj.count(old) if old else len(obj) + 1
                _checked_str(ctx, len(obj) + hits * max(len(new) - len(old), 0))
            return obj.replace(old, new, count)

        return replace

    def pad(method: str) -> Callable[[str, SandboxContext], Callable[..., str]]:
        def factory(obj: str, ctx: SandboxContext) -> Callable[..., str]:
            def padded(width: int, *fill: str) -> str:
                if isinstance(width, int):
                    _checked_str(ctx, width)
                result: str = getattr(obj, method)(width, *fill)  # method is from our table
                return result

            return padded

        return factory

    def fmt(obj: str, ctx: SandboxContext) -> Callable[..., str]:
        def format(*args: Any, **kwargs: Any) -> str:
            result = SafeFormatter(ctx.max_str_len, ctx.to_str).vformat(obj, args, kwargs)
            _checked_str(ctx, len(result))
            return result

        return format

    wrapped: dict[str, Callable[[Any, Any], Any]] = {
        "join": join,
        "replace": replace,
        "format": fmt,
    }
    wrapped.update({m: pad(m) for m in ("ljust", "rjust", "center", "zfill")})
    return TypeRules("str", methods=_names(STR_METHODS), wrapped=wrapped)


def _rules() -> list[tuple[type, TypeRules]]:
    """(type, rules) pairs, most specific first; engine types only when the engine has them."""
    global _RULES
    if _RULES is not None:
        return _RULES
    rules: list[tuple[type, TypeRules]] = [
        (bool, TypeRules("bool")),
        (int, TypeRules("int", methods=_names(INT_METHODS), properties=_names("real imag"))),
        (
            float,
            TypeRules("float", methods=_names(FLOAT_METHODS), properties=_names(FLOAT_PROPERTIES)),
        ),
        (str, _str_rules()),
        (list, _list_rules()),
        (dict, TypeRules("dict", methods=_names(DICT_METHODS))),
        (
            range,
            TypeRules("range", methods=_names(RANGE_METHODS), properties=_names(RANGE_PROPERTIES)),
        ),
    ]
    engine = load_engine()
    if engine is not None:
        tensor = getattr(engine, "Tensor", None)
        if isinstance(tensor, type):
            rules.insert(
                0,
                (
                    tensor,
                    TypeRules(
                        "Tensor",
                        methods=_names(TENSOR_METHODS),
                        properties=_names(TENSOR_PROPERTIES),
                        settable=_names(TENSOR_SETTABLE),
                    ),
                ),
            )
        # (engine.tensor is also the name of the factory function, so import the module)
        returned = getattr(
            importlib.import_module(f"{engine.__name__}.tensor"), "_ReturnTypes", None
        )
        if isinstance(returned, type):  # x.max(dim=1).values / .indices
            rules.insert(
                0, (returned, TypeRules("return_types", properties=_names("values indices")))
            )
        size = getattr(engine, "Size", None)
        if isinstance(size, type):
            rules.insert(0, (size, TypeRules("Size", methods=_names(SIZE_METHODS))))
        for dotted, attr, row in (
            (
                "nn",
                "Module",
                TypeRules("Module", _names(MODULE_METHODS), _names(MODULE_PROPERTIES)),
            ),
            (
                "optim",
                "Optimizer",
                TypeRules("Optimizer", _names(OPTIMIZER_METHODS), _names(OPTIMIZER_PROPERTIES)),
            ),
            ("", "device", TypeRules("device", properties=_names(DEVICE_PROPERTIES))),
            ("", "dtype", TypeRules("dtype", properties=_names(DTYPE_PROPERTIES))),
        ):
            owner = _submodule(engine, dotted) if dotted else engine
            cls = getattr(owner, attr, None) if owner is not None else None
            if isinstance(cls, type):
                rules.append((cls, row))
    rules.append((tuple, TypeRules("tuple", methods=_names(TUPLE_METHODS))))
    _RULES = rules
    return rules


def _grad_fn_rules(obj: Any) -> TypeRules | None:
    module = type(obj).__module__ or ""
    if module.startswith("engine") and type(obj).__name__.endswith(
        ("Backward", "Backward0", "Backward1", "Node")
    ):
        return TypeRules("grad_fn", _names(GRAD_FN_METHODS), _names(GRAD_FN_PROPERTIES))
    if module.startswith("engine") and hasattr(type(obj), "next_functions"):
        return TypeRules("grad_fn", _names(GRAD_FN_METHODS), _names(GRAD_FN_PROPERTIES))
    return None


def rules_for(obj: Any) -> TypeRules | None:
    """The allow-list row that applies to obj (exact type first, then engine base classes)."""
    for cls, row in _rules():
        if isinstance(obj, cls):
            return row
    return _grad_fn_rules(obj)


def type_name(obj: Any) -> str:
    return type(obj).__name__


def get_attribute(obj: Any, name: str, ctx: SandboxContext) -> Any:
    """``obj.name`` as user code may see it, or an AttributeError a learner can read."""
    if isinstance(obj, ModuleProxy):
        members = obj._members
        if name in members:
            return members[name]
        raise UserError("AttributeError", f"module '{obj._name}' has no attribute '{name}'")
    if name.startswith("_"):
        raise UserError("AttributeError", f"attribute '{name}' is not accessible in the playground")
    row = rules_for(obj)
    if row is not None:
        if name in row.wrapped:
            return row.wrapped[name](obj, ctx)
        if (name in row.methods or name in row.properties) and hasattr(obj, name):
            if name == "backward":
                ctx.backward_called = True
            return sanitize(getattr(obj, name), ctx)  # name is from our table
        if hasattr(obj, name):
            raise UserError(
                "AttributeError", f"'{row.type_name}.{name}' is not available in the playground"
            )
    raise UserError("AttributeError", f"'{type_name(obj)}' object has no attribute '{name}'")


def set_attribute(obj: Any, name: str, value: Any, ctx: SandboxContext) -> None:
    """``obj.name = value`` where the table allows it (``w.grad = None``)."""
    row = rules_for(obj)
    if row is not None and name in row.settable and not isinstance(obj, ModuleProxy):
        setattr(obj, name, value)  # name is from our table
        return
    if row is not None and (name in row.methods or name in row.properties):
        raise UserError(
            "AttributeError", f"cannot assign to '{row.type_name}.{name}' in the playground"
        )
    raise UserError(
        "AttributeError",
        f"'{type_name(obj)}' object attribute '{name}' cannot be assigned in the playground",
    )


def sanitize(value: Any, ctx: SandboxContext) -> Any:
    """Make a value returned by the engine safe to hand to user code (no generators, no numpy scalars)."""
    if isinstance(value, types.GeneratorType):
        items = list(islice(value, ctx.max_list_len + 1))
        _checked_len(ctx, len(items))
        return items
    module = type(value).__module__
    if module == "numpy" and hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        return value.item()
    return value
