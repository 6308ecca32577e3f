"""Running a program: the whole answer at once, a stream of its events, or a WebSocket whose
Stop keeps what the program recorded. Each route validates, builds the job and its answer, and
hands them to the run service (:mod:`server.runs.service`)."""

from __future__ import annotations

from fastapi import APIRouter, Request, WebSocket
from starlette.responses import Response

from server.routes.deps import LIVE_DOC, REQUEST_ERRORS, Runs, upgrade_required
from server.runs import jobs, live, responses
from server.runs.service import RunService, device_error, unavailable_device
from server.runs.stream import NdjsonResponse, result_line, single_result
from server.schemas import RunRequest, RunResponse, RunStreamEvent
from server.serialize import dumps, json_bytes_response

router = APIRouter(prefix="/api/v1", tags=["playground"])


def _refusal(request: RunRequest) -> bytes | None:
    """The answer for a request no worker can run (its device is not here), or None."""
    reason = unavailable_device(request.device)
    return None if reason is None else dumps(device_error(request.device, reason))


def _answer(runs: RunService, request: RunRequest) -> responses.ProgramAnswer:
    return responses.answer_for(runs.settings, request.device, runs.unjailed)


@router.post(
    "/run",
    response_model=RunResponse,
    responses=REQUEST_ERRORS,
    summary="Run a program; return its output, error and recorded graphs",
)
async def run(request: RunRequest, http: Request, runs: Runs) -> Response:
    """Run a program (or a bare expression) as real Python in a one-shot jailed worker.

    Errors in the program (syntax, runtime, autograd, budget) are a normal 200 response with
    ``ok: false`` and ``error`` located at line:col, like a REPL. When every worker is busy and
    the queue is full (or the wait would outlast admission_max_wait_s) the answer is 503 with
    ``Retry-After``.
    """
    refused = _refusal(request)
    if refused is not None:
        return json_bytes_response(refused)
    job = jobs.job_for(request, runs.settings)
    return await runs.answer(http, job, _answer(runs, request))


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
    summary="Run a program, streaming what it prints while it runs; closing the connection "
    "stops it",
)
async def run_stream(request: RunRequest, runs: Runs) -> Response:
    """The same run as ``POST /api/v1/run``, through the same admission control (503 with
    ``Retry-After`` when saturated), answered as it happens: what the program prints arrives
    while it runs, with the elapsed time, and its ``RunResponse`` comes last. Past
    ``max_output_chars`` the output stops arriving and the program runs on (the response says
    ``output_truncated``). Closing the connection kills the program's worker at once: a page's
    Stop, or a newer run replacing this one, frees the slot for the next."""
    refused = _refusal(request)
    if refused is not None:
        return NdjsonResponse(single_result(refused))
    job = jobs.job_for(request, runs.settings)
    return await runs.stream(job, _answer(runs, request))


@router.websocket("/run/live")
async def run_live(websocket: WebSocket, runs: Runs) -> None:
    """A run over a WebSocket, stoppable softly: see GET /api/v1/run/live for the protocol."""

    async def start(request: RunRequest) -> live.Opened:
        refused = _refusal(request)
        if refused is not None:
            return [result_line(refused)]
        job = jobs.job_for(request, runs.settings)
        return await runs.open_live(job, _answer(runs, request))

    await live.serve(websocket, RunRequest, start, runs.settings.max_body_bytes)


@router.get(
    "/run/live",
    status_code=426,
    responses={426: {"description": "Upgrade Required: this path is a WebSocket endpoint."}},
    summary="Run a program over a WebSocket, with a Stop that keeps what it recorded (protocol)",
    description=LIVE_DOC,
)
async def run_live_doc() -> Response:
    """A plain GET cannot run: 426 with the WebSocket upgrade it needs."""
    return upgrade_required()
