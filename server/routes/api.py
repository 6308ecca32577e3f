"""JSON API, version 1."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from starlette.background import BackgroundTask
from starlette.concurrency import run_in_threadpool
from starlette.requests import HTTPConnection
from starlette.responses import Response

from engine import backend
from server.admission import Admission, Busy
from server.clients import client_of, session_of
from server.examples import gallery
from server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.metrics import Metrics, metrics_of
from server.sandbox import live_run, service
from server.sandbox.pool import Cancel, Outcome, PoolBusy, Sandbox
from server.sandbox.stream import (
    NdjsonResponse,
    RunStream,
    event_line,
    result_line,
    single_result,
)
from server.schemas import (
    DeviceInfo,
    ErrorBody,
    Example,
    Health,
    Ready,
    RunRequest,
    RunResponse,
    RunStreamEvent,
)
from server.serialize import OrjsonResponse, dumps, json_bytes_response
from server.settings import app_settings

#: liveness, readiness, metrics: unversioned, for operators and load balancers
meta = APIRouter(tags=["meta"])
#: the versioned JSON API
router = APIRouter(prefix="/api/v1")
log = logging.getLogger(__name__)

REQUEST_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "Request body over the size limit."},
    415: {"model": ErrorBody, "description": "Request body is not application/json."},
    422: {
        "description": "The request does not match RunRequest (FastAPI's validation error body)."
    },
    429: {
        "model": ErrorBody,
        "description": "Rate limit exceeded, or this client already has its share running and "
        "waiting (Retry-After says when).",
    },
    503: {
        "model": ErrorBody,
        "description": "Saturated: every worker busy and the queue full, or the wait would "
        "outlast admission_max_wait_s (Retry-After says when to try again).",
    },
}


@meta.get(
    "/healthz",
    response_model=Health,
    responses={503: {"model": Health, "description": "Failing: the sandbox cannot restart."}},
)
def healthz(http: Request) -> Response:
    """Liveness: the process answers (cheap: no work) and its sandbox is up or coming back;
    503 once it has not been able to serve for ``sandbox_restart_deadline_s``: no zygote for
    that long (restarts keep failing), or one that has not answered its heartbeat for that long
    (killing it did not help), so that an orchestrator restarts the server. Says how programs
    are confined."""
    sandbox: Sandbox | None = getattr(http.app.state, "sandbox", None)
    failing = sandbox.failing() if sandbox is not None and not sandbox.live() else None
    if failing is not None:
        log.error("liveness fails: %s", failing)
        body = Health(status="failing", sandbox="failed")
        return OrjsonResponse(body.model_dump(), status_code=503)
    body = Health(status="ok", sandbox=sandbox.mode if sandbox is not None else "starting")
    return OrjsonResponse(body.model_dump())


@meta.get(
    "/readyz",
    response_model=Ready,
    responses={503: {"model": Ready, "description": "Not ready: starting, or saturated."}},
)
def readyz(http: Request) -> Response:
    """Readiness: whether this replica can take work now: a live zygote with workers ready or
    running, and room in the queue. A load balancer sends new requests elsewhere while this
    says 503 (starting, a zygote restarting or not answering its heartbeat, or saturated), and
    ``reason`` says why."""
    sandbox: Sandbox | None = getattr(http.app.state, "sandbox", None)
    admission: Admission | None = getattr(http.app.state, "admission", None)
    why = sandbox.not_ready() if sandbox is not None else "the sandbox is starting"
    if sandbox is None or admission is None or why is not None:
        mode = sandbox.mode if sandbox is not None else "starting"
        again = sandbox is not None and bool(mode == "restarting" or sandbox.stuck)
        body = Ready(
            status="restarting" if again else "starting",
            sandbox=mode,
            reason=why or "the server is starting",
        )
        return OrjsonResponse(body.model_dump(), status_code=503)
    body = Ready(
        status="ready" if admission.queued < admission.queue_limit else "saturated",
        sandbox=sandbox.mode,
        running=admission.running,
        queued=admission.queued,
        slots=admission.slots,
        ready_workers=sandbox.ready_workers(),
    )
    return OrjsonResponse(body.model_dump(), status_code=200 if body.status == "ready" else 503)


@meta.get("/metrics", include_in_schema=False)
def metrics(http: Request) -> Response:
    """Prometheus metrics: queue depth, runs, refusals, run latency (see server/metrics.py)."""
    registry = metrics_of(http.app)
    body = registry.render() if registry is not None else b""
    return Response(body, media_type=METRICS_CONTENT_TYPE)


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
    if stats is not None:
        why = "share" if exc.status == 429 else "queue_full" if "full" in exc.reason else "wait"
        stats.refusals.labels(why).inc()
    return busy_response(exc.retry_after, exc.reason, exc.status)


@router.get("/devices", response_model=list[DeviceInfo], tags=["meta"])
def devices() -> list[DeviceInfo]:
    """The devices a program may ask for, with the reason when one is unavailable."""
    return [DeviceInfo(**d) for d in backend.devices()]


def unavailable_device(device: str) -> str | None:
    """Why ``device`` cannot run programs here, or None."""
    info = {d["name"]: d for d in backend.devices()}
    kind = device.split(":")[0]
    if info.get(kind, {}).get("available", False):
        return None
    return str(info.get(kind, {}).get("reason") or "not available")


@router.post(
    "/run",
    response_model=RunResponse,
    responses=REQUEST_ERRORS,
    tags=["playground"],
    summary="Run a program; return its output, error and recorded graphs",
)
async def run(request: RunRequest, http: Request) -> Response:
    """Run a program (or a bare expression) as real Python in a one-shot jailed worker.

    Errors in the program (syntax, runtime, autograd, budget) are a normal 200 response with
    ``ok: false`` and ``error`` located at line:col, like a REPL. When every worker is busy and
    the queue is full (or the wait would outlast admission_max_wait_s) the answer is 503 with
    ``Retry-After``.
    """
    reason = unavailable_device(request.device)
    if reason is not None:
        return json_bytes_response(dumps(device_error(request.device, reason)))
    sandbox: Sandbox = http.app.state.sandbox
    settings = app_settings(http)
    job = service.job_for(request, settings)
    return await run_job(
        http, job, service.answer_for(settings, request.device, sandbox.mode == "none")
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


async def _stop_when_gone(http: Request, cancel: Cancel) -> None:
    """Stop the run when its client disconnects: nobody is left to read its answer, and its
    worker and slot are the class's. (The body has been read: what comes next is the end.)"""
    while True:
        message = await http.receive()
        if message["type"] == "http.disconnect":
            cancel.set()
            return
        await asyncio.sleep(0.05)  # (nothing else is expected; never a busy loop)


