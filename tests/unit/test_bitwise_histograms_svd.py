"""Issue 41's smaller pieces against PyTorch 2.13: the bitwise functions and operators on
integer and bool tensors, histc / histogram, svd (forward; its backward says it is missing),
torch.functional, and the in-place variant of each elementwise method (PyTorch's list).

Tolerances (tests/tolerances.py): integer and bool results and histogram counts are exact;
singular values are float64 results of LAPACK on each side (relative 1e-12), and U, V are
compared up to the sign of each singular vector, through U diag(S) Vᴴ = A."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

INTS = [[5, -3, 12, 0], [6, 1, -7, 255]]
BOOLS = [[True, False, True, False], [True, True, False, False]]

BINARY = {
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "bitwise_and": lambda a, b: a.bitwise_and(b),
    "bitwise_or": lambda a, b: a.bitwise_or(b),
    "bitwise_xor": lambda a, b: a.bitwise_xor(b),
    "scalar_left": lambda a, b: 3 & a,
    "scalar_right": lambda a, b: a ^ 1,
}
UNARY = {
    "invert": lambda L, a: ~a,
    "bitwise_not": lambda L, a: L.bitwise_not(a),
}
SHIFTS = {
    "lshift": lambda a, b: a << 2,
    "rshift": lambda a, b: a >> 1,
    "left_shift_fn": lambda a, b: a.bitwise_left_shift(b.abs() % 4),
    "right_shift_fn": lambda a, b: a.bitwise_right_shift(b.abs() % 4),
}


def _same(ours: Any, theirs: Any) -> None:
    assert str(ours.dtype) == str(theirs.dtype)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_bitwise_binary(name: str, dtype: str) -> None:
    data = BOOLS if dtype == "bool" else INTS
    if dtype == "uint8":
        data = [[v % 256 for v in row] for row in INTS]
    results = []
    for L in (engine, torch):
        a, b = (L.tensor(row, dtype=getattr(L, dtype)) for row in data)
        results.append(BINARY[name](a, b))
    _same(*results)


@pytest.mark.parametrize("dtype", ["int64", "uint8", "bool"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_bitwise_not(name: str, dtype: str) -> None:
    data = BOOLS[0] if dtype == "bool" else [v % 256 for v in INTS[0]]
    _same(*(UNARY[name](L, L.tensor(data, dtype=getattr(L, dtype))) for L in (engine, torch)))


@pytest.mark.parametrize("name", sorted(SHIFTS))
def test_shifts(name: str) -> None:
    results = []
    for L in (engine, torch):
        a, b = (L.tensor(row) for row in INTS)
        results.append(SHIFTS[name](a, b))
    _same(*results)


@pytest.mark.parametrize("op", ["and", "xor", "lshift", "not"])
def test_floats_are_refused_as_pytorch_refuses_them(op: str) -> None:
    messages = []
    for L in (engine, torch):
        x = L.tensor([1.0, 2.0])
        calls = {"and": lambda t: t & t, "xor": lambda t: t ^ t, "lshift": lambda t: t << 1,
                 "not": lambda t: t.bitwise_not()}  # fmt: skip
        with pytest.raises(NotImplementedError) as info:
            calls[op](x)
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_inverting_a_float_is_pythons_type_error_as_in_pytorch() -> None:
    for L in (engine, torch):
        with pytest.raises(TypeError, match=r"only implemented on integer and Boolean"):
            ~L.tensor([1.0])


HISTC = [
    ([1.0, 2.0, 1.0, 4.0], {"bins": 4, "min": 0, "max": 3}),
    ([0.5, -1.0, 2.5, 2.5, 7.0], {"bins": 5}),
    ([3.0, 3.0], {"bins": 3}),
]


@pytest.mark.parametrize(("data", "kwargs"), HISTC)
def test_histc(data: list[float], kwargs: dict[str, Any]) -> None:
    _same(*(L.histc(L.tensor(data), **kwargs) for L in (engine, torch)))


@pytest.mark.parametrize(
    "kwargs",
    [{"bins": 4}, {"bins": 3, "range": (0.0, 3.0)}, {"bins": 4, "density": True},
     {"bins": "edges"}, {"bins": 2, "weight": True}],
)  # fmt: skip
def test_histogram(kwargs: dict[str, Any]) -> None:
    out = []
    for L in (engine, torch):
        args = dict(kwargs)
        if args["bins"] == "edges":
            args["bins"] = L.tensor([0.0, 1.5, 2.0, 5.0])
        if args.get("weight"):
            args["weight"] = L.tensor([0.5, 1.0, 2.0, 1.0, 0.25])
        out.append(L.histogram(L.tensor([1.0, 2.0, 1.0, 4.0, 0.0]), **args))
    for a, b in zip(out[0], out[1], strict=True):
        assert str(a.dtype) == str(b.dtype)
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6)
    assert repr(out[0]).splitlines()[0] == repr(out[1]).splitlines()[0]


MATRICES = {
    "square": [[1.0, 2.0], [3.0, 4.0]],
    "tall": [[1.0, 2.0], [3.0, 4.0], [5.0, 6.5]],
    "wide": [[2.0, 0.0, 1.0], [0.5, -1.0, 3.0]],
}


@pytest.mark.parametrize("name", sorted(MATRICES))
@pytest.mark.parametrize("how", ["svd", "svd_some_false", "linalg", "linalg_reduced", "svdvals"])
def test_svd_matches_pytorch(name: str, how: str) -> None:
    def run(L: Any) -> Any:
        a = L.tensor(MATRICES[name], dtype=L.float64)
        if how == "svd":
            return L.svd(a)
        if how == "svd_some_false":
            return L.svd(a, some=False)
        if how == "linalg":
            return L.linalg.svd(a)
        if how == "linalg_reduced":
            return L.linalg.svd(a, full_matrices=False)
        return (L.linalg.svdvals(a),)

    ours, theirs = run(engine), run(torch)
    assert [tuple(t.shape) for t in ours] == [tuple(t.shape) for t in theirs]
    if len(ours) == 1:
        np.testing.assert_allclose(ours[0].numpy(), theirs[0].numpy(), rtol=1e-12)
        return
    u, s, v = (t.numpy() for t in ours)
    np.testing.assert_allclose(s, theirs[1].numpy(), rtol=1e-12)
    vh = v.T if how.startswith("svd") else v
    k = s.shape[0]
    np.testing.assert_allclose(u[:, :k] * s @ vh[:k], np.array(MATRICES[name]), atol=1e-12)
    # the same singular vectors, up to sign
    tu = theirs[0].numpy()[:, :k]
    np.testing.assert_allclose(np.abs(np.sum(u[:, :k] * tu, axis=0)), 1.0, atol=1e-12)


def test_svd_backward_says_it_is_missing() -> None:
    a = engine.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    _, s, _ = engine.svd(a)
    assert type(s.grad_fn).__name__ == "LinalgSvdBackward0"
    with pytest.raises(NotImplementedError, match=r"gradient of torch\.svd"):
        s.sum().backward()


def test_torch_functional_is_the_same_functions() -> None:
    assert engine.functional.einsum is engine.einsum
    assert set(engine.functional.__all__) <= set(torch.functional.__all__)
    with pytest.raises(NotImplementedError, match=r"torch\.functional\.stft is part of PyTorch"):
        engine.functional.stft  # noqa: B018


INPLACE = ["sin_", "exp_", "sign_", "sgn_", "deg2rad_", "exp2_", "rad2deg_", "nan_to_num_",
           "sigmoid_", "abs_", "neg_", "tanh_", "clamp_", "floor_", "round_", "sqrt_"]  # fmt: skip


@pytest.mark.parametrize("name", INPLACE)
def test_each_in_place_method_writes_back_as_pytorch_does(name: str) -> None:
    results = []
    for L in (engine, torch):
        x = L.tensor([0.3, -1.2, 2.5, 0.0], dtype=L.float64)
        version = x._version
        args = (0, 1) if name == "clamp_" else ()
        out = getattr(x, name)(*args)
        assert out is x and x._version == version + 1
        results.append(x)
        leaf = L.tensor([0.5], requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            getattr(leaf, name)(*args)
    np.testing.assert_allclose(results[0].numpy(), results[1].numpy(), rtol=1e-15)


def test_in_place_methods_cover_pytorchs_for_every_method_the_engine_has() -> None:
    """Each ``x.<name>_`` PyTorch has, where the engine has ``x.<name>``, exists here too
    (except the ones that change shape or storage, engine.methods._NOT_WRITTEN_BACK)."""
    from engine.methods import _NOT_WRITTEN_BACK
    from engine.pytorch_names import NAMES

    lacking = [
        n for n in sorted(NAMES["Tensor"])
        if n.endswith("_") and not n.startswith("_") and n not in _NOT_WRITTEN_BACK
        and hasattr(engine.Tensor, n[:-1]) and not hasattr(engine.Tensor, n)
    ]  # fmt: skip
    assert lacking == []


def test_in_place_recorded_on_a_non_leaf_matches_pytorchs_gradient() -> None:
    grads = []
    for L in (engine, torch):
        w = L.tensor([0.3, -1.2, 2.5], dtype=L.float64, requires_grad=True)
        y = w * 2
        y.sin_()
        y.sum().backward()
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-15)
