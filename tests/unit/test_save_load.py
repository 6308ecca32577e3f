"""torch.save / torch.load (issue 41): round trips of tensors, state_dicts and containers of
them, through a file object and through a path (the run's in-memory scratch space), kept as
PyTorch 2.13 keeps them (type, dtype, shape, requires_grad). Values are copied bytes: exact."""

from __future__ import annotations

import io
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import engine
from engine import serialization


def _objects(T: Any) -> list[Any]:
    """The same objects, made by either library."""
    x = T.arange(6, dtype=T.float64).reshape(2, 3).requires_grad_()
    return [
        x,
        x * 2,  # a non-leaf: loaded as a leaf that requires grad
        T.nn.Parameter(T.ones(2)),
        T.nn.Parameter(T.ones(2), requires_grad=False),
        T.tensor([1, 2, 3]),
        T.tensor([True, False]),
        T.tensor(3.5),
        T.zeros(0, 4),
        T.arange(12, dtype=T.float32).reshape(3, 4).t(),  # not contiguous
        {"a": T.tensor([1.0]), 3: [T.tensor([2], dtype=T.int32), None, 1.5, "s"], "t": (1, 2)},
        OrderedDict([("w", T.ones(2, 2)), ("b", T.zeros(2))]),
        [T.float64, T.Size([2, 3]), True],
    ]


def _described(obj: Any) -> Any:
    """What a round trip must keep, library-neutrally."""
    if hasattr(obj, "requires_grad") and hasattr(obj, "shape"):
        return (
            type(obj).__name__,
            str(obj.dtype),
            tuple(obj.shape),
            bool(obj.requires_grad),
            bool(obj.is_leaf),
            obj.detach().numpy().tolist(),
        )
    if isinstance(obj, dict):
        return (type(obj).__name__, [(k, _described(v)) for k, v in obj.items()])
    if isinstance(obj, list | tuple):
        return (type(obj).__name__, [_described(v) for v in obj])
    if type(obj).__name__ == "dtype" or type(obj).__name__ == "DType":
        return str(obj)
    return obj


def _round_trip(T: Any, obj: Any) -> Any:
    buffer = io.BytesIO()
    T.save(obj, buffer)
    buffer.seek(0)
    return T.load(buffer, map_location="cpu", weights_only=True)


@pytest.mark.parametrize("index", range(len(_objects(engine))))
def test_a_round_trip_gives_the_object_back(index: int) -> None:
    obj = _objects(engine)[index]
    back = _round_trip(engine, obj)
    want = _described(obj)
    if isinstance(obj, engine.Tensor) and obj.grad_fn is not None:
        want = (*want[:4], True, want[5])  # saved as a leaf
    assert _described(back) == want


@pytest.mark.torch
@pytest.mark.parametrize("index", range(len(_objects(engine))))
def test_a_round_trip_keeps_what_pytorch_keeps(index: int) -> None:
    torch = pytest.importorskip("torch")
    ours = _described(_round_trip(engine, _objects(engine)[index]))
    theirs = _described(_round_trip(torch, _objects(torch)[index]))
    assert ours == theirs


def test_loaded_tensors_are_copies() -> None:
    x = engine.ones(3)
    buffer = io.BytesIO()
    engine.save(x, buffer)
    buffer.seek(0)
    y = engine.load(buffer)
    y.add_(1)
    assert x.tolist() == [1.0, 1.0, 1.0] and y.tolist() == [2.0, 2.0, 2.0]


def test_a_model_saved_to_a_path_predicts_the_same_when_loaded() -> None:
    engine.manual_seed(0)
    net = engine.nn.Sequential(
        engine.nn.Linear(3, 4), engine.nn.BatchNorm1d(4), engine.nn.Tanh(), engine.nn.Linear(4, 2)
    )
    net(engine.randn(8, 3))  # running statistics: buffers are saved too
    net.eval()
    engine.save(net.state_dict(), "checkpoints/model.pt")
    other = engine.nn.Sequential(
        engine.nn.Linear(3, 4), engine.nn.BatchNorm1d(4), engine.nn.Tanh(), engine.nn.Linear(4, 2)
    )
    other.load_state_dict(engine.load("checkpoints/model.pt"))
    other.eval()
    x = engine.randn(5, 3)
    np.testing.assert_array_equal(other(x).detach().numpy(), net(x).detach().numpy())
    assert "checkpoints/model.pt" in serialization.SCRATCH


def test_an_optimizers_state_survives_a_round_trip() -> None:
    w = engine.nn.Parameter(engine.tensor([1.0, -2.0]))
    opt = engine.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    state = opt.state_dict()
    engine.save({"optimizer": state, "epoch": 3}, "ckpt.pt")
    back = engine.load("ckpt.pt")
    assert back["epoch"] == 3
    assert back["optimizer"]["param_groups"] == state["param_groups"]
    again = engine.optim.Adam([w], lr=0.1)
    again.load_state_dict(back["optimizer"])
    assert _described(again.state_dict()) == _described(state)


def test_paths_are_the_runs_own_and_a_missing_one_is_pythons_error() -> None:
    engine.save(engine.ones(1), "./a/../same.pt")
    assert engine.load("same.pt").tolist() == [1.0]
    with pytest.raises(FileNotFoundError, match="No such file or directory"):
        engine.load("never-saved.pt")


def test_what_is_not_data_is_refused_with_a_hint() -> None:
    with pytest.raises(TypeError, match=r"save model\.state_dict\(\)"):
        engine.save(engine.nn.Linear(2, 2), io.BytesIO())
    with pytest.raises(RuntimeError, match="Invalid magic number"):
        engine.load(io.BytesIO(b"\x80\x02pickled"))
