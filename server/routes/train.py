"""Training API: POST /api/v1/train (JSON) and /api/v1/train/stream (server-sent events)."""

from __future__ import annotations

from typing import Any

import anyio
from fastapi import APIRouter, Request
from starlette.requests import HTTPConnection
from starlette.responses import Response, StreamingResponse

from server.serialize import OrjsonResponse
from server.settings import Settings, get_settings
from server.training import stream
from server.training.errors import SpecError
from server.training.schemas import TrainRequest, TrainResponse
from server.training.trainer import INLINE_MS, Trainer, run

router = APIRouter(prefix="/api/v1", tags=["train"])


def app_settings(connection: HTTPConnection) -> Settings:
    """get_settings, or the app's override of it (as ``Depends(get_settings)`` would give).

    Not a dependency: FastAPI runs a plain ``def`` dependency in a worker thread, and while
    the app overrides any dependency (create_app does) it rebuilds every dependency's signature
    on every request; together 0.3-1 ms a request, a sixth of a 10-step call.
    """
    provider = connection.app.dependency_overrides.get(get_settings, get_settings)
    settings: Settings = provider()
    return settings


SPEC_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"description": "Request body over the size limit."},
    422: {
        "description": "The spec is malformed, inconsistent, or over a budget; `detail` says "
        "which (e.g. the limit max_train_parameters)."
    },
    429: {"description": "Rate limit exceeded; `Retry-After` says when to try again."},
}


def _refuse(exc: SpecError) -> Response:
    return OrjsonResponse({"detail": str(exc)}, status_code=422)


@router.post(
    "/train",
    response_model=TrainResponse,
    responses=SPEC_ERRORS,
    summary="Train an MLP on a toy dataset for some steps; resume from a returned state",
)
async def train(request: TrainRequest, http: Request) -> Response:
    """Stateless and deterministic: two calls of 100 steps passing ``state`` equal one of 200.

    Returns one history row per step, the new ``state``, the decision-boundary grid, and with
    ``include_graph`` the graph and backward walk of the last step (the ``Graph`` of /run).
    """
    # A short run (the playground's 10 steps of a small model: a few ms) runs on the event
    # loop, where handing it to a worker thread and back would cost about as much as the run;
    # a longer one runs in a worker thread so that it does not hold up other requests.
    settings = app_settings(http)
    try:
        trainer = Trainer(request, settings, settings.max_train_steps_per_call)
        if trainer.estimated_ms() <= INLINE_MS:
            result = run(trainer)
        else:
            result = await anyio.to_thread.run_sync(run, trainer)
    except SpecError as exc:
        return _refuse(exc)
    return OrjsonResponse(result)


@router.post(
    "/train/stream",
    responses={
        **SPEC_ERRORS,
        200: {
            "content": {"text/event-stream": {}},
            "description": "`progress` events (one history row each) as steps finish, then one "
            "`done` event with the whole TrainResponse. Closing the connection stops the run.",
        },
    },
    response_class=StreamingResponse,
    summary="The same run as server-sent events; stops when the client disconnects",
)
def train_stream(request: TrainRequest, http: Request) -> Response:
    """Progress rows as they are computed, the final state last (up to max_stream_steps)."""
    settings = app_settings(http)
    try:
        trainer = Trainer(request, settings, settings.max_stream_steps)
    except SpecError as exc:
        return _refuse(exc)
    return StreamingResponse(
        stream.events(trainer, http.is_disconnected),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )
