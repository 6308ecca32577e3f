"""``torch.optim``: SGD (momentum, dampening, Nesterov, weight decay), Adam, AdamW, RMSprop,
Adagrad, Adadelta, Adamax, NAdam, RAdam and ASGD.

The update rules follow PyTorch's single-tensor implementations step for step, in the
parameters' dtype, with the roundings of PyTorch's AVX2/AVX-512 CPU kernels (``add(alpha=)``,
``addcmul`` and ``lerp`` are fused multiply-adds there). Fed the same gradients, Adam, AdamW,
RMSprop and Adagrad match PyTorch bit for bit where PyTorch's float32 ``sqrt`` (MKL's
``vsSqrt``, within 1 ulp) happens to be correctly rounded, as on MKL's AVX2 path; elsewhere
they differ by the last bits PyTorch itself changes from CPU to CPU: MKL rounds that sqrt
differently on Intel's AVX-512 path and on AMD's, and ATen's baseline kernels
(``ATEN_CPU_CAPABILITY=default``) round those multiply-adds twice. SGD's parameter update rounds
twice on purpose (see SGD.step). tests/tolerances.py bounds the differences.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

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


class SGD(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float = 0,
        nesterov: bool = False,
        maximize: bool = False,
    ) -> None:
        if lr < 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(
            params,
            {
                "lr": lr,
                "momentum": momentum,
                "dampening": dampening,
                "weight_decay": weight_decay,
                "nesterov": nesterov,
                "maximize": maximize,
                # PyTorch's implementation switches, kept so the group prints as PyTorch's does
                "foreach": None,
                "differentiable": False,
                "fused": None,
            },
        )

    def step(self) -> None:
        for group in self.param_groups:
            lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov = group["weight_decay"], group["nesterov"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                d_p = p.grad._data
                if group["maximize"]:
                    d_p = -d_p
                if wd:
                    d_p = _fma(wd, p._data, d_p)  # grad.add(param, alpha=weight_decay)
                if mom:
                    state = self._state(p)
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = d_p.copy()
                    else:
                        buf *= mom
                        buf[...] = _fma(1 - damp, d_p, buf)
                    state["momentum_buffer"] = buf
                    d_p = _fma(mom, buf, d_p) if nesterov else buf
                # In place, rounding lr·d_p then the difference (PyTorch fuses the two: results
                # can differ in the last bit). The single-rounding form (_fma) costs ~3x here,
                # on the update every SGD lesson runs.
                p._data -= lr * d_p
                p._bump()


class Adam(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        maximize: bool = False,
        *,
        decoupled_weight_decay: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        for i, beta in enumerate(betas):
            if not 0.0 <= beta < 1.0:
                raise ValueError(f"Invalid beta parameter at index {i}: {beta}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": tuple(betas),
                "eps": eps,
                "weight_decay": weight_decay,
                "amsgrad": amsgrad,
                "maximize": maximize,
                "foreach": None,
                "capturable": False,
                "differentiable": False,
                "fused": None,
                "decoupled_weight_decay": decoupled_weight_decay,
            },
        )

    def step(self) -> None:
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, amsgrad = group["weight_decay"], group["amsgrad"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad._data
                if group["maximize"]:
                    grad = -grad
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = _zeros(p)
                    state["exp_avg_sq"] = _zeros(p)
                    if amsgrad:
                        state["max_exp_avg_sq"] = _zeros(p)
                state["step"] += 1
                step = state["step"]
                if wd:
                    if group["decoupled_weight_decay"]:  # AdamW: decay the weights themselves
                        p._data *= 1 - lr * wd
                        p._bump()  # PyTorch's param.mul_ counts as its own in-place change
                    else:
                        grad = _fma(wd, p._data, grad)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq[...] = _fma(exp_avg_sq.dtype.type(1 - beta2) * grad, grad, exp_avg_sq)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2**0.5
                xp = backend.array_module(exp_avg_sq)
                if amsgrad:
                    max_sq = state["max_exp_avg_sq"]
                    xp.maximum(max_sq, exp_avg_sq, out=max_sq)
                    denom = xp.sqrt(max_sq) / bias_correction2_sqrt + eps
                else:
                    denom = xp.sqrt(exp_avg_sq) / bias_correction2_sqrt + eps
                p._data += (-step_size * exp_avg) / denom  # addcdiv_(value=-step_size)
                p._bump()


class AdamW(Adam):
    """Adam with decoupled weight decay: the weights shrink by ``lr * weight_decay`` each step,
    outside the moment estimates."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        super().__init__(
            params, lr, betas, eps, weight_decay, amsgrad, maximize, decoupled_weight_decay=True
        )