def device_error(device: str, reason: str) -> dict[str, Any]:
    return service.error_response(
        device, "RuntimeError", f"device '{device}' is not available: {reason}"
    )


async def run_job(http: Request, job: dict[str, Any], respond: service.ProgramAnswer) -> Response:
    """Run ``job`` through admission control and the sandbox; answer ``respond(outcome)``,
    parsed off the event loop (503 with Retry-After when saturated)."""
    settings = app_settings(http)
    sandbox: Sandbox = http.app.state.sandbox
    admission: Admission = http.app.state.admission
    stats = metrics_of(http.app)
    loop = asyncio.get_running_loop()
    try:
        async with admission.slot(client_of(http), session_of(http)) as ticket:

            def long() -> None:  # a long program (a loop) leaves its short slot to the next
                loop.call_soon_threadsafe(admission.demote, ticket)

            cancel = Cancel()
            ticket.on_overdue = overdue_policy(cancel, settings.sandbox_overdue_s)

            def run_and_answer() -> service.Answer:
                outcome = sandbox.run(
                    job, settings.sandbox_queue_timeout_s, cancel=cancel, on_long=long
                )
                return respond.off_loop(outcome)

            started = time.perf_counter()
            watcher = asyncio.create_task(_stop_when_gone(http, cancel))
            try:
                body_bytes, ok = await run_in_threadpool(run_and_answer)
            finally:
                watcher.cancel()
            elapsed = time.perf_counter() - started
    except Busy as exc:
        return refused(exc, stats)
    except PoolBusy:
        if stats is not None:
            stats.refusals.labels("busy").inc()
        return busy_response(1, "no sandbox worker became ready in time")
    if stats is not None:
        stats.run_seconds.observe(elapsed)
        stats.runs.labels("ok" if ok else "error").inc()
    return json_bytes_response(body_bytes)


@router.post(
    "/run/stream",
    response_class=NdjsonResponse,
    responses={
        200: {
            "model": RunStreamEvent,
            "description": "Newline-delimited JSON, one RunStreamEvent a line: `start`, then "
            "`stdout` as the program prints and `progress` while it is quiet, and last `result` "
            "with the whole RunResponse (or `busy`).",
        },
        **REQUEST_ERRORS,
    },
    tags=["playground"],
    summary="Run a program, streaming what it prints while it runs; closing the connection "
    "stops it",
)
async def run_stream(request: RunRequest, http: Request) -> Response:
    """The same run as ``POST /api/v1/run``, through the same admission control (503 with
    ``Retry-After`` when saturated), answered as it happens: what the program prints arrives
    while it runs, with the elapsed time, and its ``RunResponse`` comes last. Past
    ``max_output_chars`` the output stops arriving and the program runs on (the response says
    ``output_truncated``). Closing the connection kills the program's worker at once: a page's
    Stop, or a newer run replacing this one, frees the slot for the next."""
    reason = unavailable_device(request.device)
    if reason is not None:
        return NdjsonResponse(single_result(dumps(device_error(request.device, reason))))
    settings = app_settings(http)
    job = service.job_for(request, settings)
    sandbox: Sandbox = http.app.state.sandbox
    respond = service.answer_for(settings, request.device, sandbox.mode == "none")
    return await stream_job(http, job, respond)


