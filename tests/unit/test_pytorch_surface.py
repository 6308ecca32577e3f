"""The PyTorch surface public tutorials use (issue 18), each against PyTorch 2.13: learning-rate
schedules, gradient clipping, print options, anomaly mode, Variable, convolution and pooling
modules, recurrent layers, distributions, the function library, out=, indexed assignment in a
graph, legacy loss arguments, nn.Parameter's type.

Tolerances (tests/tolerances.py): schedules are the same float64 formulas in the same order
(exact); module outputs and gradients are float32 sums of at most a few hundred products, each
side in its own order (``SUMS`` roundings at the values' scale)."""

from __future__ import annotations

import contextlib
import io
import math
import warnings
from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import close, tol

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

#: a float32 sum of up to 256 products on each side (conv windows, LSTM gates), and the
#: activations after it: 2 * 256 roundings, at the scale of the largest value
SUMS = 512


def both(fn: Any) -> tuple[Any, Any]:
    return fn(engine), fn(torch)


def arrays(x: Any) -> Any:
    if isinstance(x, list | tuple):
        return [arrays(v) for v in x]
    return x.detach().numpy() if hasattr(x, "detach") else x


def assert_close_arrays(a: Any, b: Any, roundings: float = SUMS) -> None:
    for x, y in zip(arrays(a), arrays(b), strict=True):
        if isinstance(x, list):
            assert_close_arrays(x, y, roundings)
            continue
        x, y = np.asarray(x), np.asarray(y)
        assert x.shape == y.shape
        scale = float(np.abs(y).max()) if y.size else 0.0
        np.testing.assert_allclose(x, y, **close(roundings, scale=scale))


def printed(fn: Any, lib: Any) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn(lib)
    return buffer.getvalue()


# ---- optimisation helpers ---------------------------------------------------------------------

SCHEDULES = {
    "step": lambda S, o: S.StepLR(o, step_size=3, gamma=0.5),
    "multistep": lambda S, o: S.MultiStepLR(o, milestones=[2, 5, 5, 9], gamma=0.3),
    "exponential": lambda S, o: S.ExponentialLR(o, gamma=0.9),
    "cosine": lambda S, o: S.CosineAnnealingLR(o, T_max=4, eta_min=0.001),
    "lambda": lambda S, o: S.LambdaLR(o, lr_lambda=lambda e: 1 / (1 + e)),
    "linear": lambda S, o: S.LinearLR(o, start_factor=0.25, total_iters=4),
    "constant": lambda S, o: S.ConstantLR(o, factor=0.5, total_iters=3),
    "multiplicative": lambda S, o: S.MultiplicativeLR(o, lr_lambda=lambda e: 0.95),
}


