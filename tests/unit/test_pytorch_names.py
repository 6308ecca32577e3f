"""A name the playground lacks (issue 41): where PyTorch 2.13 has it, the error says so (an
AttributeError, so ``hasattr`` probes as for any absent name, that is also a
NotImplementedError); where PyTorch does not have it either, Python's own AttributeError with
PyTorch's message. The names come from engine/pytorch_names.py, generated from PyTorch by
tests/unit/make_pytorch_names.py, and docs/engine.md states how many of them the engine has."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import engine
import engine.nn.functional as F
from engine.registry import NotInPlaygroundError
from tests.unit import make_pytorch_names

DOCS = Path(__file__).parents[2] / "docs" / "engine.md"

#: (expression on the namespace, the name PyTorch has, the message)
LACKING = [
    (lambda: engine.compile, "torch.compile is part of PyTorch, but the playground does not have it yet"),
    (lambda: engine.ones(1).pin_memory, "torch.Tensor.pin_memory is part of PyTorch, but the playground does not have it yet"),
    (lambda: F.ctc_loss, "torch.nn.functional.ctc_loss is part of PyTorch, but the playground does not have it yet"),
    (lambda: engine.nn.Transformer, "torch.nn.Transformer is part of PyTorch, but the playground does not have it yet"),
    (lambda: engine.linalg.qr, "torch.linalg.qr is part of PyTorch, but the playground does not have it yet"),
]  # fmt: skip


@pytest.mark.parametrize(("get", "message"), LACKING)
def test_a_name_pytorch_has_says_the_playground_lacks_it(get: Any, message: str) -> None:
    with pytest.raises(NotInPlaygroundError) as info:
        get()
    assert str(info.value) == message
    assert isinstance(info.value, AttributeError) and isinstance(info.value, NotImplementedError)


def test_probing_works_as_for_any_absent_name() -> None:
    assert hasattr(engine, "cuda") and hasattr(engine, "no_grad")
    assert not hasattr(engine, "compile") and getattr(engine, "compile", None) is None
    assert not hasattr(engine.ones(1), "pin_memory")
    assert not hasattr(engine, "definitely_not_torch")
    try:
        engine.ones(1).pin_memory()
    except NotImplementedError:
        pass
    else:
        raise AssertionError("no error")


def _message(get: Any) -> str:
    with pytest.raises(AttributeError) as info:
        get()
    assert type(info.value) is AttributeError
    return str(info.value)


@pytest.mark.torch
def test_a_name_pytorch_lacks_too_gets_pytorchs_message() -> None:
    torch = pytest.importorskip("torch")
    import torch.nn.functional as TF

    pairs = [
        (lambda: engine.foo, lambda: torch.foo),
        (lambda: F.foo, lambda: TF.foo),
        (lambda: engine.ones(1).foo, lambda: torch.ones(1).foo),
        (lambda: engine.nn.Parameter(engine.ones(1)).foo,
         lambda: torch.nn.Parameter(torch.ones(1)).foo),
    ]  # fmt: skip
    for ours, theirs in pairs:
        assert _message(ours).replace("'engine", "'torch") == _message(theirs)


@pytest.mark.torch
def test_the_generated_names_are_pytorchs() -> None:
    pytest.importorskip("torch")
    assert make_pytorch_names.TARGET.read_text() == make_pytorch_names.render(), (
        "regenerate: .venv/bin/python -m tests.unit.make_pytorch_names"
    )


def test_docs_state_the_coverage() -> None:
    line = make_pytorch_names.coverage_line()
    assert line in DOCS.read_text(), (
        f"docs/engine.md should state: {line} "
        "(.venv/bin/python -m tests.unit.make_pytorch_names --missing lists what is missing)"
    )
