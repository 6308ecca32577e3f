"""What the op table's rows declare beyond their maths, and that each op has what it declares.

The rows (engine.ops) name themselves for the features that know ops by name: ``out`` (torch
functions taking ``out=``), ``bare`` (names a program knows without ``torch.``), ``tex`` (how
the captions typeset the row's function), ``compare`` (a Value graph's op labels that Compare
replays), and every row made by ``unary`` is an elementwise function the create_graph rules
may call as ``xp.<name>``. The sets are pinned here, so that a change to them is deliberate;
the other tests check each feature works for every row that declares it, and that the page's
generated tables (static/src/generated/ops.gen.ts) are the table's.
"""

from __future__ import annotations

import importlib.util
from typing import Any

import numpy as np
import pytest

import engine
from engine import higher
from engine.ops import ELEMENTWISE, OPS
from engine.out import out_functions
from recorder.caption import template
from server import page_tables
from server.program import known
from server.program.values.compare import replay_op

HAS_TORCH = importlib.util.find_spec("torch") is not None

#: what took out= before the table declared it (engine/out.py's list), and the aliases of the
#: elementwise rows it lacked although PyTorch's take out= as their canonical names do
OUT_BEFORE = {
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "matmul", "mm",
    "bmm", "mv", "dot", "pow", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt",
    "abs", "neg", "negative", "sin", "cos", "tan", "tanh", "sigmoid", "sinh", "cosh", "asin",
    "acos", "atan", "floor", "ceil", "round", "trunc", "frac", "reciprocal", "clamp", "clip",
    "maximum", "minimum", "where", "cat", "concat", "concatenate", "stack", "sum", "mean", "prod",
    "cumsum", "cumprod", "square", "erf", "sign",
}  # fmt: skip
OUT_ALIASES = {"absolute", "arcsin", "arccos", "arctan", "asinh", "arcsinh", "atanh", "arctanh"}
OUT_ALIASES |= {"fix"}
BARE_TORCH = {
    "exp", "log", "log1p", "log2", "log10", "expm1", "sqrt", "square", "sin", "cos", "tan",
    "sinh", "cosh", "asin", "acos", "atan", "tanh", "erf", "sigmoid", "relu", "clamp", "maximum",
    "minimum",
}  # fmt: skip
BARE_FUNCTIONAL = {"softplus", "gelu", "silu", "elu", "leaky_relu"}
TEX = {
    "ln": "\\ln", "exp": "\\exp", "tanh": "\\tanh", "sin": "\\sin", "cos": "\\cos",
    "tan": "\\tan", "sinh": "\\sinh", "cosh": "\\cosh", "σ": "\\sigma",
}  # fmt: skip
COMPARE = {"-", "neg", "tanh", "exp", "log", "relu", "sigmoid", "sin", "cos", "sqrt", "abs"}
#: the array functions the create_graph rules called before the facade read them from the table
FACADE_BEFORE = {"exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tanh", "sinh", "cosh"}
FACADE_BEFORE |= {"abs", "erf"}


def _declared(field: str) -> set[str]:
    return {name for op in OPS.values() for name in getattr(op, field)}


# ---- the sets, pinned ------------------------------------------------------------------------
def test_the_functions_taking_out_are_pinned() -> None:
    assert out_functions() == OUT_BEFORE | OUT_ALIASES


def test_the_bare_names_are_pinned() -> None:
    assert set(known.TORCH_FUNCTIONS) == BARE_TORCH
    assert set(known.FUNCTIONAL) == BARE_FUNCTIONAL
    assert set(known.KNOWN) == {"torch", "nn", "F"} | BARE_TORCH | BARE_FUNCTIONAL
    assert len(known.KNOWN) == len(set(known.KNOWN))


def test_the_typeset_functions_are_pinned() -> None:
    assert page_tables.function_tex() == TEX


def test_the_compared_labels_are_pinned() -> None:
    assert _declared("compare") == COMPARE


def test_the_facade_has_every_function_the_rules_called() -> None:
    assert set(ELEMENTWISE) >= FACADE_BEFORE


