"""The run service: a job through admission control and the sandbox to its answer, three ways.

- :meth:`RunService.answer`: the whole answer at the end (``POST /api/v1/run``), the run
  stopped if its client disconnects;
- :meth:`RunService.stream`: its events as newline-delimited JSON (``POST .../run/stream``);
- :meth:`RunService.open_live`: its events over a WebSocket, with a Stop that keeps what was
  recorded (``.../run/live``, :mod:`server.runs.live`).

Each takes an admission ticket for the client and session (``Busy``: 429 or 503 with
``Retry-After``), gives it back exactly once, counts the run in the metrics, and makes the
answer off the event loop (:mod:`server.runs.responses`). The routers (``server/routes``) only
validate, pick the job and the answer, and call one of these.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection, Request
from starlette.responses import Response

from engine import backend
from server.admission import Admission, Busy, Ticket
from server.clients import client_of, session_of
from server.metrics import Metrics, metrics_of
from server.runs import live, responses
from server.runs.jobs import Job
from server.runs.stream import NdjsonResponse, RunStream, event_line
from server.sandbox.drive import Cancel, Outcome
from server.sandbox.pool import PoolBusy, Sandbox
from server.serialize import OrjsonResponse, json_bytes_response
from server.settings import Settings, app_settings


def busy_response(retry_after: int, detail: str, status: int = 503) -> Response:
    """503 with Retry-After: the service is saturated right now (overload is shed here); 429:
    this client already has its share running and waiting."""
    return OrjsonResponse(
        {"detail": f"busy: {detail}; retry in {retry_after} s"},
        status_code=status,
        headers={"retry-after": str(retry_after)},
    )


def refused(exc: Busy, stats: Metrics | None) -> Response:
    """The answer for work admission control refused (counted by why)."""
    count_refusal(exc, stats)
    return busy_response(exc.retry_after, exc.reason, exc.status)


def count_refusal(exc: Busy, stats: Metrics | None) -> None:
    if stats is not None:
        why = "share" if exc.status == 429 else "queue_full" if "full" in exc.reason else "wait"
        stats.refusals.labels(why).inc()


def unavailable_device(device: str) -> str | None:
    """Why ``device`` cannot run programs here, or None."""
    info = {d["name"]: d for d in backend.devices()}
    kind = device.split(":")[0]
    if info.get(kind, {}).get("available", False):
        return None
    return str(info.get(kind, {}).get("reason") or "not available")


def device_error(device: str, reason: str) -> dict[str, Any]:
    """A program's answer for a device that is not here."""
    return responses.error_response(
        device, "RuntimeError", f"device '{device}' is not available: {reason}"
    )


def overdue_policy(cancel: Cancel, seconds: float) -> Callable[[bool], None]:
    """What a run does when it turns long with no long slot free for it: it keeps its short
    slot at most ``seconds`` more, then stops with a TimeoutError that says why (what it
    printed and recorded kept); given a long slot in time, it runs on to the wall clock."""

    def overdue(hurry: bool) -> None:
        if hurry:
            cancel.hurry(seconds)
        else:
            cancel.unhurry()

    return overdue


async def stop_when_gone(http: Request, stop: Callable[[], None]) -> None:
    """``stop()`` when the client disconnects: nobody is left to read the answer, and the
    worker (or training thread) and the slot are the class's. (The body has been read: what
    comes next is the end.) Run it as a task beside the work; cancel it when the work ends."""
    while True:
        message = await http.receive()
        if message["type"] == "http.disconnect":
            stop()
            return
        await asyncio.sleep(0.05)  # (nothing else is expected; never a busy loop)


