"""``torch.optim.Optimizer``: parameter groups, state, ``zero_grad`` and the state dict,
and the arithmetic the update rules share (PyTorch's fused roundings: ``_fma``, ``_lerp_``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, ClassVar, TypedDict

import numpy as np

from engine import backend, dtypes
from engine.core import enable_grad, zero_grads
from engine.tensor import Tensor


class Optimizer:
    def __init__(self, params: Iterable[Any], defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        self.state: dict[int, dict[str, Any]] = {}
        self.param_groups: list[dict[str, Any]] = []
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                f"dicts, but got torch.{dtypes.type_word(params._data.dtype)}Tensor"
            )
        items = list(params)
        if not items:
            raise ValueError("optimizer got an empty parameter list")
        groups = items if isinstance(items[0], dict) else [{"params": items}]
        for g in groups:
            self.add_param_group(g)

    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a group of parameters with its own settings (the defaults fill the rest)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group).__name__}")
        params = param_group["params"]
        params = [params] if isinstance(params, Tensor) else list(params)
        # PyTorch's order: the group as given ('params' first), then the missing defaults
        group = {"params": params, **{k: v for k, v in param_group.items() if k != "params"}}
        for k, v in self.defaults.items():
            group.setdefault(k, v)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params "
                    f"is {type(p).__name__}"
                )
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in seen for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        zero_grads((p for g in self.param_groups for p in g["params"]), set_to_none)

    def _state(self, p: Tensor) -> dict[str, Any]:
        return self.state.setdefault(id(p), {})

    def _with_grads(self, group: dict[str, Any]) -> Iterator[tuple[Tensor, Any, dict[str, Any]]]:
        """(parameter, its gradient (negated to maximize), its state) for each parameter of the
        group that has a gradient, in order."""
        for p in group["params"]:
            if p.grad is not None:
                yield p, _grad(p, group), self._state(p)

    def state_of(self, p: Tensor) -> dict[str, Any]:
        """The optimizer state of one parameter (arrays), for the stateless train API."""
        return self.state.get(id(p), {})

    def state_dict(self) -> dict[str, Any]:
        """PyTorch's layout: per-parameter state keyed by the parameter's index over all
        groups, and each group's settings with its parameters as those indices."""
        index: dict[int, int] = {}
        groups = []
        for g in self.param_groups:
            packed = {k: v for k, v in g.items() if k != "params"}
            ids = []
            for p in g["params"]:
                index.setdefault(id(p), len(index))
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state: dict[int, dict[str, Any]] = {}
        for g in self.param_groups:
            for p in g["params"]:
                saved = self.state.get(id(p))
                if saved:
                    state[index[id(p)]] = {k: self._export(v) for k, v in saved.items()}
        return {"state": state, "param_groups": groups}

    #: state entries held as Python or NumPy scalars (PyTorch's 0-d tensors), and their type
    _scalar_state: ClassVar[dict[str, Any]] = {"step": int}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Take a ``state_dict()`` back (PyTorch's checks): state by parameter index, cast to
        each parameter's dtype and device (the step counts excepted), and each group's
        settings with this optimizer's own parameters."""
        groups = self.param_groups
        saved_groups = [dict(g) for g in state_dict["param_groups"]]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(
            len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups, strict=True)
        ):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = {
            saved: p
            for s, g in zip(saved_groups, groups, strict=True)
            for saved, p in zip(s["params"], g["params"], strict=True)
        }
        self.state = {}
        for index, saved_state in state_dict["state"].items():
            if index not in id_map:
                continue
            p = id_map[index]
            self.state[id(p)] = {k: self._import(k, v, p) for k, v in saved_state.items()}
        for g, s in zip(groups, saved_groups, strict=True):
            s["params"] = g["params"]
        self.param_groups = saved_groups

    def _export(self, value: Any) -> Any:
        """A state entry as ``state_dict()`` shows it (PyTorch's tensors)."""
        return _state_value(value)

    def _import(self, key: str, value: Any, p: Tensor) -> Any:
        """A ``state_dict()`` entry back as this optimizer holds it, on ``p``'s dtype/device."""
        data = value._data if isinstance(value, Tensor) else value
        if key in self._scalar_state:
            return self._scalar_state[key](np.asarray(backend.to_numpy(data)).item())
        if hasattr(data, "shape"):
            cast = data.astype(p._data.dtype) if data.dtype.kind == "f" else data.copy()
            return backend.move(cast, p.device)
        return value

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, g in enumerate(self.param_groups):
            if i:
                lines.append("")  # PyTorch separates the groups with a blank line
            lines.append(f"Parameter Group {i}")
            for k in sorted(k for k in g if k != "params"):
                lines.append(f"    {k}: {g[k]}")
        lines.append(")")
        return "\n".join(lines)


