"""Notebooks through the playground print, cell by cell, what CPython + PyTorch print.

Each seed lesson (lessons/*.md, the gallery's notebooks) and a few notebooks whose cells lean
on each other's state run twice: through the sandbox as the notebook page runs them (cells
1..k in one jailed worker), and with real PyTorch, each cell compiled on its own and run in
order in one namespace, as Jupyter runs them. Every cell's output must match (numbers within
float32 rounding, tests/tolerances.py), and a cell that fails must fail the same way (type,
first line of the message, cell and line).
"""

from __future__ import annotations

import contextlib
import io
import sys
import traceback
import types
import warnings
from typing import Any

import pytest

from server.lessons import lessons
from server.program.source import cell_filename, cell_of
from tests.api.differential import same_output
from tests.sandbox.helpers import run_notebook

pytestmark = pytest.mark.torch

#: notebooks whose cells use what the cells above them left (not lessons: made to test that)
SHARED_STATE = {
    "state-across-cells": [
        "import torch\ntorch.manual_seed(3)\nw = torch.randn(3, requires_grad=True)\nx = torch.randn(3)",
        "y = (w * x).sum()\nprint(y)",
        "y.backward()\nprint(w.grad)\nprint(torch.allclose(w.grad, x))",
        "with torch.no_grad():\n    w -= 0.1 * w.grad\nw.grad = None\nprint(w)\nprint(torch.rand(2))",
    ],
    "module-across-cells": [
        "import torch\nfrom torch import nn\ntorch.manual_seed(0)\nmodel = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))\nopt = torch.optim.SGD(model.parameters(), lr=0.1)",
        "X = torch.tensor([[0., 1.], [1., 0.], [1., 1.]])\ny = torch.tensor([[1.], [1.], [0.]])\nprint(model)",
        "for step in range(5):\n    loss = ((model(X) - y) ** 2).mean()\n    opt.zero_grad()\n    loss.backward()\n    opt.step()\n    print(step, round(loss.item(), 5))",
        "print(model[0].weight.grad)",
    ],
    "error-in-a-function-from-an-earlier-cell": [
        "import torch\ndef step(t):\n    return t.view(5)",
        "print('before')\nstep(torch.ones(2, 3))",
    ],
}


def run_cells_with_torch(cells: list[str]) -> tuple[list[str], dict[str, Any] | None]:
    """Each cell's stdout and the error that stopped the cells, run as Jupyter runs them."""
    module = types.ModuleType("__notebook__")
    namespace: dict[str, Any] = module.__dict__
    sys.modules["__notebook__"] = module
    printed: list[str] = []
    error = None
    try:
        for number, source in enumerate(cells, 1):
            buffer = io.StringIO()
            printed.append("")
            try:
                code = compile(source, cell_filename(number), "exec")
                with contextlib.redirect_stdout(buffer), warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    exec(code, namespace)
            except Exception as exc:
                place = (None, None)
                for frame in traceback.extract_tb(sys.exc_info()[2]):
                    if cell_of(frame.filename) is not None:
                        place = (cell_of(frame.filename), frame.lineno)
                error = {
                    "type": type(exc).__name__,
                    "message": str(exc).split("\n")[0],
                    "cell": place[0],
                    "line": place[1],
                }
                break
            finally:
                printed[-1] = buffer.getvalue()
    finally:
        del sys.modules["__notebook__"]
    return printed, error


NOTEBOOKS = {lesson.id: lesson.code for lesson in lessons() if lesson.code} | SHARED_STATE


@pytest.fixture(scope="module")
def torch_oracle() -> None:
    pytest.importorskip("torch")


def test_every_lesson_with_code_is_here() -> None:
    assert {"autodiff-and-computation-graphs", "lesson-3.9-pytorch-internals"} <= set(NOTEBOOKS)
    assert len([lesson for lesson in lessons() if lesson.code]) == 3


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_each_cells_output_matches_pytorch(torch_oracle: None, name: str) -> None:
    cells = NOTEBOOKS[name]
    expected, want_error = run_cells_with_torch(cells)
    got = run_notebook(cells, wall_clock_s=20.0)
    ran = [c["cell"] for c in got["cells"]]
    assert ran == list(range(1, len(expected) + 1)), (ran, got["error"])
    for cell, (ours, theirs) in enumerate(zip(got["cells"], expected, strict=True), 1):
        assert same_output(ours["stdout"], theirs), (name, cell, ours["stdout"], theirs)
    if want_error is None:
        assert got["ok"], got["error"]
        return
    error = got["error"]
    assert error is not None, "PyTorch failed but the playground did not"
    assert (error["type"], error["message"].split("\n")[0], error["cell"], error["line"]) == (
        want_error["type"],
        want_error["message"],
        want_error["cell"],
        want_error["line"],
    )


@pytest.mark.parametrize("name", ["state-across-cells", "module-across-cells"])
def test_running_an_earlier_cell_prints_what_those_cells_printed(
    torch_oracle: None, name: str
) -> None:
    """Showing cell k runs cells 1..k only, from the same seed: the same outputs again."""
    cells = NOTEBOOKS[name]
    expected, _ = run_cells_with_torch(cells[:2])
    got = run_notebook(cells, 2, wall_clock_s=20.0)
    assert [c["cell"] for c in got["cells"]] == [1, 2]
    for ours, theirs in zip(got["cells"], expected, strict=True):
        assert same_output(ours["stdout"], theirs), (ours["stdout"], theirs)
