"""The worker process: receive a job, run it, send the JSON response bytes back.

Imported by the forkserver before it forks (``set_forkserver_preload``), so NumPy, the
engine and the sandbox tables are loaded once and each worker starts in milliseconds.
"""

from __future__ import annotations

import contextlib
import resource
import sys
from multiprocessing.connection import Connection
from typing import Any

import orjson

from server.sandbox import namespace
from server.sandbox.runner import run_program

with contextlib.suppress(Exception):  # warm the tables (and the engine import) before forking
    namespace.modules()
    namespace.rules_for(0)


def encode(result: dict[str, Any]) -> bytes:
    """The response body; unknown types become strings rather than errors."""
    return orjson.dumps(result, option=orjson.OPT_SERIALIZE_NUMPY, default=str)


def main(conn: Connection, memory_limit_bytes: int) -> None:
    """Serve jobs from the pipe until it closes."""
    if memory_limit_bytes > 0:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit_bytes, memory_limit_bytes))
    sys.setrecursionlimit(20_000)
    from engine import backend
    from server.settings import get_settings

    # A no-op without CuPy; with it, one program cannot take the whole card.
    backend.set_cuda_memory_limit(get_settings().cuda_memory_limit_bytes)
    while True:
        try:
            job = conn.recv()
        except (EOFError, OSError):
            return
        try:
            body = encode(run_program(job))
        except BaseException as exc:
            body = encode(
                {
                    "ok": False, "stdout": "", "graph": None, "passes": [], "notice": None,
                    "device": job.get("device", "cpu"), "timing_ms": {},
                    "error": {"type": "RuntimeError", "message": f"internal error: {type(exc).__name__}", "line": None, "col": None},
                }
            )  # fmt: skip
        try:
            conn.send_bytes(body)
        except (BrokenPipeError, OSError):
            return
