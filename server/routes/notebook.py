"""The notebook's JSON API: run a notebook's cells up to the one to show (a one-shot run), whole,
streamed, or over a WebSocket whose Stop keeps what the cells recorded."""

from __future__ import annotations

from fastapi import APIRouter, Request, WebSocket
from starlette.responses import Response

from server.routes.deps import LIVE_DOC, REQUEST_ERRORS, Runs, upgrade_required
from server.runs import jobs, live, responses
from server.runs.service import RunService, unavailable_device
from server.runs.stream import NdjsonResponse, result_line, single_result
from server.schemas import NotebookRunRequest, NotebookRunResponse, NotebookStreamEvent
from server.serialize import dumps, json_bytes_response

router = APIRouter(prefix="/api/v1/notebook", tags=["notebook"])


def _refusal(request: NotebookRunRequest) -> bytes | None:
    """The answer for a request no worker can run (its device is not here), or None."""
    reason = unavailable_device(request.device)
    if reason is None:
        return None
    message = f"device '{request.device}' is not available: {reason}"
    body = responses.notebook_error_response(request.device, request.cell, "RuntimeError", message)
    return dumps(body)


def _answer(runs: RunService, request: NotebookRunRequest) -> responses.NotebookAnswer:
    return responses.notebook_answer_for(runs.settings, request.device, runs.unjailed, request.cell)


@router.post(
    "/run",
    response_model=NotebookRunResponse,
    responses=REQUEST_ERRORS,
    summary="Run a notebook's cells 1..cell in one jailed worker; return each cell's output "
    "and the graphs of cell `cell`",
)
async def run(request: NotebookRunRequest, http: Request, runs: Runs) -> Response:
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
    job = jobs.notebook_job_for(request, runs.settings)
    return await runs.answer(http, job, _answer(runs, request))


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
async def run_stream(request: NotebookRunRequest, runs: Runs) -> Response:
    """The same run as ``POST /api/v1/notebook/run``, answered as it happens: a `cell` event
    as each cell starts, what it prints, and the NotebookRunResponse last. Closing the
    connection kills the worker at once (a page's Stop)."""
    refused = _refusal(request)
    if refused is not None:
        return NdjsonResponse(single_result(refused))
    job = jobs.notebook_job_for(request, runs.settings)
    return await runs.stream(job, _answer(runs, request))


@router.websocket("/run/live")
async def run_live(websocket: WebSocket, runs: Runs) -> None:
    """A notebook run over a WebSocket, stoppable softly: see GET /api/v1/notebook/run/live."""

    async def start(request: NotebookRunRequest) -> live.Opened:
        refused = _refusal(request)
        if refused is not None:
            return [result_line(refused)]
        job = jobs.notebook_job_for(request, runs.settings)
        return await runs.open_live(job, _answer(runs, request))

    await live.serve(websocket, NotebookRunRequest, start, runs.settings.max_body_bytes)


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
