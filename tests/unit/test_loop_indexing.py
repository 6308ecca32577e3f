"""Indexing as lessons' loops do it: slices whose bounds are 0-d tensors (`data[i : i + 8]`
for `i in ix`), many live views of one tensor, iterating a tensor. The same answers and
errors as PyTorch; the cost is a benchmark's (bench), not a test's."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import engine

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


def both(fn: Any) -> tuple[Any, Any]:
    return fn(engine), fn(torch)


def test_slices_with_tensor_bounds_are_pytorchs() -> None:
    def take(T: Any) -> list[Any]:
        data = T.arange(40)
        ix = T.tensor([3, 0, 17, 31])
        rows = T.stack([data[i : i + 8] for i in ix])
        steps = data[T.tensor(1) :: T.tensor(3)]
        return [rows.tolist(), steps.tolist(), data[T.tensor(-5) :].tolist()]

    ours, theirs = both(take)
    assert ours == theirs


@pytest.mark.parametrize(
    "key",
    ["[1.5:3]", "[::0]", "[::-1]", "[torch_tensor(1.5):]"],
    ids=["float", "zero", "neg", "ft"],
)
def test_bad_slices_raise_pytorchs_errors(key: str) -> None:
    def error(T: Any) -> tuple[str, str]:
        x = T.arange(10)
        bad = {
            "[1.5:3]": lambda: x[1.5:3],
            "[::0]": lambda: x[::0],
            "[::-1]": lambda: x[::-1],
            "[torch_tensor(1.5):]": lambda: x[T.tensor(1.5) :],
        }[key]
        with pytest.raises((TypeError, ValueError, IndexError)) as raised:
            bad()
        return type(raised.value).__name__, str(raised.value).splitlines()[0]

    ours, theirs = both(error)
    assert ours == theirs


def test_many_live_views_share_their_base_version() -> None:
    """Sixty live slices of one tensor, then an in-place change of the base: every view sees
    the new version (the group of a storage's views is swept only now and then)."""
    base = engine.zeros(100)
    views = [base[i : i + 5] for i in range(60)]
    before = [v._version for v in views]
    base.add_(1)
    assert all(v._version == b + 1 for v, b in zip(views, before, strict=True))
    np.testing.assert_array_equal(views[-1].numpy(), np.ones(5))


def test_iterating_a_tensor_gives_its_rows_as_pytorch_does() -> None:
    def rows(T: Any) -> list[Any]:
        x = T.arange(6).reshape(3, 2)
        return [r.tolist() for r in x] + [int(v) for v in T.arange(4)]

    ours, theirs = both(rows)
    assert ours == theirs