@pytest.mark.parametrize("kind", sorted(SCHEDULES))
def test_learning_rate_schedules_set_pytorchs_rates(kind: str) -> None:
    def run(T: Any) -> list[float]:
        w = T.zeros(2, requires_grad=True)
        opt = T.optim.SGD([w, T.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        sched = SCHEDULES[kind](T.optim.lr_scheduler, opt)
        rates = []
        for _ in range(12):
            opt.step()
            sched.step()
            rates.extend(sched.get_last_lr())
        return rates

    ours, theirs = both(run)
    assert ours == theirs  # the same float64 formulas in the same order


def test_reduce_on_plateau_and_the_order_warning() -> None:
    def run(T: Any) -> tuple[list[float], list[str]]:
        w = T.zeros(1, requires_grad=True)
        opt = T.optim.SGD([w], lr=1.0)
        sched = T.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=2, cooldown=1)
        rates = []
        for loss in [5, 4, 4, 4, 4, 3, 3, 3, 3, 3, 2.99999, 3]:
            sched.step(loss)
            rates.append(opt.param_groups[0]["lr"])
        opt2 = T.optim.SGD([T.zeros(1, requires_grad=True)], lr=0.1)
        s2 = T.optim.lr_scheduler.StepLR(opt2, 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            s2.step()  # before any optimizer.step()
        return rates, [str(c.message)[:60] for c in caught]

    assert both(run)[0] == both(run)[1]


def test_clip_grad_norm_and_value() -> None:
    def run(T: Any) -> list[Any]:
        a = T.tensor([3.0, -4.0], requires_grad=True)
        b = T.tensor([[1.0, 2.0], [0.5, -7.0]], requires_grad=True)
        (a.sum() * 2 + (b * b).sum()).backward()
        total = T.nn.utils.clip_grad_norm_([a, b], max_norm=1.5)
        c = T.tensor([0.3, -9.0, 2.0], requires_grad=True)
        (c * T.tensor([5.0, 1.0, -3.0])).sum().backward()
        T.nn.utils.clip_grad_value_(c, 2.5)
        inf_norm = T.nn.utils.clip_grad_norm_([c], 1.0, norm_type=float("inf"))
        return [total, a.grad, b.grad, c.grad, inf_norm]

    ours, theirs = both(run)
    assert_close_arrays(ours, theirs, roundings=8)  # a norm and one scaling


# ---- printing, anomaly mode, Variable, Parameter ------------------------------------------------


def test_print_options_change_what_tensors_print() -> None:
    def run(T: Any) -> None:
        x = T.tensor([1.23456789, 2.5, -0.001])
        for options in (
            {"precision": 2},
            {"precision": 6},
            {"sci_mode": True},
            {"sci_mode": False, "precision": 3},
            {"threshold": 5, "edgeitems": 2},
            {"linewidth": 30},
            {"profile": "short"},
            {"profile": "full"},
        ):
            T.set_printoptions(**options)
            print(x, T.arange(12.0) / 7)
        T.set_printoptions(profile="default")
        print(x)

    assert printed(run, engine) == printed(run, torch)


def test_anomaly_mode_names_the_node_that_made_a_nan() -> None:
    def run(T: Any) -> Any:
        x = T.tensor([-1.0, 4.0], requires_grad=True)
        y = T.sqrt(x * 0)  # sqrt(0)'s gradient is inf; times 0 makes NaN below
        with T.autograd.set_detect_anomaly(True), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # "Error detected in SqrtBackward0 ..."
            try:
                (y * 0).sum().backward()
            except RuntimeError as exc:
                return str(exc)
        return T.is_anomaly_enabled()

    ours, theirs = both(run)
    assert ours == theirs and "returned nan values" in ours
    assert not engine.is_anomaly_enabled()


def test_variable_and_parameter_types() -> None:
    def run(T: Any) -> list[Any]:
        v = T.autograd.Variable(T.ones(2), requires_grad=True)
        p = T.nn.Parameter(T.randn(2))
        layer = T.nn.Linear(2, 1)
        y = layer(v) * p.sum()
        y.sum().backward()
        return [
            type(v).__name__, v.requires_grad, isinstance(v, T.autograd.Variable),
            type(p).__name__, type(layer.weight).__name__, type(p * 2).__name__,
            type(p.grad).__name__, type(p.detach()).__name__, repr(p)[:20],
            type(y.grad_fn).__name__,
            [type(f).__name__ for f, _ in layer(T.ones(3, 2)).grad_fn.next_functions],
        ]  # fmt: skip

    ours, theirs = both(run)
    assert ours == theirs


# ---- layers -------------------------------------------------------------------------------------


def _layer_case(T: Any, build: Any, shape: tuple[int, ...]) -> list[Any]:
    T.manual_seed(0)
    layer = build(T)
    x = T.randn(*shape, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (padding='same' with an even kernel warns, on both)
        out = layer(x)
    main = out[0] if isinstance(out, tuple) else out
    (main * main).sum().backward()
    grads = [p.grad for p in layer.parameters()]
    return [main, x.grad, *grads]


LAYERS = {
    "conv2d": (lambda T: T.nn.Conv2d(3, 4, 3, stride=2, padding=1), (2, 3, 7, 6)),
    "conv2d-groups": (lambda T: T.nn.Conv2d(4, 6, (3, 2), groups=2, dilation=(1, 2)), (1, 4, 6, 7)),
    "conv1d": (lambda T: T.nn.Conv1d(2, 3, 4, padding="same", bias=False), (2, 2, 9)),
    "lenet": (
        lambda T: T.nn.Sequential(
            T.nn.Conv2d(1, 6, 5),
            T.nn.ReLU(),
            T.nn.MaxPool2d(2, 2),
            T.nn.Conv2d(6, 16, 5),
            T.nn.ReLU(),
            T.nn.MaxPool2d(2),
            T.nn.Flatten(),
            T.nn.Linear(16 * 5 * 5, 10),
        ),
        (2, 1, 32, 32),
    ),
    "avgpool": (lambda T: T.nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True), (2, 3, 7, 7)),
    "adaptive": (lambda T: T.nn.AdaptiveAvgPool2d((1, 1)), (2, 3, 5, 5)),
    "rnn": (lambda T: T.nn.RNN(3, 5, num_layers=2), (4, 2, 3)),
    "lstm": (lambda T: T.nn.LSTM(3, 4, batch_first=True), (2, 6, 3)),
    "lstm-bi": (lambda T: T.nn.LSTM(3, 4, bidirectional=True, num_layers=2), (5, 2, 3)),
    "gru": (lambda T: T.nn.GRU(3, 4), (5, 3)),
    "lstmcell": (lambda T: T.nn.LSTMCell(3, 4), (2, 3)),
    "grucell": (lambda T: T.nn.GRUCell(3, 4), (2, 3)),
    "rnncell": (lambda T: T.nn.RNNCell(3, 4, nonlinearity="relu"), (2, 3)),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_layers_initialise_compute_and_differentiate_as_pytorch(name: str) -> None:
    build, shape = LAYERS[name]
    ours, theirs = both(lambda T: _layer_case(T, build, shape))
    assert_close_arrays(ours, theirs)
    assert both(lambda T: repr(build(T))) == both(lambda T: repr(build(T)))[::-1][::-1]
    assert repr(build(engine)) == repr(build(torch))
    assert [n for n, _ in build(engine).named_parameters()] == [
        n for n, _ in build(torch).named_parameters()
    ]


# ---- distributions --------------------------------------------------------------------------------


def test_distributions_sample_pytorchs_streams() -> None:
    def run(T: Any) -> list[Any]:
        D = T.distributions
        T.manual_seed(3)
        fair = T.ones(6) / 6
        out = [
            D.multinomial.Multinomial(1, fair).sample(),
            D.multinomial.Multinomial(10, fair).sample((3,)),
            D.Categorical(T.tensor([0.1, 0.6, 0.3])).sample((5,)),
            D.Normal(T.zeros(3), T.ones(3) * 2).sample(),
            D.Normal(0.5, 2.0).rsample((2,)),
            D.Bernoulli(T.tensor([0.2, 0.9])).sample((4,)),
            D.Uniform(-1.0, 3.0).sample((3,)),
            D.Normal(T.tensor([0.0, 1.0]), T.tensor([1.0, 0.5])).log_prob(T.tensor([0.3, 0.2])),
            D.Categorical(logits=T.tensor([0.0, 1.0, 2.0])).log_prob(T.tensor([2, 0])),
            D.Categorical(T.tensor([0.2, 0.8])).entropy(),
            # probs_to_logits: clamped to [eps, 1 - eps], log-odds for the binary one
            D.Bernoulli(T.tensor([0.0, 0.3, 1.0])).logits,
            D.Categorical(T.tensor([0.0, 2.0, 1.0])).logits,
            D.Bernoulli(logits=T.tensor([-1.0, 2.0])).probs,
        ]
        return out

    ours, theirs = both(run)
    assert_close_arrays(ours, theirs, roundings=20)  # log, sqrt and a few products
    assert repr(engine.distributions.Normal(0.0, 1.0)) == repr(torch.distributions.Normal(0.0, 1.0))


# ---- functions, out=, indexing ------------------------------------------------------------------


FUNCTIONS = {
    "meshgrid": lambda T, a: T.meshgrid(T.arange(3.0), T.arange(2.0), indexing="xy"),
    "diagonal": lambda T, a: (a.diagonal(), T.diagonal(a, 1), a.trace()),
    "masked_select": lambda T, a: a.masked_select(a > 0),
    "roll": lambda T, a: (a.roll(1, 1), a.roll(-2)),
    "flip": lambda T, a: (a.flip(0), T.flip(a, [0, 1])),
    "tile": lambda T, a: (a.tile((2, 1)), a.repeat(1, 2), a.repeat_interleave(2, dim=1)),
    "lerp": lambda T, a: (T.lerp(a, a * 2, 0.25), T.lerp(a, a.exp(), 0.75)),
    "addmm": lambda T, a: T.addmm(T.ones(3, 3), a, a.T, beta=0.5, alpha=2),
    "atan2": lambda T, a: (T.atan2(a, a.flip(0) + 0.3), T.hypot(a, a * 2)),
    "logaddexp": lambda T, a: T.logaddexp(a, a * 3),
    "median": lambda T, a: (a.median(), a.median(1).values),
    "cdist": lambda T, a: T.cdist(a, a * 0.5 + 1),
    "unfold": lambda T, a: a.unfold(1, 2, 1),
    "kron": lambda T, a: T.kron(a[:2, :2], T.eye(2)),
    "cross": lambda T, a: T.cross(a[:, :3], a[:, 1:], dim=1),
    "tensordot": lambda T, a: T.tensordot(a, a, dims=([1], [1])),
    "linalg": lambda T, a: (T.linalg.norm(a), T.linalg.inv(a[:, :3] + 3 * T.eye(3))),
    "std_mean": lambda T, a: T.std_mean(a, 1),
    "nan_to_num": lambda T, a: T.nan_to_num(a / (a - a)),
    "scatter": lambda T, a: a.scatter_add(1, T.tensor([[0, 1], [2, 2], [3, 0]]), a[:, :2]),
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_library_functions_match_pytorch_values_gradients_and_nodes(name: str) -> None:
    def run(T: Any) -> list[Any]:
        T.manual_seed(1)
        a = T.randn(3, 4, requires_grad=True)
        out = FUNCTIONS[name](T, a)
        outs = list(out) if isinstance(out, tuple | list) else [out]
        total = sum((o * o).sum() for o in outs if o.requires_grad)
        if isinstance(total, int):
            return [*outs, [type(o.grad_fn).__name__ for o in outs]]
        total.backward()
        return [*outs, a.grad, [type(o.grad_fn).__name__ for o in outs]]

    ours, theirs = both(run)
    assert ours[-1] == theirs[-1]  # node names
    assert_close_arrays(ours[:-1], theirs[:-1], roundings=64)


def test_out_range_indexing_and_indexed_assignment_in_a_graph() -> None:
    def run(T: Any) -> list[Any]:
        T.manual_seed(2)
        a, b = T.randn(3, 4), T.randn(3, 4)
        out = T.empty(3, 4)
        T.add(a, b, out=out)
        mm = T.matmul(a, b.T, out=T.empty(0))  # resized, as PyTorch resizes it
        logits = T.randn(4, 5, requires_grad=True)
        Y = T.tensor([1, 0, 4, 2])
        d = logits * 1.5  # (softmax saves its output: changing it would be PyTorch's error)
        d[range(4), Y] -= 1  # reads d[...], changes the copy, writes it back
        d /= 4
        (d * d).sum().backward()
        s = T.nn.functional.softmax(logits.detach().requires_grad_(), 1)
        s[range(4), Y] -= 1
        try:
            s.sum().backward()
            refused = ""
        except RuntimeError as exc:
            refused = str(exc)
        w = T.randn(3, requires_grad=True)
        y = w * 2
        y[0] = 5.0
        y.sum().backward()
        return [out, mm, a[range(3), [0, 1, 2]], d, logits.grad, w.grad,
                type(d.grad_fn).__name__, type(y.grad_fn).__name__, refused]  # fmt: skip

    ours, theirs = both(run)
    assert ours[-3:] == theirs[-3:]
    assert "modified by an inplace operation" in ours[-1]
    assert_close_arrays(ours[:-3], theirs[:-3], roundings=32)
    with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
        engine.add(engine.ones(2, requires_grad=True), 1, out=engine.empty(2))


def test_legacy_loss_arguments_warn_and_reduce_as_pytorch() -> None:
    def run(T: Any) -> list[Any]:
        T.manual_seed(4)
        x, y = T.randn(3, 4), T.randn(3, 4)
        logits, target = T.randn(5, 3), T.tensor([0, 2, 1, 1, 0])
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = [
                T.nn.MSELoss(size_average=False)(x, y),
                T.nn.MSELoss(reduce=False)(x, y),
                T.nn.functional.mse_loss(x, y, size_average=False),
                T.nn.CrossEntropyLoss(size_average=True)(logits, target),
                T.nn.CrossEntropyLoss(weight=T.tensor([1.0, 2.0, 0.5]))(logits, target),
                T.nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target),
                T.nn.NLLLoss(weight=T.tensor([0.3, 1.0, 2.0]), reduction="sum")(logits, target),
            ]
        return [*out, sorted({str(c.message) for c in caught})]

    ours, theirs = both(run)
    assert ours[-1] == theirs[-1]
    assert_close_arrays(ours[:-1], theirs[:-1], roundings=32)


def test_a_generated_tensor_prints_as_pytorch_under_tolerance() -> None:
    assert math.isclose(tol(1), 2.0**-24)
