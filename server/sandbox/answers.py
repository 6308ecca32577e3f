"""A worker's answer is hostile input: bounded by size before it is parsed, and parsed off the
event loop.

A jailed program can write anything into its result pipe, so the ``RESULT`` frame it sends back
is treated like a request from the internet (as Compiler Explorer and Jupyter kernels treat
what their sandboxes send):

1. **Bounded before parsing.** The frame is capped (``max_answer_bytes``, checked by the frame
   reader from its header, before its payload is buffered), and the number of JSON objects and
   arrays in it is counted from the raw bytes (``max_answer_items``: each ``{`` or ``[``, in a
   string or not, is counted: an upper bound) before a single Python object is built. A forged
   answer of a million empty items is refused here in a millisecond, as a malformed answer.
2. **Parsed off the event loop.** An answer small enough to parse in a few milliseconds
   (``INLINE_BYTES``, ``INLINE_ITEMS``: every tiny run's) is parsed and validated in the thread
   that ran the program. A bigger one goes to a small pool of processes: parsing and pydantic's
   validation hold the GIL for their whole call (hundreds of milliseconds for a big answer),
   which in a thread would stall the event loop beside it. The processes are recycled after a
   few answers, so the memory a big answer took goes back to the system, and each ends when
   the server does, however it ends (a parser blocked on its queue would otherwise outlive a
   killed server, and keep its forkserver alive with it).

Nothing here knows the answer's shape: :mod:`server.runs.responses` validates it against the
public schema and cuts its text to the output cap.
"""

from __future__ import annotations

import atexit
import concurrent.futures
import contextlib
import multiprocessing
import os
import select
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import orjson

#: answers up to this size, with at most INLINE_ITEMS objects and arrays, are parsed in the
#: run's own thread (a few milliseconds at most); bigger ones in the parser processes
INLINE_BYTES = 256 * 1024
INLINE_ITEMS = 8_000
#: parser processes (each parses one answer at a time), and answers each parses before it is
#: replaced (a big answer's memory goes back to the system with its process)
PARSERS = 2
ANSWERS_PER_PARSER = 16
#: an answer that takes longer than this to parse is refused (a bounded answer never does)
PARSE_TIMEOUT_S = 30.0

T = TypeVar("T")


class MalformedAnswer(ValueError):
    """The worker's answer is over a bound, or not a JSON object."""


def items(raw: bytes) -> int:
    """An upper bound of the objects and arrays in a JSON text (every ``{`` and ``[``)."""
    return raw.count(b"{") + raw.count(b"[")


def decode(raw: bytes, max_items: int) -> dict[str, Any]:
    """The answer as a dict; :class:`MalformedAnswer` when it holds more than ``max_items``
    objects and arrays (counted before parsing), is not JSON, or is not an object."""
    count = items(raw)
    if count > max_items:
        raise MalformedAnswer(
            f"it holds more than {max_items:,} objects and arrays ({count:,}; budget: "
            "max_answer_items)"
        )
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        raise MalformedAnswer("it is not JSON") from None
    if not isinstance(value, dict):
        raise MalformedAnswer("it is not a JSON object")
    return value


def is_small(raw: bytes | None) -> bool:
    """Whether an answer is parsed in the caller's thread (else in a parser process)."""
    return raw is None or (len(raw) <= INLINE_BYTES and items(raw) <= INLINE_ITEMS)


_lock = threading.Lock()
_parsers: concurrent.futures.ProcessPoolExecutor | None = None


def _pool() -> concurrent.futures.ProcessPoolExecutor:
    """The parser processes, started on first use (forkserver: never a fork of this threaded
    process), shut down at exit."""
    global _parsers
    with _lock:
        if _parsers is None:
            _parsers = concurrent.futures.ProcessPoolExecutor(
                max_workers=PARSERS,
                mp_context=multiprocessing.get_context("forkserver"),
                max_tasks_per_child=ANSWERS_PER_PARSER,
                initializer=_end_with,
                initargs=(os.getpid(),),
            )
            atexit.register(_parsers.shutdown, wait=False, cancel_futures=True)
        return _parsers


def _end_with(server: int) -> None:
    """(In a parser process) end this process as soon as ``server`` has ended: its parent is
    the forkserver, not the server, and it may be waiting on a queue that no one will close."""

    def watch() -> None:
        try:
            pidfd = os.pidfd_open(server)
        except (AttributeError, OSError):  # (Linux < 5.3) look every half second
            while True:
                try:
                    os.kill(server, 0)
                except ProcessLookupError:
                    os._exit(0)
                except OSError:
                    pass
                time.sleep(0.5)
        with contextlib.suppress(OSError):
            select.select([pidfd], [], [])  # readable once the server has ended
        os._exit(0)

    threading.Thread(target=watch, name="end-with-the-server", daemon=True).start()


def off_loop(function: Callable[..., T], raw: bytes | None, *args: Any) -> T:
    """``function(*args)``, which parses the answer ``raw``: here when it is small, else in a
    parser process (``function`` and ``args`` must then pickle). Call it from a thread, never
    from the event loop: it blocks until the answer is parsed."""
    if is_small(raw):
        return function(*args)
    try:
        return _pool().submit(function, *args).result(PARSE_TIMEOUT_S)
    except concurrent.futures.BrokenExecutor:
        _reset()
        raise MalformedAnswer("its parser process died") from None
    except TimeoutError:
        _reset()
        raise MalformedAnswer(f"it took over {PARSE_TIMEOUT_S:g} s to parse") from None


def _reset() -> None:
    """Drop a pool whose process died or hung (its processes killed); the next big answer
    starts a new one."""
    global _parsers
    with _lock:
        broken, _parsers = _parsers, None
    if broken is None:
        return
    processes = dict(getattr(broken, "_processes", None) or {})  # no public way to kill them
    broken.shutdown(wait=False, cancel_futures=True)
    for process in processes.values():
        process.kill()