def _state_value(value: Any) -> Any:
    """An optimizer state entry as PyTorch holds it: a tensor (Adam's step count is a float32
    0-d tensor)."""
    if isinstance(value, int | float | np.floating):
        return Tensor._wrap(np.asarray(value, dtype=np.float32))
    return Tensor._wrap(value)


#: Above this many elements the single rounding costs more than it is worth (float64
#: temporaries: ~10x the time of the update on a 784x256 weight): a*b + c rounds twice there,
#: still within float32 rounding of PyTorch. Lesson-sized tensors match PyTorch bit for bit.
EXACT_MAX_ELEMENTS = 16384


def _fma(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` rounded once, as PyTorch's CPU kernels compute ``c.add(b, alpha=a)``,
    ``c.addcmul(a, b)`` and ``lerp``: for float32 exactly, via float64 (a product of two
    float32 values fits a double's mantissa); other dtypes round twice."""
    if c.dtype != np.float32 or getattr(c, "size", 1) > EXACT_MAX_ELEMENTS:
        return a * b + c
    return fma32(a, b, c)


def fma32(a: Any, b: Any, c: Any) -> Any:
    """``a * b + c`` for float32 ``c`` rounded once, whatever its size (``_fma``'s exact
    route; the flat step of several parameters at once takes it for each of them)."""
    if not hasattr(a, "astype"):
        a = np.float32(a)  # a Python number becomes the op's dtype first, as in PyTorch
    wide = np.multiply(a, b, dtype=np.float64)  # exact: 24 + 24 bits fit in 53
    wide += c
    return wide.astype(np.float32)


def _lerp_(a: Any, b: Any, weight: float) -> None:
    """``a.lerp_(b, weight)`` with PyTorch's formula: from the nearer end, one rounding."""
    w = a.dtype.type(weight)
    if abs(weight) < 0.5:
        a[...] = _fma(w, b - a, a)
    else:
        a[...] = _fma(w - a.dtype.type(1), b - a, b)


def _zeros(p: Tensor) -> Any:
    return backend.array_module(p._data).zeros_like(p._data)


def _closure_loss(closure: Any) -> Any:
    """The loss a ``closure`` returns, evaluated with gradients enabled (PyTorch's step)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


_LABELS = {"lr": "learning rate", "eps": "epsilon value"}


def _check_args(**args: Any) -> None:
    """PyTorch's checks of an optimizer's arguments, in the order given: each is ``0.0 <=``
    (so ``None`` raises PyTorch's TypeError), ``betas`` each in [0, 1), ``rho`` in [0, 1]."""
    for name, value in args.items():
        if name == "betas":
            for i, beta in enumerate(value):
                if not 0.0 <= beta < 1.0:
                    raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        # 0.0 first, as PyTorch writes it: None must raise its TypeError, "'<=' not supported"
        elif not (0.0 <= value <= 1.0 if name == "rho" else 0.0 <= value):  # noqa: SIM300
            raise ValueError(f"Invalid {_LABELS.get(name, name + ' value')}: {value}")


def _defaults(args: dict[str, Any], order: str, **fixed: Any) -> dict[str, Any]:
    """A constructor's settings as PyTorch's groups hold them, in its order (``order``: the
    names, space-separated; ``fixed``: settings that are not arguments here, or overrides)."""
    merged = {**args, **fixed}
    return {name: merged[name] for name in order.split()}


def _decayed(p: Tensor, grad: Any, group: dict[str, Any], decoupled: bool = False) -> Any:
    """The gradient with the group's weight decay: L2 added to it (``grad.add(param,
    alpha=wd)``), or, ``decoupled`` (AdamW's), the weights shrunk by lr·wd."""
    wd = group["weight_decay"]
    if not wd:
        return grad
    if decoupled:
        p._data *= 1 - group["lr"] * wd
        p._bump()  # PyTorch's param.mul_ counts as its own in-place change
        return grad
    return _fma(wd, p._data, grad)


def _second_moment(avg_sq: Any, grad: Any, beta: float) -> None:
    """``avg_sq.mul_(beta).addcmul_(grad, grad, value=1 - beta)``, PyTorch's roundings."""
    avg_sq *= beta
    avg_sq[...] = _fma(avg_sq.dtype.type(1 - beta) * grad, grad, avg_sq)


class Switches(TypedDict, total=False):
    """PyTorch's keyword-only optimizer arguments, declared once: ``maximize`` (ascend the
    loss) and the implementation switches, which choose among PyTorch's kernels and change
    nothing here (one single-tensor implementation): a group keeps them so that it prints as
    PyTorch's does. An optimizer takes those of its ``_settings`` that are neither its named
    arguments nor its ``_fixed`` (see ParameterRule._options)."""

    maximize: bool
    capturable: bool
    differentiable: bool


class ForeachSwitches(Switches, total=False):
    """The same and ``foreach``, where PyTorch takes that by keyword too (RAdam, NAdam)."""

    foreach: bool | None


_SWITCH_DEFAULTS: dict[str, Any] = {
    "maximize": False,
    "capturable": False,
    "differentiable": False,
    "foreach": None,
}


class ParameterRule(Optimizer):
    """An optimizer whose step visits each parameter that has a gradient: at the parameter's
    first step its state is made (``_init_state``), then its step is counted, the group's
    weight decay applied to the gradient (L2, or AdamW's decoupled form), and the rule itself
    applied (``_step_parameter``). A subclass declares ``_settings``, its groups' settings in
    PyTorch's order (see _defaults), ``_checks``, the arguments PyTorch checks, in its order,
    and ``_fixed``, settings that are not arguments here (PyTorch's implementation switches,
    kept so that a group prints as PyTorch's does); its constructor passes its ``locals()``,
    its keyword-only switches among them as ``options`` (see Switches)."""

    _settings: ClassVar[str]
    _checks: ClassVar[tuple[str, ...]] = ("lr", "eps", "betas", "weight_decay")
    _fixed: ClassVar[dict[str, Any]] = {}

    def __init__(self, params: Iterable[Any], args: dict[str, Any], **overrides: Any) -> None:
        args = {k: v for k, v in args.items() if k != "options"} | self._options(args)
        _check_args(**{k: args[k] for k in self._checks})
        super().__init__(params, _defaults(args, self._settings, **self._fixed, **overrides))

    def _options(self, args: dict[str, Any]) -> dict[str, Any]:
        """The keyword-only settings this optimizer takes, as given or PyTorch's defaults; any
        other keyword is refused with Python's TypeError, as PyTorch's signature refuses it."""
        given = args.get("options", {})
        takes = [k for k in self._settings.split() if k not in args and k not in self._fixed]
        for key in given:
            if key not in takes:
                raise TypeError(
                    f"{type(self).__name__}.__init__() got an unexpected keyword argument '{key}'"
                )
        return {k: given.get(k, _SWITCH_DEFAULTS[k]) for k in takes}

    def _init_state(self, state: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        """The state's buffers, at a parameter's first step (after ``state["step"] = 0``)."""

    def _step_parameter(
        self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]
    ) -> None:
        raise NotImplementedError

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            self._step_group(group)
        return loss

    def _step_group(self, group: dict[str, Any]) -> None:
        """One step of each parameter of ``group`` that has a gradient, in turn."""
        for p, grad, state in self._with_grads(group):
            if not state:
                state["step"] = 0
                self._init_state(state, p, group)
            state["step"] += 1
            grad = _decayed(p, grad, group, group.get("decoupled_weight_decay", False))
            self._step_parameter(p, grad, state, group)


class AdamFamily(ParameterRule):
    """What Adam, AdamW, Adamax, NAdam and RAdam share: a step that moves the first moment
    ``exp_avg`` toward the gradient, then each rule's ``_update``. ``_moments``: the state's
    moment buffers, zeros at the first step."""

    _moments: ClassVar[tuple[str, ...]] = ("exp_avg", "exp_avg_sq")

    def _init_state(self, state: dict[str, Any], p: Tensor, group: dict[str, Any]) -> None:
        for name in self._moments:
            state[name] = _zeros(p)

    def _update(self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]) -> None:
        raise NotImplementedError

    def _step_parameter(
        self, p: Tensor, grad: Any, state: dict[str, Any], group: dict[str, Any]
    ) -> None:
        _lerp_(state["exp_avg"], grad, 1 - group["betas"][0])
        self._update(p, grad, state, group)
        p._bump()


def _grad(p: Tensor, group: dict[str, Any]) -> Any:
    grad = p.grad._data  # type: ignore[union-attr]
    return -grad if group["maximize"] else grad
