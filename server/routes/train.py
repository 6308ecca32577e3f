"""Training API: POST /api/v1/train (JSON) and /api/v1/train/stream (server-sent events)."""

from __future__ import annotations

import threading
from collections.abc import AsyncIterator
from typing import Any

import anyio
from fastapi import APIRouter, Request
from starlette.responses import Response, StreamingResponse

from server import train as service
from server.serialize import OrjsonResponse, dumps
from server.settings import Settings, get_settings
from server.train_schemas import TrainRequest, TrainResponse

router = APIRouter(prefix="/api/v1", tags=["train"])


def app_settings(http: Request) -> Settings:
    """get_settings, or the app's override of it (as ``Depends(get_settings)`` would give).

    Not a dependency: FastAPI runs a plain ``def`` dependency in a worker thread, and while
    the app overrides any dependency (create_app does) it rebuilds every dependency's signature
    on every request; together 0.3-1 ms a request, a sixth of a 10-step call.
    """
    provider = http.app.dependency_overrides.get(get_settings, get_settings)
    settings: Settings = provider()
    return settings


#: Steps one stream chunk runs in a worker thread between disconnect checks.
STREAM_CHUNK = 5

SPEC_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"description": "Request body over the size limit."},
    422: {
        "description": "The spec is malformed, inconsistent, or over a budget; `detail` says "
        "which (e.g. the limit max_train_parameters)."
    },
    429: {"description": "Rate limit exceeded."},
}


class StreamCounter:
    """How many streams are running now (tests check that a disconnect stops one)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active = 0
        self.steps = 0

    def add(self, delta: int) -> None:
        with self._lock:
            self.active += delta


streams = StreamCounter()


def _refuse(exc: service.SpecError) -> Response:
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
        trainer = service.Trainer(request, settings, settings.max_train_steps_per_call)
        if trainer.estimated_ms() <= service.INLINE_MS:
            result = service.run(trainer)
        else:
            result = await anyio.to_thread.run_sync(service.run, trainer)
    except service.SpecError as exc:
        return _refuse(exc)
    return OrjsonResponse(result)


def _event(name: str, payload: Any) -> bytes:
    return b"event: " + name.encode() + b"\ndata: " + dumps(payload) + b"\n\n"


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
    """Progress rows as they are computed, the final state last."""
    settings = app_settings(http)
    try:
        trainer = service.Trainer(request, settings, settings.max_stream_steps)
    except service.SpecError as exc:
        return _refuse(exc)

    async def events() -> AsyncIterator[bytes]:
        streams.add(1)
        try:
            done = 0
            history: list[dict[str, Any]] = []
            while done < request.steps:
                if await http.is_disconnected():
                    return
                chunk = min(STREAM_CHUNK, request.steps - done)
                last = done + chunk == request.steps
                rows = await anyio.to_thread.run_sync(
                    trainer.advance, chunk, request.include_graph and last
                )
                done += chunk
                streams.steps += chunk
                history.extend(rows)
                for row in rows:
                    yield _event("progress", row)
            yield _event("done", trainer.result(history, {}))
        finally:
            streams.add(-1)

    return StreamingResponse(
        events(),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )
