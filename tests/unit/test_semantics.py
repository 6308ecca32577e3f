"""PyTorch's autograd semantics and messages, case by case (and against PyTorch itself)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine

FREED = "Trying to backward through the graph a second time"


def _error(fn: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(Exception) as info:
        fn()
    return type(info.value).__name__, str(info.value)


def test_second_backward_needs_retain_graph() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == [4.0, 8.0]  # accumulated twice
    kind, msg = _error(y.backward)
    assert kind == "RuntimeError" and msg.startswith(FREED)


def test_graph_without_saved_tensors_can_run_twice_as_in_pytorch() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = (x + 1).sum()
    y.backward()
    y.backward()
    assert x.grad.tolist() == [2.0, 2.0]


def test_inplace_change_of_saved_tensor_is_detected() -> None:
    x = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x.exp()
    y.add_(1)
    kind, msg = _error(lambda: y.sum().backward())
    assert kind == "RuntimeError"
    assert msg.startswith(
        "one of the variables needed for gradient computation has been "
        "modified by an inplace operation: [torch.FloatTensor [3]], which is "
        "output 0 of Exp, is at version 1; expected version 0 instead."
    )


def test_inplace_on_leaf_under_no_grad_then_backward_errors() -> None:
    w = engine.tensor([1.0, 2.0], requires_grad=True)
    y = w * w
    with engine.no_grad():
        w.mul_(2)
    _, msg = _error(lambda: y.sum().backward())
    assert "[torch.FloatTensor [2]] is at version 1; expected version 0 instead" in msg


def test_leaf_inplace_and_requires_grad_errors() -> None:
    x = engine.tensor([1.0], requires_grad=True)
    assert _error(lambda: x.add_(1)) == (
        "RuntimeError",
        "a leaf Variable that requires grad is being used in an in-place operation.",
    )
    assert _error(lambda: (x * 2).requires_grad_(False))[1].startswith(
        "you can only change requires_grad flags of leaf variables."
    )
    assert _error(lambda: (x * 2).numpy())[1].startswith(
        "Can't call numpy() on Tensor that requires grad."
    )


def test_roots_that_cannot_start_backward() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    assert _error(lambda: (x * 2).backward())[1] == (
        "grad can be implicitly created only for scalar outputs"
    )
    assert _error(lambda: engine.tensor(2.0).backward())[1] == (
        "element 0 of tensors does not require grad and does not have a grad_fn"
    )
    loss = (x * 2).sum()
    assert _error(lambda: engine.tensor(loss.item()).backward())[0] == "RuntimeError"


def test_gradient_argument_for_non_scalar_root() -> None:
    x = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * 2).backward(gradient=engine.tensor([1.0, 0.1, 0.01]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.2, 0.02], rtol=1e-6)


def test_grad_only_on_leaves_unless_retained() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = x * 3
    b.retain_grad()
    (a + b).sum().backward()
    assert a.grad is None and b.grad.tolist() == [1.0, 1.0]
    assert x.is_leaf and not a.is_leaf and b.retains_grad


def test_untracked_branches_are_skipped() -> None:
    w = engine.tensor(2.0, requires_grad=True)
    x = engine.tensor(3.0)
    with engine.no_grad():
        frozen = w * 10
    assert not frozen.requires_grad and frozen.grad_fn is None
    out = w * x + frozen + w.detach()
    out.backward()
    assert w.grad.item() == 3.0
    assert x.grad is None


def test_autograd_grad_leaves_dot_grad_untouched() -> None:
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    (g,) = engine.autograd.grad((x**3).sum(), x)
    assert g.tolist() == [3.0, 12.0] and x.grad is None
    z = engine.tensor(1.0, requires_grad=True)
    assert _error(lambda: engine.autograd.grad((x * 2).sum(), [z]))[1].startswith(
        "The differentiated Tensor at index 0 appears to not have been used in the graph."
    )


def test_accumulation_and_zero_grad() -> None:
    model = engine.nn.Linear(2, 1)
    x = engine.ones(3, 2)
    for _ in range(2):
        model(x).sum().backward()
    assert model.bias.grad.item() == pytest.approx(6.0)
    model.zero_grad()
    assert model.bias.grad is None
    opt = engine.optim.SGD(model.parameters(), lr=0.1)
    model(x).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert model.bias.grad.item() == 0.0


def test_dtype_rules() -> None:
    assert engine.tensor([0, 1]).dtype is engine.int64
    assert engine.tensor([0.5]).dtype is engine.float32
    assert engine.tensor(True).dtype is engine.bool
    assert (engine.tensor([1, 2]) * 1.5).dtype is engine.float32
    assert (engine.tensor([1, 2]) / 2).dtype is engine.float32
    assert (engine.tensor([1.0]) + engine.tensor(1.0, dtype=engine.float64)).dtype is engine.float32
    assert (
        engine.tensor([1.0]) + engine.tensor([1.0], dtype=engine.float64)
    ).dtype is engine.float64
    assert (
        engine.tensor([1, 2]) + engine.tensor(1.5, dtype=engine.float64)
    ).dtype is engine.float64


def test_reprs() -> None:
    assert repr(engine.tensor([1.0, 2.0], requires_grad=True)) == (
        "tensor([1., 2.], requires_grad=True)"
    )
    x = engine.tensor(1.5, requires_grad=True)
    assert repr(x * 2) == "tensor(3., grad_fn=<MulBackward0>)"
    assert repr(engine.zeros(2, 3).shape) == "torch.Size([2, 3])"
    assert repr(engine.tensor([0.1, 0.2], dtype=engine.float64)) == (
        "tensor([0.1000, 0.2000], dtype=torch.float64)"
    )
    assert repr(engine.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(engine.arange(3)) == "tensor([0, 1, 2])"
    assert repr(engine.float32) == "torch.float32"
    assert str(engine.nn.Linear(2, 3)) == "Linear(in_features=2, out_features=3, bias=True)"


@pytest.mark.torch
def test_random_streams_and_init_match_pytorch() -> None:
    torch = pytest.importorskip("torch")
    for seed in (0, 3):
        engine.manual_seed(seed)
        torch.manual_seed(seed)
        for e, t in [
            (engine.randn(5), torch.randn(5)),
            (engine.rand(2, 9), torch.rand(2, 9)),
            (engine.randn(40), torch.randn(40)),
            (engine.randint(0, 7, (6,)), torch.randint(0, 7, (6,))),
            (engine.randperm(10), torch.randperm(10)),
        ]:
            np.testing.assert_allclose(e.numpy(), t.numpy(), rtol=1e-6, atol=1e-6)
        el, tl = engine.nn.Linear(5, 3), torch.nn.Linear(5, 3)
        np.testing.assert_array_equal(el.weight.detach().numpy(), tl.weight.detach().numpy())
        np.testing.assert_array_equal(el.bias.detach().numpy(), tl.bias.detach().numpy())


@pytest.mark.torch
@pytest.mark.parametrize(
    "make",
    [
        lambda lib, ps: lib.optim.SGD(ps, lr=0.1),
        lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9, weight_decay=0.01),
        lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.9, nesterov=True),
        lambda lib, ps: lib.optim.SGD(ps, lr=0.05, momentum=0.5, dampening=0.1),
        lambda lib, ps: lib.optim.Adam(ps, lr=0.01),
        lambda lib, ps: lib.optim.Adam(ps, lr=0.01, betas=(0.8, 0.99), weight_decay=0.1),
        lambda lib, ps: lib.optim.Adam(ps, lr=0.01, amsgrad=True),
    ],
)
def test_optimizers_match_pytorch(make: Callable[..., Any]) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    X, Y = rng.normal(size=(16, 3)), rng.integers(0, 2, 16)
    results = []
    for lib in (engine, torch):
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 8), lib.nn.Tanh(), lib.nn.Linear(8, 2))
        opt = make(lib, model.parameters())
        x = lib.tensor(X, dtype=lib.float32)
        y = lib.tensor(Y)
        for _ in range(25):
            opt.zero_grad()
            loss = lib.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
        results.append([p.detach().numpy().copy() for p in model.parameters()])
    for e, t in zip(*results, strict=True):
        np.testing.assert_allclose(e, t, rtol=2e-5, atol=2e-6)
