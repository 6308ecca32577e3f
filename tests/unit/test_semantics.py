"""PyTorch's autograd semantics and messages, case by case (and against PyTorch itself)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import engine
from tests.tolerances import close
from tests.unit.optim_vs_torch import assert_training_matches

#: The largest radius of ATen's Box-Muller: sqrt(-2 log u) for the smallest uniform, 2**-24.
BOX_MULLER_RADIUS = math.sqrt(-2 * math.log(2.0**-24))

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
    # 0.1 and 0.01 round once to float32; doubling them is exact
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 0.2, 0.02], **close(1))


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
    assert model.bias.grad.item() == 6.0  # sums of ones: exact on every CPU
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
        # fewer than 16 normals: Box-Muller in double on both sides, then one float32 rounding
        # (two double results a few ulp apart may round to neighbouring floats: 1 ulp)
        np.testing.assert_allclose(engine.randn(5).numpy(), torch.randn(5).numpy(), **close(2))
        # the stream itself is mt19937's integer arithmetic, and a uniform float32 is 24 of its
        # bits times 2**-24 (exact): the same bits on every CPU
        np.testing.assert_array_equal(engine.rand(2, 9).numpy(), torch.rand(2, 9).numpy())
        # 16 or more: ATen's float32 Box-Muller (Sleef's log/cos/sin within 1 ulp in its AVX2
        # and AVX-512 kernels, libm's in its baseline ones, 2*pi*u rounded twice) against ours in
        # double, rounded once: the radius errs by 2u, cos/sin by 2u plus 2*pi*2u through the
        # angle, the product by u: 19 roundings of the radius, at most sqrt(-2 log 2**-24)
        np.testing.assert_allclose(
            engine.randn(40).numpy(), torch.randn(40).numpy(), **close(19, scale=BOX_MULLER_RADIUS)
        )
        for e, t in [
            (engine.randint(0, 7, (6,)), torch.randint(0, 7, (6,))),
            (engine.randperm(10), torch.randperm(10)),
        ]:
            np.testing.assert_array_equal(e.numpy(), t.numpy())  # integers: exact everywhere
        el, tl = engine.nn.Linear(5, 3), torch.nn.Linear(5, 3)
        # uniform_(-b, b) is u * 2b - b in float32: fused on ATen's AVX2/AVX-512 kernels (as we
        # compute it) and rounded twice on its baseline ones: the product's rounding (|u * 2b| <=
        # 2b) and the final one on each side differ by at most u * 2b + 2u * b = 4u * b
        bound = 1 / math.sqrt(5)
        for e, t in ((el.weight, tl.weight), (el.bias, tl.bias)):
            np.testing.assert_allclose(
                e.detach().numpy(), t.detach().numpy(), **close(4, scale=bound)
            )


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
    assert_training_matches(make)


@pytest.mark.parametrize(
    ("p", "value", "grad"),
    [
        (3, lambda a: a * a * a, lambda a: 3 * (a * a)),
        (3.0, lambda a: a * a * a, lambda a: 3.0 * (a * a)),
        (-2, lambda a: 1 / (a * a), None),  # its backward is x**-3: a general power
        (4, None, lambda a: 4 * (a * a * a)),  # its forward is a general power
    ],
)
def test_small_integer_powers_are_computed_as_pytorch_computes_them(
    p: float, value: Callable[[Any], Any] | None, grad: Callable[[Any], Any] | None
) -> None:
    """PyTorch's CPU kernel writes x**3 as x·x·x and x**-2 as 1/(x·x) (so the backward of
    x**4 is 4·x·x·x): the engine's numbers are those, to the bit, not NumPy's power's."""
    a = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
    x = engine.tensor(a, requires_grad=True)
    y = x**p
    y.sum().backward()
    assert x.grad is not None
    if value is not None:
        assert np.array_equal(y.detach().numpy(), value(a))
    if grad is not None:
        assert np.array_equal(x.grad.numpy(), grad(a))
    torch = pytest.importorskip("torch")
    t = torch.tensor(a, requires_grad=True)
    (t**p).sum().backward()
    if value is not None:
        assert np.array_equal(y.detach().numpy(), (t**p).detach().numpy())
    if grad is not None:
        assert np.array_equal(x.grad.numpy(), t.grad.numpy())
