"""Admission control: a bounded, fair queue in front of the work (programs and training).

At most ``slots`` pieces of work run at once (the sandbox's workers). Beyond them, up to
``queue_limit`` requests wait, served round-robin across clients so that one busy client cannot
starve the others, and never longer than ``max_wait_s`` (at most the wall-clock budget). A
request that would wait longer, or find the queue full, is refused at once with the time the
queue needs to drain (``Retry-After``), which the API answers as 503: overload is shed, never
turned into slow answers or 5xx errors.

All of it runs on the event loop (no locks): callers are ``async`` endpoints.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass


class Busy(Exception):
    """Refused: the queue is full or the wait would be too long."""

    def __init__(self, retry_after: int, reason: str) -> None:
        super().__init__(reason)
        self.retry_after = retry_after
        self.reason = reason


@dataclass
class Counters:
    admitted: int = 0
    queued: int = 0
    refused_full: int = 0
    refused_wait: int = 0
    timed_out: int = 0


class Admission:
    """``async with admission.slot(client): ...`` around each piece of work."""

    def __init__(self, slots: int, queue_limit: int, max_wait_s: float) -> None:
        self.slots = max(1, slots)
        self.queue_limit = max(0, queue_limit)
        self.max_wait_s = max_wait_s
        self.running = 0
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()
        self._queued = 0
        self._service_s = 0.05  # EWMA of how long a piece of work holds a slot
        self.counters = Counters()

    # ---- state ----------------------------------------------------------------------------------

    @property
    def queued(self) -> int:
        return self._queued

    def drain_seconds(self, extra: int = 0) -> float:
        """How long the queue (plus ``extra`` more) needs to drain at the current pace."""
        return (self._queued + extra) * self._service_s / self.slots

    def retry_after(self) -> int:
        return max(1, math.ceil(self.drain_seconds(1)))

    # ---- entering and leaving ---------------------------------------------------------------------

    async def enter(self, client: str) -> None:
        if self.running < self.slots and self._queued == 0:
            self.running += 1
            self.counters.admitted += 1
            return
        if self._queued >= self.queue_limit:
            self.counters.refused_full += 1
            raise Busy(self.retry_after(), "the queue is full")
        if self.drain_seconds(1) > self.max_wait_s:
            self.counters.refused_wait += 1
            raise Busy(self.retry_after(), "the wait would be longer than the wall-clock budget")
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(client, deque()).append(future)
        self._queued += 1
        self.counters.queued += 1
        try:
            await asyncio.wait_for(asyncio.shield(future), self.max_wait_s)
        except TimeoutError:
            if future.done() and not future.cancelled():  # admitted in the same instant
                return
            self._forget(client, future)
            self.counters.timed_out += 1
            raise Busy(self.retry_after(), "waited as long as the wall-clock budget") from None
        except asyncio.CancelledError:  # the client went away while waiting
            if future.done() and not future.cancelled():
                self.leave(0.0)
            else:
                self._forget(client, future)
            raise

    def _forget(self, client: str, future: asyncio.Future[None]) -> None:
        queue = self._waiting.get(client)
        if queue is not None and future in queue:
            queue.remove(future)
            self._queued -= 1
            if not queue:
                del self._waiting[client]
        future.cancel()

    def leave(self, seconds: float) -> None:
        """A piece of work ended after ``seconds``: its slot goes to the next client in turn."""
        if seconds > 0:
            self._service_s = 0.8 * self._service_s + 0.2 * seconds
        while self._waiting:
            client, queue = next(iter(self._waiting.items()))
            future = queue.popleft()
            self._queued -= 1
            if queue:
                self._waiting.move_to_end(client)  # round-robin: this client goes last
            else:
                del self._waiting[client]
            if not future.done():
                future.set_result(None)
                self.counters.admitted += 1
                return  # the slot passes straight to it: running stays the same
        self.running -= 1

    @asynccontextmanager
    async def slot(self, client: str) -> AsyncIterator[None]:
        await self.enter(client)
        started = time.monotonic()
        try:
            yield
        finally:
            self.leave(time.monotonic() - started)