class RMSprop(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        *,
        maximize: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not momentum >= 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not alpha >= 0.0:
            raise ValueError(f"Invalid alpha value: {alpha}")
        super().__init__(
            params,
            {
                "lr": lr,
                "momentum": momentum,
                "alpha": alpha,
                "eps": eps,
                "centered": centered,
                "weight_decay": weight_decay,
                "capturable": False,
                "foreach": None,
                "maximize": maximize,
                "differentiable": False,
            },
        )

    def step(self) -> None:
        for group in self.param_groups:
            lr, alpha, eps = group["lr"], group["alpha"], group["eps"]
            wd, mom, centered = group["weight_decay"], group["momentum"], group["centered"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad._data
                if group["maximize"]:
                    grad = -grad
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["square_avg"] = _zeros(p)
                    if mom > 0:
                        state["momentum_buffer"] = _zeros(p)
                    if centered:
                        state["grad_avg"] = _zeros(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                square_avg = state["square_avg"]
                square_avg *= alpha
                square_avg[...] = _fma(square_avg.dtype.type(1 - alpha) * grad, grad, square_avg)
                xp = backend.array_module(square_avg)
                if centered:
                    grad_avg = state["grad_avg"]
                    _lerp_(grad_avg, grad, 1 - alpha)
                    avg = xp.sqrt(_fma(-grad_avg, grad_avg, square_avg)) + eps
                else:
                    avg = xp.sqrt(square_avg) + eps
                if mom > 0:
                    buf = state["momentum_buffer"]
                    buf *= mom
                    buf += grad / avg  # addcdiv_(grad, avg)
                    p._data[...] = _fma(-lr, buf, p._data)
                else:
                    p._data += (-lr * grad) / avg  # addcdiv_(value=-lr)
                p._bump()


class Adagrad(Optimizer):
    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        *,
        maximize: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not lr_decay >= 0.0:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not weight_decay >= 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not initial_accumulator_value >= 0.0:
            raise ValueError(
                f"Invalid initial_accumulator_value value: {initial_accumulator_value}"
            )
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        super().__init__(
            params,
            {
                "lr": lr,
                "lr_decay": lr_decay,
                "eps": eps,
                "weight_decay": weight_decay,
                "initial_accumulator_value": initial_accumulator_value,
                "foreach": None,
                "maximize": maximize,
                "differentiable": False,
                "fused": None,
            },
        )
        # PyTorch fills every parameter's state at construction, from the constructor's value
        # (a group's own initial_accumulator_value is not used)
        for group in self.param_groups:
            for p in group["params"]:
                state = self._state(p)
                state["step"] = 0
                xp = backend.array_module(p._data)
                state["sum"] = xp.full_like(p._data, initial_accumulator_value)

    def step(self) -> None:
        for group in self.param_groups:
            lr, lr_decay, eps, wd = (
                group["lr"],
                group["lr_decay"],
                group["eps"],
                group["weight_decay"],
            )
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = p.grad._data
                if group["maximize"]:
                    grad = -grad
                state = self._state(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                clr = lr / (1 + (state["step"] - 1) * lr_decay)
                state_sum = state["sum"]
                state_sum[...] = _fma(grad, grad, state_sum)
                std = backend.array_module(state_sum).sqrt(state_sum) + eps
                p._data += (-clr * grad) / std  # addcdiv_(value=-clr)
                p._bump()


# ---- Adadelta, Adamax, NAdam, RAdam, ASGD (issue 18) ------------------------------------------
# PyTorch's single-tensor implementations (foreach=None is the single-tensor path on the CPU),
# step for step in the parameters' dtype, with the same roundings as the optimizers above:
# ``add(alpha=)``, ``addcmul`` and ``lerp`` rounded once (_fma, _lerp_), ``addcdiv`` as
# (value·t1)/t2 then the sum, Python numbers cast to the dtype before they meet an array, and a
# number divided by a tensor as PyTorch's ``__rtruediv__`` does it (reciprocal, then product).


def _closure_loss(closure: Any) -> Any:
    """The loss a ``closure`` returns, evaluated with gradients enabled (PyTorch's step)."""
    if closure is None:
        return None
    with enable_grad():
        return closure()


def _check_betas(betas: Any) -> None:
    for i, beta in enumerate(betas):
        if not 0.0 <= beta < 1.0:
            raise ValueError(f"Invalid beta parameter at index {i}: {beta}")


def _check_lr_eps_wd(lr: float, eps: float | None, weight_decay: float) -> None:
    if not lr >= 0.0:
        raise ValueError(f"Invalid learning rate: {lr}")
    if eps is not None and not eps >= 0.0:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not weight_decay >= 0.0:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _grad(p: Tensor, group: dict[str, Any]) -> Any:
    grad = p.grad._data  # type: ignore[union-attr]
    return -grad if group["maximize"] else grad


class Adadelta(Optimizer):
    """Adadelta (Zeiler 2012): steps scaled by the ratio of running RMS of updates and of
    gradients."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_lr_eps_wd(lr, eps, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "rho": rho,
                "eps": eps,
                "weight_decay": weight_decay,
                "maximize": maximize,
                "capturable": capturable,
                "foreach": foreach,
                "differentiable": differentiable,
            },
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps, wd = group["lr"], group["rho"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = _grad(p, group)
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["square_avg"] = _zeros(p)
                    state["acc_delta"] = _zeros(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                square_avg, acc_delta = state["square_avg"], state["acc_delta"]
                one_minus_rho = square_avg.dtype.type(1 - rho)
                square_avg *= rho
                square_avg[...] = _fma(one_minus_rho * grad, grad, square_avg)
                xp = backend.array_module(square_avg)
                std = xp.sqrt(square_avg + eps)
                delta = xp.sqrt(acc_delta + eps)
                delta /= std
                delta *= grad
                acc_delta *= rho
                acc_delta[...] = _fma(one_minus_rho * delta, delta, acc_delta)
                p._data[...] = _fma(-lr, delta, p._data)  # add_(delta, alpha=-lr)
                p._bump()
        return loss


class Adamax(Optimizer):
    """Adam with the infinity norm: steps divided by a running maximum of |gradient|."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check_lr_eps_wd(lr, eps, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = _grad(p, group)
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = _zeros(p)
                    state["exp_inf"] = _zeros(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
                _lerp_(exp_avg, grad, 1 - beta1)
                xp = backend.array_module(exp_inf)
                exp_inf *= beta2
                xp.maximum(exp_inf, xp.abs(grad) + eps, out=exp_inf)
                clr = lr / (1 - beta1 ** state["step"])
                p._data += (-clr * exp_avg) / exp_inf  # addcdiv_(exp_avg, exp_inf, value=-clr)
                p._bump()
        return loss


class NAdam(Optimizer):
    """Adam with Nesterov momentum (Dozat 2016), with its momentum schedule μ_t."""

    _scalar_state: ClassVar[dict[str, Any]] = {"step": int, "mu_product": np.float32}

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check_lr_eps_wd(lr, eps, weight_decay)
        if not momentum_decay >= 0.0:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "momentum_decay": momentum_decay,
                "decoupled_weight_decay": decoupled_weight_decay,
                "maximize": maximize,
                "foreach": foreach,
                "capturable": capturable,
                "differentiable": differentiable,
            },
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd, psi = group["weight_decay"], group["momentum_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = _grad(p, group)
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["mu_product"] = np.float32(1.0)  # a float32 0-d tensor in PyTorch
                    state["exp_avg"] = _zeros(p)
                    state["exp_avg_sq"] = _zeros(p)
                state["step"] += 1
                step = float(state["step"])
                bias_correction2 = 1 - beta2**step
                if wd:
                    if group["decoupled_weight_decay"]:
                        p._data *= 1 - lr * wd
                        p._bump()
                    else:
                        grad = _fma(wd, p._data, grad)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
                mu_product = np.float32(state["mu_product"] * np.float32(mu))
                state["mu_product"] = mu_product
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq[...] = _fma(exp_avg_sq.dtype.type(1 - beta2) * grad, grad, exp_avg_sq)
                xp = backend.array_module(exp_avg_sq)
                denom = xp.sqrt(exp_avg_sq / bias_correction2)
                denom += eps
                mu_product_next = float(mu_product) * mu_next
                p._data += ((-lr * (1.0 - mu) / (1.0 - float(mu_product))) * grad) / denom
                p._bump()
                p._data += (((-lr * mu_next) / (1.0 - mu_product_next)) * exp_avg) / denom
                p._bump()
        return loss


class RAdam(Optimizer):
    """Adam with the variance of its adaptive rate rectified (Liu et al. 2019): plain momentum
    steps until the approximated SMA length exceeds 5."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not eps >= 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        _check_lr_eps_wd(lr, eps, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "betas": betas,
                "eps": eps,
                "weight_decay": weight_decay,
                "maximize": maximize,
                "foreach": foreach,
                "capturable": capturable,
                "decoupled_weight_decay": decoupled_weight_decay,
                "differentiable": differentiable,
            },
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, (beta1, beta2), eps = group["lr"], group["betas"], group["eps"]
            wd = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = _grad(p, group)
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["exp_avg"] = _zeros(p)
                    state["exp_avg_sq"] = _zeros(p)
                state["step"] += 1
                step = float(state["step"])
                if wd:
                    if group["decoupled_weight_decay"]:
                        p._data *= 1 - lr * wd
                        p._bump()
                    else:
                        grad = _fma(wd, p._data, grad)
                exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
                _lerp_(exp_avg, grad, 1 - beta1)
                exp_avg_sq *= beta2
                exp_avg_sq[...] = _fma(exp_avg_sq.dtype.type(1 - beta2) * grad, grad, exp_avg_sq)
                bias_correction1 = 1 - beta1**step
                bias_correction2 = 1 - beta2**step
                corrected = exp_avg / bias_correction1
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
                if rho_t > 5.0:
                    xp = backend.array_module(exp_avg_sq)
                    root = xp.sqrt(exp_avg_sq)
                    root += eps
                    # bias_correction2**0.5 / root is Tensor.__rtruediv__: reciprocal, product
                    adaptive = xp.reciprocal(root) * (bias_correction2**0.5)
                    rect = (
                        (rho_t - 4)
                        * (rho_t - 2)
                        * rho_inf
                        / ((rho_inf - 4) * (rho_inf - 2) * rho_t)
                    ) ** 0.5
                    p._data -= corrected * lr * adaptive * rect  # add_(..., alpha=-1.0)
                else:
                    p._data -= corrected * lr
                p._bump()
        return loss


class ASGD(Optimizer):
    """Averaged SGD (Polyak and Juditsky 1992): SGD with a decaying rate η, and a running average
    of the iterates (``state['ax']``) from step ``t0`` on."""

    _scalar_state: ClassVar[dict[str, Any]] = {"step": int, "eta": np.float32, "mu": np.float32}

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        _check_lr_eps_wd(lr, None, weight_decay)
        super().__init__(
            params,
            {
                "lr": lr,
                "lambd": lambd,
                "alpha": alpha,
                "t0": t0,
                "weight_decay": weight_decay,
                "foreach": foreach,
                "maximize": maximize,
                "differentiable": differentiable,
                "capturable": capturable,
            },
        )

    def step(self, closure: Any = None) -> Any:
        loss = _closure_loss(closure)
        for group in self.param_groups:
            lr, lambd, alpha, t0 = group["lr"], group["lambd"], group["alpha"], group["t0"]
            wd = group["weight_decay"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                grad = _grad(p, group)
                state = self._state(p)
                if not state:
                    state["step"] = 0
                    state["eta"] = np.float32(lr)  # float32 0-d tensors in PyTorch
                    state["mu"] = np.float32(1.0)
                    state["ax"] = _zeros(p)
                state["step"] += 1
                if wd:
                    grad = _fma(wd, p._data, grad)
                eta = float(state["eta"])
                p._data *= 1 - lambd * eta  # the decay term
                p._bump()
                p._data[...] = _fma(-eta, grad, p._data)  # add_(grad, alpha=-eta)
                p._bump()
                ax = state["ax"]
                if float(state["mu"]) != 1:
                    ax += (p._data - ax) * state["mu"]
                else:
                    ax[...] = p._data
                step = float(state["step"])
                state["eta"] = np.float32(lr / ((1 + lambd * lr * step) ** alpha))
                state["mu"] = np.float32(1 / max(1, step - t0))
        return loss


# ---- L-BFGS ------------------------------------------------------------------------------------
# PyTorch's LBFGS (a port of minFunc), on one flat vector of all the parameters. Its scalars are
# 0-d tensors of the parameters' dtype in PyTorch (dot products, ys, ρ, H_diag, α, β, the first
# step t) mixed with Python floats (the losses, lr): here NumPy scalars of that dtype, whose
# arithmetic with Python floats follows the same rule (NEP 50: the Python number takes the
# array's dtype), so every comparison and update sees the numbers PyTorch's does.


def _cubic_interpolate(
    x1: Any, f1: Any, g1: Any, x2: Any, f2: Any, g2: Any, bounds: Any = None
) -> Any:
    """The minimizer of the cubic through two points with their slopes, within bounds."""
    if bounds is not None:
        xmin_bound, xmax_bound = bounds
    else:
        xmin_bound, xmax_bound = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if d2_square >= 0:
        d2 = np.sqrt(d2_square)
        if x1 <= x2:
            min_pos = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
        else:
            min_pos = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
        return min(max(min_pos, xmin_bound), xmax_bound)
    return (xmin_bound + xmax_bound) / 2.0


def _strong_wolfe(
    obj_func: Any,
    x: Any,
    t: Any,
    d: Any,
    f: float,
    g: Any,
    gtd: Any,
    c1: float = 1e-4,
    c2: float = 0.9,
    tolerance_change: float = 1e-9,
    max_ls: int = 25,
) -> tuple[float, Any, Any, int]:
    """PyTorch's line search for a step satisfying the strong Wolfe conditions."""
    xp = backend.array_module(d)
    d_norm = xp.abs(d).max()
    g = g.copy()
    f_new, g_new = obj_func(x, t, d)
    ls_func_evals = 1
    gtd_new = g_new.dot(d)
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    bracket: list[Any] = []
    bracket_f: list[Any] = []
    bracket_g: list[Any] = []
    bracket_gtd: list[Any] = []
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g, bracket_gtd = [g_prev, g_new.copy()], [gtd_prev, gtd_new]
            break
        min_step = t + 0.01 * (t - t_prev)
        max_step = t * 10
        tmp = t
        t = _cubic_interpolate(
            t_prev, f_prev, gtd_prev, t, f_new, gtd_new, bounds=(min_step, max_step)
        )
        t_prev, f_prev, g_prev, gtd_prev = tmp, f_new, g_new.copy(), gtd_new
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]
    insuf_progress = False
    low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(
            bracket[0], bracket_f[0], bracket_gtd[0], bracket[1], bracket_f[1], bracket_gtd[1]
        )
        eps = 0.1 * (max(bracket) - min(bracket))
        if min(max(bracket) - t, t - min(bracket)) < eps:
            if insuf_progress or t >= max(bracket) or t <= min(bracket):
                if abs(t - max(bracket)) < abs(t - min(bracket)):
                    t = max(bracket) - eps
                else:
                    t = min(bracket) + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        ls_func_evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low_pos]:
            bracket[high_pos], bracket_f[high_pos] = t, f_new
            bracket_g[high_pos], bracket_gtd[high_pos] = g_new.copy(), gtd_new
            low_pos, high_pos = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high_pos] - bracket[low_pos]) >= 0:
                bracket[high_pos] = bracket[low_pos]
                bracket_f[high_pos] = bracket_f[low_pos]
                bracket_g[high_pos] = bracket_g[low_pos]
                bracket_gtd[high_pos] = bracket_gtd[low_pos]
            bracket[low_pos], bracket_f[low_pos] = t, f_new
            bracket_g[low_pos], bracket_gtd[low_pos] = g_new.copy(), gtd_new
    t = bracket[low_pos]
    return bracket_f[low_pos], bracket_g[low_pos], t, ls_func_evals


class LBFGS(Optimizer):
    """Limited-memory BFGS (PyTorch's, after minFunc): ``step(closure)`` runs up to
    ``max_iter`` quasi-Newton iterations, re-evaluating the closure, optionally with a strong
    Wolfe line search. One parameter group only."""

    def __init__(
        self,
        params: Iterable[Any],
        lr: float = 1,
        max_iter: int = 20,
        max_eval: int | None = None,
        tolerance_grad: float = 1e-7,
        tolerance_change: float = 1e-9,
        history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:
        if not lr >= 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        super().__init__(
            params,
            {
                "lr": lr,
                "max_iter": max_iter,
                "max_eval": max_eval,
                "tolerance_grad": tolerance_grad,
                "tolerance_change": tolerance_change,
                "history_size": history_size,
                "line_search_fn": line_search_fn,
            },
        )
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params: list[Tensor] = self.param_groups[0]["params"]

    # state_dict: PyTorch keeps LBFGS's counters and losses as Python numbers, the rest as
    # tensors (lists of them for the history)
    def _export(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._export(v) for v in value]
        if value is None or isinstance(value, int | float):
            return value
        return Tensor._wrap(np.asarray(value) if isinstance(value, np.generic) else value)

    def _import(self, key: str, value: Any, p: Tensor) -> Any:
        if isinstance(value, list):
            return [self._import(key, v, p) for v in value]
        if isinstance(value, Tensor):
            data = value._data
            return data[()] if data.ndim == 0 else backend.move(data.copy(), p.device)
        return value

    def _gather_flat_grad(self) -> Any:
        xp = backend.array_module(self._params[0]._data)
        views = [
            xp.zeros(p._data.size, dtype=p._data.dtype) if p.grad is None else p.grad._data.ravel()
            for p in self._params
        ]
        return xp.concatenate(views, 0)

    def _add_grad(self, step_size: Any, update: Any) -> None:
        offset = 0
        for p in self._params:
            n = p._data.size
            view = update[offset : offset + n].reshape(p._data.shape)
            p._data[...] = _fma(p._data.dtype.type(step_size), view, p._data)  # add_(alpha=t)
            p._bump()
            offset += n

    def _clone_param(self) -> list[Any]:
        return [p._data.copy() for p in self._params]

    def _set_param(self, params_data: list[Any]) -> None:
        for p, data in zip(self._params, params_data, strict=True):
            p._data[...] = data
            p._bump()

    def _directional_evaluate(self, closure: Any, x: Any, t: Any, d: Any) -> tuple[float, Any]:
        self._add_grad(t, d)
        loss = float(_closure_loss(closure))
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    def step(self, closure: Any) -> Any:
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]
        state = self._state(self._params[0])
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)
        orig_loss = _closure_loss(closure)
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        xp = backend.array_module(flat_grad)
        if xp.abs(flat_grad).max() <= tolerance_grad:
            return orig_loss
        d: Any = state.get("d")
        t: Any = state.get("t")
        old_dirs: Any = state.get("old_dirs")
        old_stps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        H_diag: Any = state.get("H_diag")
        prev_flat_grad: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d = -flat_grad
                old_dirs, old_stps, ro = [], [], []
                H_diag = 1
            else:
                y = flat_grad - prev_flat_grad
                s = d * t
                ys = y.dot(s)
                if ys > 1e-10:
                    if len(old_dirs) == history_size:
                        old_dirs.pop(0)
                        old_stps.pop(0)
                        ro.pop(0)
                    old_dirs.append(y)
                    old_stps.append(s)
                    ro.append(ys.dtype.type(1) / ys)  # 1.0 / ys: a reciprocal, times 1
                    H_diag = ys / y.dot(y)
                num_old = len(old_dirs)
                if "al" not in state:
                    state["al"] = [None] * history_size
                al = state["al"]
                q = -flat_grad
                for i in range(num_old - 1, -1, -1):
                    al[i] = old_stps[i].dot(q) * ro[i]
                    q = _fma(-al[i], old_dirs[i], q)  # q.add_(old_dirs[i], alpha=-al[i])
                d = r = q * H_diag
                for i in range(num_old):
                    be_i = old_dirs[i].dot(r) * ro[i]
                    r[...] = _fma(al[i] - be_i, old_stps[i], r)  # r.add_(alpha=al[i] - be_i)
            prev_flat_grad = flat_grad.copy()
            prev_loss = loss
            if state["n_iter"] == 1:
                # 1.0 / tensor is a reciprocal (times 1.0); min compares it with 1.0
                t = min(1.0, xp.reciprocal(xp.abs(flat_grad).sum())) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:
                break
            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x: Any, t: Any, d: Any) -> tuple[float, Any]:
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd, max_ls=max_eval - current_evals
                )
                self._add_grad(t, d)
                opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                opt_cond = False
                if n_iter != max_iter:
                    loss = float(_closure_loss(closure))
                    flat_grad = self._gather_flat_grad()
                    opt_cond = xp.abs(flat_grad).max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals
            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if xp.abs(d * t).max() <= tolerance_change:
                break
            if abs(loss - prev_loss) < tolerance_change:
                break
        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = old_dirs, old_stps, ro
        state["H_diag"], state["prev_flat_grad"], state["prev_loss"] = (
            H_diag,
            prev_flat_grad,
            prev_loss,
        )
        return orig_loss


__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
]