@dataclass(frozen=True)
class RunService:
    """The app's sandbox, admission control, metrics and settings, for the connection of one
    client (its address and browser session): a FastAPI dependency (``server.routes.deps``)."""

    settings: Settings
    sandbox: Sandbox
    admission: Admission
    stats: Metrics | None
    client: str
    session: str

    @classmethod
    def of(cls, conn: HTTPConnection) -> RunService:
        """The service as the app behind ``conn`` has it, for ``conn``'s client."""
        state = conn.app.state
        return cls(
            app_settings(conn),
            state.sandbox,
            state.admission,
            metrics_of(conn.app),
            client_of(conn),
            session_of(conn),
        )

    @property
    def unjailed(self) -> bool:
        return self.sandbox.mode == "none"

    def _on_long(self, ticket: Ticket) -> Callable[[], None]:
        """A long program (a loop) leaves its short slot to the next (from the run's thread)."""
        loop = asyncio.get_running_loop()

        def long() -> None:
            loop.call_soon_threadsafe(self.admission.demote, ticket)

        return long

    async def answer(self, http: Request, job: Job, respond: responses.ProgramAnswer) -> Response:
        """Run ``job``; answer ``respond(outcome)``, parsed off the event loop (503 with
        Retry-After when saturated). A client that disconnects stops its run."""
        try:
            async with self.admission.slot(self.client, self.session) as ticket:
                cancel = Cancel()
                ticket.on_overdue = overdue_policy(cancel, self.settings.sandbox_overdue_s)
                on_long = self._on_long(ticket)

                def run_and_answer() -> responses.Answer:
                    outcome = self.sandbox.run(
                        job, self.settings.sandbox_queue_timeout_s, cancel=cancel, on_long=on_long
                    )
                    return respond.off_loop(outcome)

                started = time.perf_counter()
                watcher = asyncio.create_task(stop_when_gone(http, cancel.set))
                try:
                    body_bytes, ok = await run_in_threadpool(run_and_answer)
                finally:
                    watcher.cancel()
                elapsed = time.perf_counter() - started
        except Busy as exc:
            return refused(exc, self.stats)
        except PoolBusy:
            if self.stats is not None:
                self.stats.refusals.labels("busy").inc()
            return busy_response(1, "no sandbox worker became ready in time")
        if self.stats is not None:
            self.stats.run_seconds.observe(elapsed)
            self.stats.runs.labels("ok" if ok else "error").inc()
        return json_bytes_response(body_bytes)

    async def stream(self, job: Job, respond: responses.ProgramAnswer) -> Response:
        """Run ``job`` as a stream of NDJSON events (RunStream), its last line
        ``respond(outcome)``."""
        try:
            stream = await self.open_stream(job, respond)
        except Busy as exc:
            return refused(exc, self.stats)

        async def close() -> None:  # on the event loop, as admission control wants
            stream.close()

        return NdjsonResponse(stream.events(), background=BackgroundTask(close))

    async def open_live(self, job: Job, respond: responses.ProgramAnswer) -> live.Opened:
        """:meth:`open_stream` for a run over a WebSocket: a refusal is a ``busy`` event."""
        try:
            return await self.open_stream(job, respond)
        except Busy as exc:
            count_refusal(exc, self.stats)  # counted as the HTTP routes count it
            return [event_line("busy", 0.0, retry_after_s=exc.retry_after, detail=exc.reason)]

    async def open_stream(self, job: Job, respond: responses.ProgramAnswer) -> RunStream:
        """A RunStream for ``job`` holding its admission ticket (given back when the run ends,
        or at ``close()`` for one never started); raises Busy when admission control refuses
        it."""
        ticket = await self.admission.enter(self.client, self.session)
        stats = self.stats

        def release(ran: tuple[Outcome, bool] | None, seconds: float) -> None:
            # from the event loop (the run's done callback, or the response's background task)
            self.admission.finish(ticket)
            if stats is not None and ran is not None:
                outcome, ok = ran
                stats.run_seconds.observe(seconds)
                if outcome.answer is not None:
                    stats.runs.labels("ok" if ok else "error").inc()
                else:  # stopped (the connection closed) or a failed worker
                    stopped = (outcome.error or {}).get("type") == "KeyboardInterrupt"
                    stats.runs.labels("stopped" if stopped else "error").inc()

        stream = RunStream(
            self.sandbox,
            job,
            self.settings.sandbox_queue_timeout_s,
            release,
            respond,
            on_long=self._on_long(ticket),
        )
        ticket.on_overdue = overdue_policy(stream.cancel, self.settings.sandbox_overdue_s)
        return stream
