"""One BLAS/OpenMP thread for the whole suite, set before NumPy or PyTorch is imported.

How a matrix product or a reduction splits its sums (and so how it rounds) must not depend on
how many cores the machine has: the sandbox's workers run single-threaded for the same reason
(server/sandbox/pool.py). pytest imports this file before any test module, so the variables
reach NumPy's OpenBLAS, PyTorch's OpenMP/MKL and every subprocess a test starts; threadpoolctl
then checks every thread pool loaded in this process: NumPy's at the start of the session,
PyTorch's (loaded by the first oracle test) at its end.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")

os.environ.update(dict.fromkeys(ONE_THREAD, "1"))


def wide_thread_pools() -> dict[str, int]:
    """Thread pools (BLAS, OpenMP) loaded in this process that run more than one thread."""
    from threadpoolctl import threadpool_info

    return {
        f"{pool['internal_api']} ({pool['filepath']})": pool["num_threads"]
        for pool in threadpool_info()
        if pool["num_threads"] != 1
    }


def pytest_sessionstart() -> None:
    import numpy  # noqa: F401  (loads OpenBLAS, so that threadpoolctl sees it)

    if wide := wide_thread_pools():  # e.g. a plugin imported NumPy before this file ran
        raise RuntimeError(f"thread pools not at one thread: {wide}")


def pytest_sessionfinish(session: pytest.Session) -> None:
    if wide := wide_thread_pools():
        print(f"\nERROR: thread pools not at one thread: {wide}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True)
def main_module_kept() -> Iterator[None]:
    """No test leaves another ``__main__`` behind: the in-process servers of later tests start
    their parser processes from it (server/sandbox/answers.py), and a program's ``<program>``
    cannot be re-imported there (it failed CI once)."""
    main = sys.modules.get("__main__")
    yield
    assert sys.modules.get("__main__") is main, "the test left sys.modules['__main__'] replaced"
