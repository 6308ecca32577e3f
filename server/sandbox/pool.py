"""A pool of worker processes that run programs, with a hard kill when one overruns.

Each worker is a forkserver child (NumPy and the engine preloaded, one BLAS thread) that
serves jobs over a pipe. The interpreter stops itself at the wall-clock budget; if a
worker has not answered ``grace_s`` later (stuck in one long native call, or dead), it is
killed and replaced, and the request gets a user error naming the budget.
"""

from __future__ import annotations

import atexit
import multiprocessing as mp
import os
import queue
import threading
from dataclasses import dataclass
from multiprocessing.connection import Connection
from multiprocessing.process import BaseProcess
from typing import Any

import orjson

# One BLAS/OpenMP thread per worker: set before the forkserver starts, inherited by workers.
_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS")


class PoolBusy(Exception):
    """No worker became free in time (answered as 429 by the API)."""


@dataclass(eq=False)
class _Worker:
    process: BaseProcess
    conn: Connection


def _error_body(job: dict[str, Any], type_name: str, message: str) -> bytes:
    return orjson.dumps(
        {
            "ok": False, "stdout": "", "graph": None, "passes": [], "notice": None,
            "device": job.get("device", "cpu"), "timing_ms": {},
            "error": {"type": type_name, "message": message, "line": None, "col": None},
        }
    )  # fmt: skip


class WorkerPool:
    """``size`` worker processes; ``run(job, timeout_s)`` returns the response body bytes."""

    def __init__(self, size: int, memory_limit_bytes: int = 0, grace_s: float = 1.0) -> None:
        for name in _THREAD_ENV:
            os.environ[name] = "1"
        self._ctx = mp.get_context("forkserver")
        self._ctx.set_forkserver_preload(["server.sandbox.worker"])
        self._memory_limit = memory_limit_bytes
        self.grace_s = grace_s
        self.size = size
        self._idle: queue.LifoQueue[_Worker] = (
            queue.LifoQueue()
        )  # warm caches: reuse the last worker
        self._all: set[_Worker] = set()
        self._lock = threading.Lock()
        self.kills = 0
        self._closed = False
        for _ in range(size):
            self._idle.put(self._spawn())

    def _spawn(self) -> _Worker:
        from server.sandbox import worker

        parent, child = self._ctx.Pipe(duplex=True)
        process = self._ctx.Process(
            target=worker.main, args=(child, self._memory_limit), daemon=True, name="sandbox-worker"
        )
        process.start()
        child.close()
        w = _Worker(process, parent)
        with self._lock:
            self._all.add(w)
        return w

    def _retire(self, w: _Worker) -> None:
        with self._lock:
            self._all.discard(w)
            self.kills += 1
        if w.process.is_alive():
            w.process.kill()
        w.process.join(timeout=5)
        w.conn.close()

    def run(self, job: dict[str, Any], timeout_s: float, queue_timeout_s: float = 30.0) -> bytes:
        """Run one job on a free worker; hard-kill it after ``timeout_s + grace_s``."""
        try:
            w = self._idle.get(timeout=queue_timeout_s)
        except queue.Empty:
            raise PoolBusy from None
        replacement: _Worker | None = None
        try:
            w.conn.send(job)
            if w.conn.poll(timeout_s + self.grace_s):
                return w.conn.recv_bytes()
            self._retire(w)
            replacement = self._spawn()
            return _error_body(
                job,
                "BudgetExceeded",
                f"program ran longer than {timeout_s:g} s and was stopped (budget: wall_clock_s)",
            )
        except (EOFError, OSError):
            self._retire(w)
            replacement = self._spawn()
            return _error_body(
                job,
                "BudgetExceeded",
                "the program's worker process ran out of memory or crashed and was replaced (budget: memory)",
            )
        finally:
            self._idle.put(replacement if replacement is not None else w)

    def close(self) -> None:
        """Stop every worker."""
        if self._closed:
            return
        self._closed = True
        with self._lock:
            workers = list(self._all)
            self._all.clear()
        for w in workers:
            if w.process.is_alive():
                w.process.kill()
            w.process.join(timeout=5)
            w.conn.close()


_POOLS: dict[tuple[int, int, float], WorkerPool] = {}
_POOLS_LOCK = threading.Lock()


def get_pool(size: int, memory_limit_bytes: int, grace_s: float) -> WorkerPool:
    """The process-wide pool for these parameters (created on first use, closed at exit)."""
    key = (size, memory_limit_bytes, grace_s)
    with _POOLS_LOCK:
        pool = _POOLS.get(key)
        if pool is None:
            pool = _POOLS[key] = WorkerPool(size, memory_limit_bytes, grace_s)
        return pool


@atexit.register
def _close_all() -> None:
    for pool in list(_POOLS.values()):
        pool.close()
