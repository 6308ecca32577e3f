"""Writes the page's packed-answer fixtures: a real answer of a 3-step training loop then one
scalar pass, as the server sends it (tests/e2e/fixtures/packed_run.json), and the same answer
decoded by the server's ``unpack_answer`` (packed_run_decoded.json). static/tests/passes.test.ts
decodes the first with the page's decoder and expects the second; tests/api/test_packing.py
checks the pair agrees with the server's decoder. Run again when the packing changes:

    python -m tests.api.packed_fixture
"""

from __future__ import annotations

from pathlib import Path

import orjson

from server.program.packing import unpack_answer
from tests.sandbox.helpers import run

FIXTURES = Path(__file__).parents[1] / "e2e" / "fixtures"


def loop_then_scalar(steps: int, scalar_dtype: str = "float32") -> str:
    """A training loop of ``steps`` passes (one structure), then one scalar pass (another)."""
    return f"""import torch
from torch import nn
torch.manual_seed(0)
model = nn.Linear(2, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
X = torch.tensor([[1.0, 2.0], [3.0, -1.0]])
y = torch.tensor([[1.0], [0.5]])
for step in range({steps}):
    loss = ((model(X) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
w = torch.tensor(2.0, requires_grad=True, dtype=torch.{scalar_dtype})
z = w * w + 3 * w
z.backward()
"""


PROGRAM = loop_then_scalar(3)


def main() -> None:
    body = run(PROGRAM)
    assert body["ok"], body["error"]
    body["timing_ms"] = {}  # (times differ run to run)
    options = orjson.OPT_INDENT_2
    (FIXTURES / "packed_run.json").write_bytes(orjson.dumps(body, option=options) + b"\n")
    decoded = unpack_answer(body)
    (FIXTURES / "packed_run_decoded.json").write_bytes(
        orjson.dumps(decoded, option=options) + b"\n"
    )


if __name__ == "__main__":
    main()
