"""POST /api/v1/train/stream: one run as server-sent events, for REST clients.

``progress`` events (one history row each) as steps finish, then one ``done`` event with the
whole TrainResponse. The steps run in a worker thread a few at a time, and the run stops at the
next chunk after the client hangs up.
"""

from __future__ import annotations

import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import anyio

from server.admission import Admission, Busy
from server.serialize import dumps
from server.training.trainer import Trainer

#: Steps one chunk runs in a worker thread between disconnect checks.
STREAM_CHUNK = 5


class RunCounter:
    """How many runs are going now and how many steps they took (tests watch a hang-up stop
    one)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active = 0
        self.steps = 0

    def add(self, delta: int) -> None:
        with self._lock:
            self.active += delta

    def took(self, steps: int) -> None:
        with self._lock:
            self.steps += steps


streams = RunCounter()


def event(name: str, payload: Any) -> bytes:
    """One server-sent event."""
    return b"event: " + name.encode() + b"\ndata: " + dumps(payload) + b"\n\n"


async def events(
    trainer: Trainer,
    is_disconnected: Callable[[], Awaitable[bool]],
    admission: Admission | None = None,
    client: str = "",
    session: str = "",
) -> AsyncIterator[bytes]:
    """The events of ``trainer``'s run of its request's ``steps``; each chunk takes a slot in
    the admission queue that programs share (a busy server slows the stream, never fails it)."""
    steps, include_graph = trainer.req.steps, trainer.req.include_graph
    streams.add(1)
    try:
        done = 0
        history: list[dict[str, Any]] = []
        while done < steps:
            if await is_disconnected():
                return
            chunk = min(STREAM_CHUNK, steps - done)
            last = done + chunk == steps
            if admission is not None:
                while True:
                    try:
                        await admission.enter(client, session)
                        break
                    except Busy as exc:
                        await anyio.sleep(min(float(exc.retry_after), 2.0))
            started = time.monotonic()
            try:
                rows = await anyio.to_thread.run_sync(
                    trainer.advance, chunk, include_graph and last
                )
            finally:
                if admission is not None:
                    admission.leave(time.monotonic() - started)
            done += chunk
            streams.took(chunk)
            history.extend(rows)
            for row in rows:
                yield event("progress", row)
        yield event("done", trainer.result(history, {}))
    finally:
        streams.add(-1)
