"""Programs in the patterns of public tutorials print, through the playground, what PyTorch prints.

Each file in tests/programs/tutorials/ is a learner's program written after a section of a public
course (PyTorch's "Learning PyTorch with Examples", the 60-minute blitz and "Learn the Basics",
the NLP tutorial, d2l.ai chapters 2-6 in their PyTorch tabs, micrograd and the makemore lectures
of "Neural Networks: Zero to Hero"): the same structure, APIs, sizes and loop lengths, in our own
words, with embedded data where the tutorial reads a file or downloads one. Each runs under real
CPython + PyTorch in a few seconds on one thread (line 1 of each says how long) and prints what a
learner watches; through the sandbox it runs with the product's default budgets, only the wall
clock raised for CI's slow machine, because the point is that the defaults never stop a program
PyTorch runs. Its stdout must be PyTorch's (numbers within float32 rounding, object addresses
aside) and it must end without an error.

Numbers are compared as the lessons compare them (tests/api/differential.py: one unit in the last
printed place plus PROGRAM_ROUNDINGS roundings). Where a long fit decides a print by its float32
roundings (the two-layer net's residual after 300 steps, RMSprop's oscillation, a minibatch loss
after thousands of SGD steps, an estimate equal to its SGD noise), PyTorch's own kernels
disagree with each other beyond that (ATEN_CPU_CAPABILITY=default and MKL_CBWR=COMPATIBLE against
the native ones: 1e-4 to 1e-2 relative), so those programs print the digits that survive it, and
say so where they do.

Setup a course repeats from program to program (makemore's word list and dataset, d2l's saved
functions, the two-layer net of "Learning with Examples") stands once, as a prelude: a file in
that folder whose name starts with an underscore (``_makemore_names.py``), never collected as a
program. A program names it on a line of its own, ``# prelude: _makemore_names.py``, where its
text belongs, as a notebook runs a shared first cell; tests/preludes.py's ``load`` replaces each
such line with the prelude's text (less the prelude's opening comment), so what runs here, under
PyTorch and in the triage script is the whole program a learner would paste. Line numbers in a
failure are that whole program's.

`python -m tests.programs.tutorials.triage` runs every program both ways and prints a table.
"""

from __future__ import annotations

import functools
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import orjson
import pytest

from server.program.budgets import Budgets
from server.runs import responses
from server.settings import Settings
from tests.api.differential import run_with_torch, same_output
from tests.preludes import is_prelude, load
from tests.sandbox.helpers import sandbox

pytestmark = pytest.mark.torch

TUTORIAL_DIR = Path(__file__).parents[1] / "programs" / "tutorials"
#: the programs (the triage script and the preludes beside them are not)
TUTORIALS = sorted(p for p in TUTORIAL_DIR.glob("*.py") if p.stem != "triage" and not is_prelude(p))
#: CI's shared machine runs a 3 s program several times slower than a quiet one, and a loaded
#: one slower still (the programs are not reniced here: see run_default)
WALL_CLOCK_S = 120.0


@functools.cache
def default_budgets() -> Budgets:
    """The product's default budgets (server/settings.py), the wall clock raised for CI."""
    return replace(Budgets.from_settings(Settings()), wall_clock_s=WALL_CLOCK_S)


def run_default(source: str, seed: int = 0) -> dict[str, Any]:
    """The response body for ``source`` run through the real sandbox as /api/v1/run runs it,
    under the product's default budgets and memory limit (only the wall clock raised)."""
    budgets = default_budgets()
    job = {
        "source": source,
        "device": "cpu",
        "seed": seed,
        "bindings": {},
        "budgets": budgets.as_dict(),
    }
    # (not reniced: renicing is tests/api/test_serving.py's subject; here, on a machine whose
    # cores other processes keep busy, a reniced tutorial would run for many minutes)
    box = sandbox(budgets.wall_clock_s, Settings().sandbox_memory_limit_bytes, renice=False)
    body: dict[str, Any] = orjson.loads(responses.respond(box.run(job), "cpu", box.mode == "none"))
    return body


def first_difference(ours: str, theirs: str) -> str:
    """The first line where two outputs part (for a failure message a person can act on)."""
    our_lines, their_lines = ours.splitlines(), theirs.splitlines()
    for n, (a, b) in enumerate(zip(our_lines, their_lines, strict=False), start=1):
        if not same_output(a, b):
            return f"line {n}: playground {a!r}, PyTorch {b!r}"
    return f"playground printed {len(our_lines)} lines, PyTorch {len(their_lines)}"


@pytest.fixture(scope="module")
def torch_oracle() -> None:
    pytest.importorskip("torch")


def test_there_are_many_tutorials() -> None:
    assert len(TUTORIALS) >= 45


def test_the_budgets_are_the_products() -> None:
    """Only the wall clock differs from what `python -m server` runs programs with."""
    product = Budgets.from_settings(Settings())
    assert replace(default_budgets(), wall_clock_s=product.wall_clock_s) == product


@pytest.mark.parametrize("program", TUTORIALS, ids=[p.stem for p in TUTORIALS])
def test_tutorial_matches_pytorch(torch_oracle: None, program: Path) -> None:
    source = load(program)
    expected = run_with_torch(source)
    assert expected["error"] is None, f"the program fails under PyTorch: {expected['error']}"
    got = run_default(source)
    error = got["error"]
    assert got["ok"], (
        f"{error['type']}: {error['message'].splitlines()[0] if error['message'] else ''} "
        f"(line {error['line']}); output so far: {first_difference(got['stdout'], expected['stdout'])}"
    )
    assert same_output(got["stdout"], expected["stdout"]), first_difference(
        got["stdout"], expected["stdout"]
    )


NUMPY_DRAWS = (
    "import numpy as np\nprint(np.random.randn(4))\nprint(np.random.randint(0, 1000, 6))\n"
)


@pytest.mark.parametrize("seed", [0, 1234])
def test_numpy_global_generator_follows_the_request_seed(seed: int) -> None:
    """A program that does not seed NumPy draws what np.random.seed(request seed) draws, as its
    torch draws what torch.manual_seed(request seed) draws; each run starts from that seed."""
    np.random.seed(seed)
    want = f"{np.random.randn(4)}\n{np.random.randint(0, 1000, 6)}\n"
    np.random.seed(None)
    for _ in range(2):  # a second run starts from the seed again, not where the first ended
        got = run_default(NUMPY_DRAWS, seed=seed)
        assert got["ok"], got["error"]
        assert got["stdout"] == want
