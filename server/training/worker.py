"""Where training runs: off the event loop, in a bounded pool of threads, under a wall clock.

Every training computation (a POST /train call, a chunk of a stream, a live update) takes its
steps in a worker thread of the app's training pool, at most ``train_threads`` at once (by
default one per core, at most admission's short slots), so that eight maximum-size requests
cannot hold the event loop, and no more threads than cores take turns at the GIL. (A run estimated
under ``INLINE_MS`` may still run on the loop: it is bounded by its estimate and the clock.)

A :class:`StepClock` goes with each computation: the trainer asks it between steps whether to
stop, and it says so once the wall clock (``train_wall_clock_s``, from when admission let the
work in: the wait for a thread of the pool counts, the wait in admission's queue does not) has
run out, or once the client has gone (the async side sets its cancel flag when the task
awaiting the thread is cancelled: a WebSocket or an event stream closed by the client). A
stopped call answers with the steps it took and a state to resume from.

The thread holds the GIL only between NumPy calls and drops it at least every
``sys.getswitchinterval()`` (5 ms), so the event loop keeps answering while it runs
(tests/api/test_train_wall_clock.py measures /healthz during eight maximum-size runs).
"""

from __future__ import annotations

import asyncio
import os
import threading
import time
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any, Literal, TypeVar

import anyio

from server.admission import Admission, Busy
from server.settings import Settings

T = TypeVar("T")

StopReason = Literal["wall_clock", "cancelled"]


def wall_clock_s(settings: Settings) -> float:
    """Seconds a training computation (a call, a stream, a live update) may take."""
    return settings.train_wall_clock_s


class StepClock:
    """Says when a run must stop between two steps: its wall clock ran out, or it was
    cancelled (its client went away). Thread-safe: the trainer asks from a worker thread."""

    def __init__(self, budget_s: float) -> None:
        self.budget_s = budget_s
        self.started: float | None = None
        self.deadline = float("inf")
        self._cancelled = threading.Event()
        self.reason: StopReason | None = None

    def start(self) -> None:
        """Start the clock (once: later calls keep the first start). Callers start it when
        the work is admitted, so that the wait for a thread of the pool counts too and an
        answer comes within the clock however busy the pool is."""
        if self.started is None:
            self.started = time.monotonic()
            self.deadline = self.started + self.budget_s

    def cancel(self) -> None:
        self._cancelled.set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def should_stop(self, first: bool = False) -> bool:
        """True (and ``reason`` set) once the run must stop; asked before each step. The
        ``first`` step of a call is taken however late it is (only a hang-up stops it), so
        that every answer makes progress."""
        self.start()
        if self._cancelled.is_set():
            self.reason = "cancelled"
        elif not first and time.monotonic() >= self.deadline:
            self.reason = "wall_clock"
        return self.reason is not None


def limiter(state: Any, size: int) -> anyio.CapacityLimiter:
    """The app's training pool (``state``: ``app.state``), made on first use in this event
    loop: a TestClient's loop, or the server's."""
    loop = asyncio.get_running_loop()
    held: tuple[asyncio.AbstractEventLoop, anyio.CapacityLimiter] | None = getattr(
        state, "train_limiter", None
    )
    if held is None or held[0] is not loop:
        held = (loop, anyio.CapacityLimiter(max(1, size)))
        state.train_limiter = held
    return held[1]


def pool_size(settings: Settings, admission: Any) -> int:
    """Training threads at once: ``train_threads``, or else as many as the cores, and never
    more than admission's short slots. More threads than cores only take turns at the GIL:
    eight maximum-size runs in eight threads on two cores each took 17 s, two at a time 1 s
    each (4.6 s for all eight)."""
    configured = settings.train_threads
    if configured > 0:
        return configured
    slots = int(getattr(admission, "slots", 0) or getattr(settings, "sandbox_workers", 1) or 1)
    return max(1, min(slots, os.cpu_count() or 1))


@asynccontextmanager
async def admitted(admission: Admission | None, client: str, session: str) -> AsyncIterator[None]:
    """Hold a slot of ``admission`` (the queue programs share) while the block runs, waiting
    and asking again while refused: a busy server slows a stream or a live run, never fails
    it. No admission (a unit test): no slot."""
    async with AsyncExitStack() as stack:
        while admission is not None:
            try:
                await stack.enter_async_context(admission.slot(client, session))
                break
            except Busy as exc:
                await anyio.sleep(min(float(exc.retry_after), 2.0))
        yield


async def in_thread(
    work: Callable[[], T], clock: StepClock, pool: anyio.CapacityLimiter | None = None
) -> T:
    """``work()`` in a thread of ``pool``; if the awaiting task is cancelled meanwhile (the
    client went away), ``clock`` is cancelled so that the work stops at its next step (a
    thread cannot be interrupted; anyio waits for it, so this wait is short)."""
    finished = False
    outcome: list[T] = []
    error: Exception | None = None

    async def cancel_when_abandoned() -> None:
        try:
            await anyio.sleep_forever()
        finally:
            if not finished:
                clock.cancel()

    async with anyio.create_task_group() as group:
        group.start_soon(cancel_when_abandoned)
        try:
            outcome.append(await anyio.to_thread.run_sync(work, limiter=pool))
        except Exception as exc:  # re-raised below, not wrapped in an ExceptionGroup
            error = exc
        finally:
            finished = True
            group.cancel_scope.cancel()
    if error is not None:
        raise error
    return outcome[0]
