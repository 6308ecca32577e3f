"""The parts behind "your own autograd, drawn", in-process: the rewrite's class decorator, the
interleaving of passes, the replay table and tolerance of Compare with PyTorch, and how a
repeated parent's writes become separate contributions."""

from __future__ import annotations

import ast
import math

import numpy as np
import pytest

import engine
from server.program import source as src
from server.program.runner import merge_passes
from server.program.values.compare import close, replay_op
from server.program.values.graph import contributions, page_number
from server.program.values.observer import ValueObserver
from server.program.values.record import ValuePass


def rewritten(text: str) -> str:
    tree, _ = src.rewrite(ast.parse(text))
    return ast.unparse(tree)


def test_every_class_gets_the_hidden_decorator_outermost() -> None:
    out = rewritten("@dataclass\nclass A:\n    class B:\n        pass\n")
    assert out.startswith("@__agp_class__\n@dataclass\nclass A:")
    assert "    @__agp_class__\n    class B:" in out


def test_names_inside_a_method_carry_their_class() -> None:
    out = rewritten(
        "class Value:\n    def tanh(self):\n        out = f(self)\n        return out\n"
        "def helper():\n    out = 1\nx = 2\n"
    )
    assert "out = __agp_name__('out', f(self), 'Value')" in out
    assert "out = __agp_name__('out', 1, True)" in out
    assert "x = __agp_name__('x', 2, False)" in out


def test_passes_interleave_in_the_order_they_ran_and_stay_bounded() -> None:
    tensors = [{"pass_index": i, "kind": "tensor"} for i in (0, 1, 2)]
    values = [{"pass_index": j, "kind": "value"} for j in (0, 1)]
    # value pass 0 ran after 1 tensor pass, value pass 1 after all 3
    merged = merge_passes(tensors, values, [1, 3], max_passes=20)
    assert [(g["kind"], g["pass_index"]) for g in merged] == [
        ("tensor", 0),
        ("value", 1),
        ("tensor", 2),
        ("tensor", 3),
        ("value", 4),
    ]
    tensors = [{"pass_index": i} for i in (0, 1, 2)]
    values = [{"pass_index": j} for j in (0, 1)]
    bounded = merge_passes(tensors, values, [0, 0], max_passes=3)
    assert [g["pass_index"] for g in bounded] == [0, 1, 4]


@pytest.mark.parametrize(
    ("label", "arity", "inputs", "expected"),
    [
        ("+", 2, [2.0, 3.0], 5.0),
        ("add", 3, [1.0, 2.0, 3.0], 6.0),
        ("*", 2, [2.0, 3.0], 6.0),
        ("-", 2, [2.0, 3.0], -1.0),
        ("-", 1, [2.0], -2.0),
        ("/", 2, [3.0, 2.0], 1.5),
        ("**2", 1, [3.0], 9.0),
        ("**-1", 1, [4.0], 0.25),
        ("**0.5", 1, [4.0], 2.0),
        ("**", 2, [2.0, 3.0], 8.0),
        ("tanh", 1, [0.5], math.tanh(0.5)),
        ("ReLU", 1, [-1.0], 0.0),
        ("exp", 1, [1.0], math.e),
        ("log", 1, [math.e], 1.0),
        ("sigmoid", 1, [0.0], 0.5),
    ],
)
def test_replay_table(label: str, arity: int, inputs: list[float], expected: float) -> None:
    fn = replay_op(label, arity)
    assert fn is not None
    xs = [engine.tensor(x, dtype=engine.float64, requires_grad=True) for x in inputs]
    assert fn(xs).item() == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(("label", "arity"), [("times", 2), ("+", 1), ("tanh", 2), (None, 2)])
def test_replay_refuses_what_it_does_not_know(label: str | None, arity: int) -> None:
    assert replay_op(label, arity) is None


def test_close_follows_the_datas_precision() -> None:
    eps64 = float(np.finfo(np.float64).eps)
    assert close(1.0 + 1e-12, 1.0, 1.0, eps64)  # rounding of another formula
    assert not close(1.0 + 1e-6, 1.0, 1.0, eps64)  # a real difference
    eps32 = float(np.finfo(np.float32).eps)
    assert close(np.float32(1.0 + 1e-5), 1.0, 1.0, eps32)
    assert not close(-6.0, -12.0, 14.0, eps64)  # the broken += is never within tolerance
    assert close(math.nan, math.nan, 1.0, eps64) and not close(math.nan, 1.0, 1.0, eps64)
    assert close(math.inf, math.inf, 1.0, eps64) and not close(-math.inf, math.inf, 1.0, eps64)
    assert close(np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-13]), 2.0, eps64)
    assert close(0.0, 0.0, 0.0, eps64) and not close(1e-30, 0.0, 0.0, eps64)


def _record(parents: list[tuple[int, ...]]) -> ValuePass:
    n = len(parents)
    return ValuePass(
        kind=object,
        objs=[],
        datas=[1.0] * n,
        ops=[None] * n,
        parents=parents,
        grads_start=[0.0] * n,
    )


def test_a_repeated_parent_gets_one_contribution_per_write() -> None:
    record = _record([(), (0, 0)])  # out = err * err
    step = [1, 1.0, [0.0], [-12.0], [(0, 0.0, -6.0), (0, -6.0, -12.0)]]
    assert contributions(record, step) == [(0, 0.0, -6.0), (1, -6.0, -12.0)]
    # a change no write showed (an array changed in place) is its own contribution
    step = [1, 1.0, [0.0], [-12.0], [(0, 0.0, -6.0)]]
    assert contributions(record, step) == [(0, 0.0, -6.0), (1, -6.0, -12.0)]
    # no write at all: one contribution of the whole change, at the first position
    step = [1, 1.0, [0.0], [0.0], []]
    assert contributions(record, step) == [(0, 0.0, 0.0)]


def test_distinct_parents_are_read_before_and_after() -> None:
    record = _record([(), (), (0, 1)])
    step = [2, 1.0, (0.0, 5.0), (2.0, 8.0), None]
    assert contributions(record, step) == [(0, 0.0, 2.0), (1, 5.0, 8.0)]


def test_the_observer_leaves_classes_it_does_not_understand_alone() -> None:
    observer = ValueObserver(100, 1000, 5)

    class Plain:
        def backward(self) -> str:
            return "mine"

    assert observer.register_class(Plain) is Plain
    assert Plain().backward() == "mine" and observer.count == 0
    assert observer.called  # it was called, and refused: no fallback graph then
    assert observer.register_class(42) == 42  # a decorator that returned something else


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (-23.625, "−23.63"),  # an exact tie: JavaScript rounds it away from zero, as the page does
        (0.08333333333333333, "0.08333"),
        (1234.5, "1235"),
        (1000500.0, "1.001e6"),  # a tie above 1e6, in the exponent style
        (1.2345, "1.234"),  # not a tie: its binary value is below 1.2345
        (12345.6, "12350"),
        (123456.7, "123500"),
        (9.99951, "10"),
        (-6.0, "−6"),
        (0.000581, "5.81e−4"),
        (1e6, "1e6"),
        (1234567.0, "1.235e6"),
        (0.0, "0"),
        (math.inf, "∞"),
        (math.nan, "NaN"),
    ],
)
def test_captions_write_numbers_as_the_page_does(value: float, text: str) -> None:
    assert page_number(value) == text
