"""What the routers share: typed dependencies (the run service, the settings) and the
descriptions of the errors every run route answers with (for the OpenAPI document)."""

from __future__ import annotations

from typing import Annotated, Any

import anyio
from fastapi import Depends
from starlette.requests import HTTPConnection
from starlette.responses import Response

from server.admission import Admission
from server.runs.service import RunService
from server.sandbox.pool import Sandbox
from server.schemas import ErrorBody
from server.serialize import OrjsonResponse
from server.settings import Settings, app_settings
from server.training import worker


async def _run_service(conn: HTTPConnection) -> RunService:
    return RunService.of(conn)


async def _settings(conn: HTTPConnection) -> Settings:
    return app_settings(conn)


async def _sandbox(conn: HTTPConnection) -> Sandbox | None:
    return getattr(conn.app.state, "sandbox", None)


async def _admission(conn: HTTPConnection) -> Admission | None:
    return getattr(conn.app.state, "admission", None)


async def _train_pool(conn: HTTPConnection) -> anyio.CapacityLimiter:
    state = conn.app.state
    return worker.limiter(state, worker.pool_size(app_settings(conn), state.admission))


# (``async`` providers: FastAPI runs a plain ``def`` one in a thread, a hop per request)
#: the run service for this request's client: settings, sandbox, admission, metrics, tenant
Runs = Annotated[RunService, Depends(_run_service)]
#: the app's settings
AppSettings = Annotated[Settings, Depends(_settings)]
#: the sandbox and admission control, or None while the app is starting (the probes)
MaybeSandbox = Annotated[Sandbox | None, Depends(_sandbox)]
MaybeAdmission = Annotated[Admission | None, Depends(_admission)]
#: the threads that training may use at once, in this event loop
TrainPool = Annotated[anyio.CapacityLimiter, Depends(_train_pool)]

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


def upgrade_required() -> Response:
    """A plain GET on a WebSocket path: 426 with the upgrade it needs."""
    return OrjsonResponse(
        {"detail": "this is a WebSocket endpoint: connect with ws:// (see /docs)"},
        status_code=426,
        headers={"upgrade": "websocket"},
    )
