"""The pool's own behaviour: ready workers, one-shot processes, long programs yielding the CPU."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from server.program.budgets import Budgets
from server.sandbox.pool import Sandbox, SandboxConfig


def _niceness(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16])  # field 19 of stat: nice (fields[0] is field 3)


def test_a_long_program_yields_the_cpu_to_short_ones() -> None:
    box = Sandbox(SandboxConfig(workers=2, wall_clock_s=4.0))
    try:
        results: list[Any] = []
        job = {"source": "while True:\n    pass", "budgets": Budgets(wall_clock_s=4.0).as_dict()}
        thread = threading.Thread(target=lambda: results.append(box.run(job)))
        thread.start()
        # past a slice of CPU (0.5 s) it yields to nice 10, past three to 19
        deadline = time.monotonic() + 3.9
        while time.monotonic() < deadline and not any(w.niceness == 19 for w in box._busy.values()):
            time.sleep(0.05)
        busy = dict(box._busy)
        assert len(busy) == 1
        ((pid, worker),) = busy.items()
        assert worker.niceness == 19
        assert _niceness(pid) == 19  # the kernel applied it
        quick = box.run({"source": "print(1)", "budgets": Budgets().as_dict()})
        assert quick.result is not None and quick.stdout == "1\n"
        thread.join()
    finally:
        box.close()
    outcome = results[0]
    error = outcome.error or outcome.result["error"]
    assert error["type"] == "TimeoutError"


def test_every_program_gets_a_fresh_process() -> None:
    box = Sandbox(SandboxConfig(workers=2))
    try:
        job = {"source": "import warnings\nprint(warnings.sys.modules['os'].getpid())",
               "budgets": Budgets().as_dict()}  # fmt: skip
        pids = {box.run(job).stdout for _ in range(6)}
    finally:
        box.close()
    assert len(pids) == 6
