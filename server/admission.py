"""Admission control: a bounded, fair queue in front of the work (programs and training).

At most ``slots`` pieces of short work run at once. A program that turns out long (it has used
a short slice of CPU: the sandbox says so) is *demoted*: it moves to one of ``long_slots`` slots
of its own, and its short slot goes at once to the next request in line, so a few endless loops
cannot hold the slots a classroom's quick runs need (the sandbox also lowers its CPU priority).
When the long slots are full, long work keeps its short slot until one frees.

Beyond the slots, up to ``queue_limit`` requests wait, served round-robin across clients and,
within a client (one address: a school behind one NAT), across its browser sessions, so that
neither a busy address nor a busy student starves the others, and never longer than
``max_wait_s`` (``admission_max_wait_s``, at most the wall clock): turns are shared by address
first, so an address with many sessions gets no more turns than one with one.

A fair share bounds what one *tenant* (an address and one of its sessions) holds: ``share`` =
(short slots, long slots, requests waiting). A tenant at its short share waits in its own line
however many slots are free (the others pass it); one with its waiting share full is refused
at once with 429 (its own load, not the service's); a second long program of a tenant keeps
its short slot until the first ends (``Ticket.on_overdue`` lets the caller cut it short).

A request that would wait longer, or find the queue full, is refused at once with the time the
queue needs to drain (``Retry-After``), which the API answers as 503: overload is shed, never
turned into slow answers or 5xx errors.

All of it runs on the event loop (no locks): callers are ``async`` endpoints; a thread hands
a demotion over with ``loop.call_soon_threadsafe``.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections import OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass


class Busy(Exception):
    """Refused: the queue is full or the wait would be too long (503), or this client already
    has as much waiting as it may (429: its own share, not the service's load)."""

    def __init__(self, retry_after: int, reason: str, status: int = 503) -> None:
        super().__init__(reason)
        self.retry_after = retry_after
        self.reason = reason
        self.status = status


@dataclass
class Counters:
    admitted: int = 0
    queued: int = 0
    refused_full: int = 0
    refused_wait: int = 0
    timed_out: int = 0
    demoted: int = 0
    refused_share: int = 0  # a client with its share of the queue already waiting (429)


#: who holds work: (client address, browser session)
Tenant = tuple[str, str]


@dataclass(eq=False)
class Ticket:
    """One piece of admitted work (what :meth:`Admission.enter` returns and
    :meth:`Admission.slot` yields)."""

    started: float
    tenant: Tenant = ("", "")
    long: bool = False  # it holds a long slot (it was demoted), not a short one
    done: bool = False
    demoted_at: float = 0.0
    #: told True when its work turns long and no long slot is free for it (it keeps its short
    #: slot meanwhile: the sandbox gives it a short while more), False once it gets one
    on_overdue: Callable[[bool], None] | None = None


@dataclass
class _Holding:
    """What one tenant holds and has waiting."""

    short: int = 0
    long: int = 0
    waiting: int = 0


class Admission:
    """``async with admission.slot(client, session) as ticket: ...`` around each piece of work."""

    def __init__(
        self,
        slots: int,
        queue_limit: int,
        max_wait_s: float,
        long_slots: int = 0,
        *,
        share: tuple[int, int, int] = (0, 0, 0),
    ) -> None:
        self.slots = max(1, slots)
        self.long_slots = max(0, long_slots)
        self.queue_limit = max(0, queue_limit)
        self.max_wait_s = max_wait_s
        #: what one tenant may hold: short slots, long slots, requests waiting (0: no limit)
        self.share_short, self.share_long, self.share_waiting = share
        self._holdings: dict[Tenant, _Holding] = {}
        self.running = 0  # short slots held
        self.running_long = 0
        # client -> its sessions -> their waiting requests, each level in round-robin order
        self._waiting: OrderedDict[str, OrderedDict[str, deque[asyncio.Future[None]]]] = (
            OrderedDict()
        )
        self._overdue: deque[Ticket] = deque()  # long work waiting for a long slot
        self._queued = 0
        self._service_s = 0.05  # EWMA of how long a piece of work holds a short slot
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

    def _holding(self, tenant: Tenant) -> _Holding:
        return self._holdings.setdefault(tenant, _Holding())

    def _tidy(self, tenant: Tenant) -> None:
        held = self._holdings.get(tenant)
        if held is not None and held == _Holding():
            del self._holdings[tenant]

    def _may_run(self, tenant: Tenant) -> bool:
        """Whether ``tenant`` is under its share of short slots."""
        held = self._holdings.get(tenant)
        return not self.share_short or held is None or held.short < self.share_short

    def _may_go_long(self, tenant: Tenant) -> bool:
        held = self._holdings.get(tenant)
        return not self.share_long or held is None or held.long < self.share_long

    async def enter(self, client: str, session: str = "") -> Ticket:
        """Take a short slot, waiting in line if need be; :class:`Busy` if refused. A tenant
        at its share waits in its own line (others pass it) however many slots are free."""
        tenant = (client, session)
        held = self._holding(tenant)
        if self.running < self.slots and self._may_run(tenant):
            # (a free slot means nobody who may run is waiting: a freed slot goes to them)
            self.running += 1
            held.short += 1
            self.counters.admitted += 1
            return Ticket(time.monotonic(), tenant)
        if self.share_waiting and held.waiting >= self.share_waiting:
            self.counters.refused_share += 1
            self._tidy(tenant)
            raise Busy(
                max(1, math.ceil(self._service_s)),
                f"this client already has {held.short} runs going and {held.waiting} waiting",
                status=429,
            )
        self._tidy(tenant)
        if self._queued >= self.queue_limit:
            self.counters.refused_full += 1
            raise Busy(self.retry_after(), "the queue is full")
        if self.drain_seconds(1) > self.max_wait_s:
            self.counters.refused_wait += 1
            raise Busy(
                self.retry_after(),
                "the wait would be longer than the queue allows (admission_max_wait_s)",
            )
        held = self._holding(tenant)
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(client, OrderedDict()).setdefault(session, deque()).append(future)
        self._queued += 1
        held.waiting += 1
        self.counters.queued += 1
        try:
            await asyncio.wait_for(asyncio.shield(future), self.max_wait_s)
        except TimeoutError:
            if future.done() and not future.cancelled():  # admitted in the same instant
                return Ticket(time.monotonic(), tenant)
            self._forget(client, session, future)
            self.counters.timed_out += 1
            raise Busy(
                self.retry_after(), "waited as long as the queue allows (admission_max_wait_s)"
            ) from None
        except asyncio.CancelledError:  # the client went away while waiting
            if future.done() and not future.cancelled():
                self.finish(Ticket(time.monotonic(), tenant))
            else:
                self._forget(client, session, future)
            raise
        return Ticket(time.monotonic(), tenant)

    def _forget(self, client: str, session: str, future: asyncio.Future[None]) -> None:
        sessions = self._waiting.get(client)
        queue = sessions.get(session) if sessions is not None else None
        if sessions is not None and queue is not None and future in queue:
            queue.remove(future)
            self._queued -= 1
            self._holding((client, session)).waiting -= 1
            self._tidy((client, session))
            if not queue:
                del sessions[session]
            if not sessions:
                del self._waiting[client]
        future.cancel()

    def _next_waiter(self) -> tuple[asyncio.Future[None], Tenant] | None:
        """The next request in line that may run (None if none may): the first client's first
        session under its share; each goes last in its round once served, if it has more
        waiting."""
        for client, sessions in self._waiting.items():
            for session, queue in sessions.items():
                if not self._may_run((client, session)):
                    continue
                future = queue.popleft()
                self._queued -= 1
                self._holding((client, session)).waiting -= 1
                if queue:
                    sessions.move_to_end(session)
                else:
                    del sessions[session]
                if sessions:
                    self._waiting.move_to_end(client)
                else:
                    del self._waiting[client]
                return future, (client, session)
        return None

    def leave(self, seconds: float) -> None:
        """A piece of work left its short slot after ``seconds``: the slot goes to the next in
        line that may run."""
        if seconds > 0:
            self._service_s = 0.8 * self._service_s + 0.2 * seconds
        while (waiter := self._next_waiter()) is not None:
            future, tenant = waiter
            if not future.done():
                future.set_result(None)
                self._holding(tenant).short += 1
                self.counters.admitted += 1
                return  # the slot passes straight to it: running stays the same
            self._tidy(tenant)
        self.running -= 1

    def _release_short(self, ticket: Ticket, seconds: float) -> None:
        """``ticket``'s short slot is free: its tenant holds one less, and the next in line
        (perhaps a request of the same tenant, now under its share) gets it."""
        held = self._holding(ticket.tenant)
        held.short = max(0, held.short - 1)
        self.leave(seconds)
        self._tidy(ticket.tenant)

    def demote(self, ticket: Ticket) -> None:
        """``ticket``'s work has turned out long: move it to a long slot, and give its short
        slot to the next in line (or, with every long slot taken, let it wait for one)."""
        if ticket.done or ticket.long:
            return
        if self.running_long >= self.long_slots or not self._may_go_long(ticket.tenant):
            if ticket not in self._overdue:
                self._overdue.append(ticket)
                if ticket.on_overdue is not None:
                    ticket.on_overdue(True)
            return
        ticket.long = True
        ticket.demoted_at = time.monotonic()
        self.running_long += 1
        self._holding(ticket.tenant).long += 1
        self.counters.demoted += 1
        self._release_short(ticket, ticket.demoted_at - ticket.started)

    def finish(self, ticket: Ticket) -> None:
        """``ticket``'s work is done: free its slot."""
        if ticket.done:
            return
        ticket.done = True
        if not ticket.long:
            if ticket in self._overdue:
                self._overdue.remove(ticket)
            self._release_short(ticket, time.monotonic() - ticket.started)
            return
        self.running_long -= 1
        held = self._holding(ticket.tenant)
        held.long = max(0, held.long - 1)
        self._tidy(ticket.tenant)
        for overdue in list(self._overdue):  # the long work that can go long now, in order
            if self.running_long >= self.long_slots:
                break
            if self._may_go_long(overdue.tenant):
                self._overdue.remove(overdue)
                self.demote(overdue)
                if overdue.on_overdue is not None:
                    overdue.on_overdue(False)

    @asynccontextmanager
    async def slot(self, client: str, session: str = "") -> AsyncIterator[Ticket]:
        ticket = await self.enter(client, session)
        try:
            yield ticket
        finally:
            self.finish(ticket)
