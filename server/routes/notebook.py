"""The notebook's JSON API: run a notebook's cells up to the one to show (a one-shot run)."""

from __future__ import annotations

from fastapi import APIRouter, Request, WebSocket
from starlette.requests import HTTPConnection
from starlette.responses import Response

from server.routes.api import (
    LIVE_DOC,
    REQUEST_ERRORS,
    open_live,
    run_job,
    stream_job,
    unavailable_device,
    upgrade_required,
)
from server.sandbox import live_run, service
from server.sandbox.pool import Sandbox
from server.sandbox.stream import NdjsonResponse, result_line, single_result
from server.schemas import NotebookRunRequest, NotebookRunResponse, NotebookStreamEvent
from server.serialize import dumps, json_bytes_response
from server.settings import app_settings

router = APIRouter(prefix="/api/v1/notebook", tags=["notebook"])


def _refusal(request: NotebookRunRequest) -> bytes | None:
    """The answer for a request no worker can run (its device is not here), or None."""
    reason = unavailable_device(request.device)
    if reason is None:
        return None
    message = f"device '{request.device}' is not available: {reason}"
    body = service.notebook_error_response(request.device, request.cell, "RuntimeError", message)
    return dumps(body)


def _responder(request: NotebookRunRequest, http: HTTPConnection) -> service.NotebookAnswer:
    sandbox: Sandbox = http.app.state.sandbox
    return service.notebook_answer_for(
        app_settings(http), request.device, sandbox.mode == "none", request.cell
    )


@router.post(
    "/run",
    response_model=NotebookRunResponse,
    responses=REQUEST_ERRORS,
    summary="Run a notebook's cells 1..cell in one jailed worker; return each cell's output "
    "and the graphs of cell `cell`",
)
async def run(request: NotebookRunRequest, http: Request) -> Response:
    """Run a notebook, still one-shot: to show cell k, cells 1..k run in order in one jailed
    worker and one namespace, from the request's seed, so the state cell k sees is what the
    cells before it left, every time. Each cell is compiled on its own: an error says which
    cell (`error.cell`) and the line within it. The answer holds what each cell printed and
    cell k's graphs: the backward passes it called, drawn whole (the nodes earlier cells
    recorded are marked `earlier`), or without one the operations it recorded, tensors earlier
    cells made drawn as its inputs. Same admission control and budgets as
    ``POST /api/v1/run`` (503 with ``Retry-After`` when saturated)."""
    refused = _refusal(request)
    if refused is not None:
        return json_bytes_response(refused)
    job = service.notebook_job_for(request, app_settings(http))
    return await run_job(http, job, _responder(request, http))


@router.post(
    "/run/stream",
    response_class=NdjsonResponse,
    responses={
        200: {
            "model": NotebookStreamEvent,
            "description": "Newline-delimited JSON, one NotebookStreamEvent a line: `start`, "
            "then `cell` as each cell starts and `stdout` as it prints (`progress` while "
            "quiet), and last `result` with the whole NotebookRunResponse (or `busy`).",
        },
        **REQUEST_ERRORS,
    },
    summary="Run a notebook's cells, streaming what each prints; closing the connection stops it",
)
async def run_stream(request: NotebookRunRequest, http: Request) -> Response:
    """The same run as ``POST /api/v1/notebook/run``, answered as it happens: a `cell` event
    as each cell starts, what it prints, and the NotebookRunResponse last. Closing the
    connection kills the worker at once (a page's Stop)."""
    refused = _refusal(request)
    if refused is not None:
        return NdjsonResponse(single_result(refused))
    job = service.notebook_job_for(request, app_settings(http))
    return await stream_job(http, job, _responder(request, http))


@router.websocket("/run/live")
async def run_live(websocket: WebSocket) -> None:
    """A notebook run over a WebSocket, stoppable softly: see GET /api/v1/notebook/run/live."""
    settings = app_settings(websocket)

    async def start(request: NotebookRunRequest) -> live_run.Opened:
        refused = _refusal(request)
        if refused is not None:
            return [result_line(refused)]
        job = service.notebook_job_for(request, settings)
        return await open_live(websocket, job, _responder(request, websocket))

    await live_run.serve(websocket, NotebookRunRequest, start, settings.max_body_bytes)


@router.get(
    "/run/live",
    status_code=426,
    responses={426: {"description": "Upgrade Required: this path is a WebSocket endpoint."}},
    summary="Run a notebook's cells over a WebSocket, with a Stop that keeps what they recorded "
    "(protocol)",
    description=LIVE_DOC.replace("RunRequest", "NotebookRunRequest")
    .replace("RunStreamEvent", "NotebookStreamEvent")
    .replace("RunResponse", "NotebookRunResponse")
    .replace("POST /api/v1/run/stream", "POST /api/v1/notebook/run/stream"),
)
async def run_live_doc() -> Response:
    """A plain GET cannot run: 426 with the WebSocket upgrade it needs."""
    return upgrade_required()
