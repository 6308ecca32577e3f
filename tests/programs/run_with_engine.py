"""Run a lesson-style program with the engine standing in for ``torch`` (test harness only).

This executes trusted test files from tests/programs/, never user text.
"""

from __future__ import annotations

import runpy
import sys

import engine

sys.modules["torch"] = engine
sys.modules["torch.nn"] = engine.nn
sys.modules["torch.nn.functional"] = engine.nn.functional
sys.modules["torch.optim"] = engine.optim
sys.modules["torch.autograd"] = engine.autograd

if __name__ == "__main__":
    runpy.run_path(sys.argv[1], run_name="__main__")