# ---- each op has what its row declares ---------------------------------------------------------
@pytest.mark.parametrize("name", sorted(OUT_BEFORE | OUT_ALIASES))
def test_a_function_declared_with_out_takes_it(name: str) -> None:
    with engine.no_grad(), pytest.raises(TypeError, match="argument 'out' must be Tensor"):
        getattr(engine, name)(out="not a tensor")


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_an_elementwise_function_writes_into_out(name: str) -> None:
    x = engine.tensor([0.2, 0.5, 0.7])
    fn = getattr(engine, name)
    if name not in out_functions():
        with pytest.raises(TypeError):
            fn(x, out=engine.empty(3))
        return
    out = engine.empty(3)
    assert fn(x, out=out) is out
    np.testing.assert_array_equal(out.numpy(), fn(x).numpy())


@pytest.mark.skipif(not HAS_TORCH, reason="PyTorch is the oracle")
@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_an_elementwise_function_takes_out_as_pytorchs_does(name: str) -> None:
    import torch

    x = torch.tensor([0.2, 0.5, 0.7])
    try:
        getattr(torch, name)(x, out=torch.empty(3))
        pytorch_takes_it = True
    except TypeError:
        pytorch_takes_it = False
    assert (name in out_functions()) == pytorch_takes_it


def test_every_bare_name_is_known_to_a_program() -> None:
    modules = {
        "torch": engine,
        "torch.nn": engine.nn,
        "torch.nn.functional": engine.nn.functional,
    }
    names = known.known_names(modules)
    for op in OPS.values():
        for name in op.bare:
            where = engine if name in op.function else engine.nn.functional
            assert names[name].__wrapped__ is getattr(where, name), name
    assert float(names["tanh"](0.5)) == pytest.approx(np.tanh(0.5))  # a number is taken too


@pytest.mark.parametrize("op", [op for op in OPS.values() if op.tex], ids=lambda op: op.name)
def test_a_row_with_tex_is_typeset_by_the_page(op: Any) -> None:
    tree = template(op.symbol)
    assert tree["k"] == "fn", f"{op.name}: symbol {op.symbol!r} applies no function"
    assert page_tables.function_tex()[tree["f"]] == op.tex
    assert f"{page_tables._literal(tree['f'])}: {page_tables._literal(op.tex)}," in (
        page_tables.PATH.read_text(encoding="utf-8")
    )


@pytest.mark.parametrize(
    ("op", "label"),
    [(op, label) for op in OPS.values() for label in op.compare],
    ids=lambda v: v if isinstance(v, str) else v.name,
)
def test_a_compared_label_replays_its_row(op: Any, label: str) -> None:
    fn = replay_op(label.upper() if label.isalpha() else label, 1)  # labels are read any case
    assert fn is not None
    x = engine.tensor([0.25, 0.5], dtype=engine.float64, requires_grad=True)
    got = fn([x])
    expected = getattr(engine, op.function[0])(x)
    np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
    assert got.grad_fn is not None and got.grad_fn.name() == expected.grad_fn.name()


@pytest.mark.parametrize("name", sorted(ELEMENTWISE))
def test_the_create_graph_rules_can_call_every_elementwise_row(name: str) -> None:
    x = engine.tensor([0.25, 0.5], requires_grad=True)
    got = getattr(higher.XP, name)(higher._Arr(x)).t
    np.testing.assert_array_equal(got.detach().numpy(), getattr(engine, name)(x).detach().numpy())
    assert got.requires_grad  # recorded: it can be differentiated again


def test_the_facade_refuses_what_the_table_lacks() -> None:
    with pytest.raises(engine.core.Unsupported):
        _ = higher.XP.cumsum


# ---- the page's generated tables ---------------------------------------------------------------
def test_the_pages_generated_tables_are_the_tables() -> None:
    assert page_tables.PATH.read_text(encoding="utf-8") == page_tables.render(), (
        "static/src/generated/ops.gen.ts is stale: run python -m server.page_tables"
    )
