"""POST /api/v1/train/stream: one run as server-sent events, for REST clients.

``progress`` events (one history row each) as steps finish, then one ``done`` event with the
whole TrainResponse. The steps run in a thread of the training pool a few at a time, each chunk
under admission; the stream stops between two steps when the client hangs up, or when its wall
clock (``train_wall_clock_s``) runs out (then ``done`` says ``truncated``).
"""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator, Awaitable, Callable
from functools import partial
from typing import Any

import anyio

from server.admission import Admission
from server.serialize import dumps
from server.training.trainer import Trainer
from server.training.worker import StepClock, admitted, in_thread

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
    clock: StepClock | None = None,
    pool: Callable[[], anyio.CapacityLimiter] | None = None,
) -> AsyncIterator[bytes]:
    """The events of ``trainer``'s run of its request's ``steps``; each chunk takes a slot in
    the admission queue that programs share (a busy server slows the stream, never fails it)
    and runs in a thread of the training ``pool``. The ``clock`` starts with the first chunk's
    slot and bounds the whole stream: when it runs out the stream stops between two steps and its
    ``done`` event says so (``truncated``); a client that hangs up stops it at the next step."""
    steps, include_graph = trainer.req.steps, trainer.req.include_graph
    clock = clock if clock is not None else StepClock(float("inf"))
    streams.add(1)
    try:
        done = 0
        history: list[dict[str, Any]] = []
        while done < steps:
            if await is_disconnected():
                return
            if clock.started is not None and clock.should_stop():
                break
            chunk = min(STREAM_CHUNK, steps - done)
            last = done + chunk == steps
            async with admitted(admission, client, session):
                clock.start()  # from the first chunk's slot on: the whole stream's clock
                rows = await in_thread(
                    partial(trainer.advance, chunk, include_graph and last, clock),
                    clock,
                    pool() if pool is not None else None,
                )
            done += len(rows)
            streams.took(len(rows))
            history.extend(rows)
            for row in rows:
                yield event("progress", row)
            if len(rows) < chunk:
                break  # the clock stopped it (a hang-up ends the stream at the check above)
        if await is_disconnected() or clock.cancelled:
            return
        yield event("done", trainer.result(history, {}, clock=clock, asked=steps))
    finally:
        streams.add(-1)