async def stream_job(
    http: Request, job: dict[str, Any], respond: service.ProgramAnswer
) -> Response:
    """Run ``job`` through admission control as a stream of NDJSON events (RunStream), its
    last line ``respond(outcome)``."""
    try:
        stream = await open_stream(http, job, respond)
    except Busy as exc:
        return refused(exc, metrics_of(http.app))

    async def close() -> None:  # on the event loop, as admission control wants
        stream.close()

    return NdjsonResponse(stream.events(), background=BackgroundTask(close))


async def open_stream(
    conn: HTTPConnection, job: dict[str, Any], respond: service.ProgramAnswer
) -> RunStream:
    """A RunStream for ``job`` holding its admission ticket (given back when the run ends, or
    at ``close()`` for one never started); raises Busy when admission control refuses it."""
    settings = app_settings(conn)
    sandbox: Sandbox = conn.app.state.sandbox
    admission: Admission = conn.app.state.admission
    stats = metrics_of(conn.app)
    ticket = await admission.enter(client_of(conn), session_of(conn))
    loop = asyncio.get_running_loop()

    def long() -> None:  # a long program (a loop) leaves its short slot to the next
        loop.call_soon_threadsafe(admission.demote, ticket)

    def release(ran: tuple[Outcome, bool] | None, seconds: float) -> None:
        # from the event loop (the run's done callback, or the response's background task)
        admission.finish(ticket)
        if stats is not None and ran is not None:
            outcome, ok = ran
            stats.run_seconds.observe(seconds)
            if outcome.answer is not None:
                stats.runs.labels("ok" if ok else "error").inc()
            else:  # stopped (the connection closed) or a failed worker
                stopped = (outcome.error or {}).get("type") == "KeyboardInterrupt"
                stats.runs.labels("stopped" if stopped else "error").inc()

    stream = RunStream(
        sandbox, job, settings.sandbox_queue_timeout_s, release, respond, on_long=long
    )
    ticket.on_overdue = overdue_policy(stream.cancel, settings.sandbox_overdue_s)
    return stream


async def open_live(
    websocket: WebSocket, job: dict[str, Any], respond: service.ProgramAnswer
) -> live_run.Opened:
    """:func:`open_stream` for a run over a WebSocket: a refusal is a ``busy`` event."""
    try:
        return await open_stream(websocket, job, respond)
    except Busy as exc:
        refused(exc, metrics_of(websocket.app))  # counted as the HTTP routes count it
        return [event_line("busy", 0.0, retry_after_s=exc.retry_after, detail=exc.reason)]


LIVE_DOC = """A run over one WebSocket, for a page that wants its Stop to keep what the program recorded
(closing `POST /api/v1/run/stream`'s connection kills the worker, and its passes with it).

1. Send `{"type": "run", "request": <RunRequest>}` within 10 s of connecting.
2. Receive the events of `POST /api/v1/run/stream` (RunStreamEvent), one JSON text message
   each: `start`, `stdout`, `progress`, and last `result` with the RunResponse; or `busy`
   (`retry_after_s`: try again after that long), or `invalid` (`detail`: the validation error
   a 422 would carry). The server closes (1000) after the last.
3. Send `{"type": "stop"}` at any time: the program gets a `KeyboardInterrupt` where it is; the
   server answers `stopping`, then the `result`, which keeps what the program printed and the
   passes it recorded until then (its `error` says so, at the line it was on). A program stuck
   in one native call is killed after the grace, and its result says that nothing was kept.

Closing the socket kills the program at once. Close codes: 1000 done; 1001 no run sent in
time; 1008 a message that is not JSON text; 1009 a message over the body size limit.
"""


@router.websocket("/run/live")
async def run_live(websocket: WebSocket) -> None:
    """A run over a WebSocket, stoppable softly: see GET /api/v1/run/live for the protocol."""
    settings = app_settings(websocket)

    async def start(request: RunRequest) -> live_run.Opened:
        reason = unavailable_device(request.device)
        if reason is not None:
            body = dumps(device_error(request.device, reason))
            return [result_line(body)]
        job = service.job_for(request, settings)
        sandbox: Sandbox = websocket.app.state.sandbox
        return await open_live(
            websocket, job, service.answer_for(settings, request.device, sandbox.mode == "none")
        )

    await live_run.serve(websocket, RunRequest, start, settings.max_body_bytes)


@router.get(
    "/run/live",
    status_code=426,
    responses={426: {"description": "Upgrade Required: this path is a WebSocket endpoint."}},
    tags=["playground"],
    summary="Run a program over a WebSocket, with a Stop that keeps what it recorded (protocol)",
    description=LIVE_DOC,
)
async def run_live_doc() -> Response:
    """A plain GET cannot run: 426 with the WebSocket upgrade it needs."""
    return upgrade_required()


def upgrade_required() -> Response:
    return OrjsonResponse(
        {"detail": "this is a WebSocket endpoint: connect with ws:// (see /docs)"},
        status_code=426,
        headers={"upgrade": "websocket"},
    )


@router.get("/examples", response_model=list[Example], tags=["playground"])
def examples() -> Response:
    """The examples gallery: the lessons' worked examples, each with an explanation, and the
    lessons themselves as notebooks (``cells``: prose as markdown, code blocks as code)."""
    return json_bytes_response(dumps(gallery()))
