"""A run as a stream: what the program prints while it runs, then its answer.

``POST /api/v1/run/stream`` answers with newline-delimited JSON, one ``RunStreamEvent`` a line:
``start`` once the run has a slot, ``stdout`` with each piece the program printed (pieces that
arrive together are sent together, at most every ``COALESCE_S``), ``progress`` when nothing was
printed for ``HEARTBEAT_S``, and last ``result`` with the whole ``RunResponse`` (the one
``POST /api/v1/run`` would have answered), or ``busy`` when no worker became ready in time.
Each carries ``elapsed_ms`` since the run started. A notebook's run (``POST
/api/v1/notebook/run/stream``) also says ``cell`` as each cell starts, in order with the
output, so that a page shows each cell's output under it.

Closing the connection stops the run: its worker is killed at once (:class:`Cancel`), so a page
that stops a program, or replaces it with a newer run, frees the worker and the slot for the
next one. The run itself is :meth:`Sandbox.run` in a thread; this module only relays.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import AsyncIterator, Callable, Mapping
from typing import Any

import orjson
from starlette.responses import StreamingResponse

from server.runs import responses
from server.sandbox.drive import Cancel, Outcome
from server.sandbox.pool import PoolBusy, Sandbox

#: a quiet program still shows the page it is alive this often
HEARTBEAT_S = 0.5
#: output that arrives faster than this is sent in one event (a page redraws once, not per
#: line); the answer at the run's end is sent at once
COALESCE_S = 0.05
MEDIA_TYPE = "application/x-ndjson"


class NdjsonResponse(StreamingResponse):
    """A streamed answer of newline-delimited JSON."""

    media_type = MEDIA_TYPE


def event_line(event: str, elapsed_s: float, **fields: Any) -> bytes:
    """One NDJSON line: ``{"event": ..., "elapsed_ms": ..., **fields}``."""
    return (
        orjson.dumps({"event": event, "elapsed_ms": round(elapsed_s * 1000, 1), **fields}) + b"\n"
    )


class RunStream:
    """One streamed run. ``events()`` runs it and yields its NDJSON lines; ``close()`` (also
    called when the connection closes, or when the response was never sent) stops a run still
    going and gives its admission slot back exactly once, when its worker is done."""

    def __init__(
        self,
        sandbox: Sandbox,
        job: Mapping[str, Any],
        queue_timeout_s: float,
        release: Callable[[tuple[Outcome, bool] | None, float], None],
        respond: responses.ProgramAnswer,
        on_long: Callable[[], None] | None = None,
    ) -> None:
        self.sandbox = sandbox
        self.job = job
        self.queue_timeout_s = queue_timeout_s
        #: the answer from the outcome (a notebook's differs from a program's), made in the
        #: run's thread (or a parser process), never on the event loop
        self.respond = respond
        self.cancel = Cancel()
        self._release = release
        self.on_long = on_long
        self._released = False
        self._started = False
        self._t0: float | None = None

    def stop_softly(self) -> None:
        """Stop the program where it is, keeping what it printed and recorded (the answer
        still comes, as an error at that line): a page's Stop over a WebSocket."""
        self.cancel.stop_softly()

    def elapsed_s(self) -> float:
        """Seconds since the run started (0 before)."""
        return 0.0 if self._t0 is None else time.monotonic() - self._t0

    def close(self) -> None:
        """Stop the run if it is still going; a run never started gives its slot back now."""
        self.cancel.set()
        if not self._started:
            self._give_back(None, 0.0)

    def _give_back(self, ran: tuple[Outcome, bool] | None, seconds: float) -> None:
        if not self._released:
            self._released = True
            self._release(ran, seconds)

    async def events(self) -> AsyncIterator[bytes]:
        if self._released:  # closed before it began
            return
        self._started = True
        loop = asyncio.get_running_loop()
        wake = asyncio.Event()
        lock = threading.Lock()
        parts: list[str | int] = []  # output, and the number of each cell as it starts
        waiting = False
        started = self._t0 = time.monotonic()

        def arrived(part: str | int) -> None:  # the pool's thread
            nonlocal waiting
            with lock:
                parts.append(part)
                if waiting:
                    return
                waiting = True
            with contextlib.suppress(RuntimeError):  # the loop is closing: nobody is listening
                loop.call_soon_threadsafe(wake.set)

        def take() -> list[str | int]:
            """What arrived since the last look, output pieces that came together joined."""
            nonlocal waiting
            with lock:
                taken: list[str | int] = []
                for part in parts:
                    if isinstance(part, str) and taken and isinstance(taken[-1], str):
                        taken[-1] += part
                    else:
                        taken.append(part)
                parts.clear()
                waiting = False
            wake.clear()
            return taken

        def lines(taken: list[str | int], elapsed_s: float) -> list[bytes]:
            return [
                event_line("stdout", elapsed_s, text=part)
                if isinstance(part, str)
                else event_line("cell", elapsed_s, cell=part)
                for part in taken
                if part != ""
            ]

        def run() -> tuple[Outcome, responses.Answer]:
            outcome = self.sandbox.run(
                self.job,
                self.queue_timeout_s,
                cancel=self.cancel,
                on_stdout=arrived,
                on_cell=arrived,
                on_long=self.on_long,
            )
            return outcome, self.respond.off_loop(outcome)

        future = loop.run_in_executor(None, run)

        def finished(done: asyncio.Future[tuple[Outcome, responses.Answer]]) -> None:
            ran = None
            if not done.cancelled() and done.exception() is None:
                outcome, (_, ok) = done.result()
                ran = (outcome, ok)
            self._give_back(ran, time.monotonic() - started)

        future.add_done_callback(finished)
        try:
            yield event_line("start", 0.0)
            while not future.done():
                woken: asyncio.Future[Any] = asyncio.ensure_future(wake.wait())
                pending: set[asyncio.Future[Any]] = {future, woken}
                try:
                    await asyncio.wait(
                        pending, timeout=HEARTBEAT_S, return_when=asyncio.FIRST_COMPLETED
                    )
                finally:
                    woken.cancel()
                events = lines(take(), time.monotonic() - started)
                if events:
                    for line in events:
                        yield line
                    if not future.done():
                        # more output within the window goes out together; the run's end
                        # does not wait for the window (a program that prints as it ends
                        # would otherwise answer COALESCE_S late)
                        await asyncio.wait({future}, timeout=COALESCE_S)
                elif not future.done():
                    yield event_line("progress", time.monotonic() - started)
            elapsed = time.monotonic() - started
            for line in lines(take(), elapsed):  # what arrived after the last look
                yield line
            try:
                _, (body, _) = future.result()
            except PoolBusy:
                yield event_line("busy", elapsed, retry_after_s=1)
                return
            yield result_line(body, elapsed)
        finally:
            if not future.done():  # the connection closed (or the page moved on): stop it
                self.cancel.set()


def result_line(body: bytes, elapsed_s: float = 0.0) -> bytes:
    """The ``result`` event's line around a response's JSON ``body`` (not parsed again)."""
    return event_line("result", elapsed_s)[:-2] + b',"response":' + body + b"}\n"


async def single_result(body: bytes) -> AsyncIterator[bytes]:
    """A stream of one ``result`` event (a request refused before any run, e.g. its device)."""
    yield result_line(body)
