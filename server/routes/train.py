"""Training API: POST /api/v1/train (JSON), /api/v1/train/stream (server-sent events) and the
page's live run, WebSocket /api/v1/train/live (its protocol documented by GET on that path)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, Request, WebSocket
from starlette.responses import Response, StreamingResponse

from server.admission import Busy
from server.routes.deps import Runs, TrainPool
from server.runs.service import refused, stop_when_gone
from server.serialize import OrjsonResponse
from server.training import live, stream, worker
from server.training.errors import SpecError
from server.training.schemas import TrainRequest, TrainResponse
from server.training.trainer import INLINE_MS, Trainer, run

router = APIRouter(prefix="/api/v1", tags=["train"])


SPEC_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"description": "Request body over the size limit."},
    422: {
        "description": "The spec is malformed, inconsistent, or over a budget; `detail` says "
        "which (e.g. the limit max_train_parameters)."
    },
    429: {"description": "Rate limit exceeded; `Retry-After` says when to try again."},
    503: {"description": "Saturated (every worker busy, the queue full); `Retry-After` says when."},
}


def _refuse(exc: SpecError) -> Response:
    return OrjsonResponse({"detail": str(exc)}, status_code=422)


@router.post(
    "/train",
    response_model=TrainResponse,
    responses=SPEC_ERRORS,
    summary="Train an MLP on a toy dataset for some steps; resume from a returned state",
)
async def train(request: TrainRequest, http: Request, runs: Runs, pool: TrainPool) -> Response:
    """Stateless and deterministic: two calls of 100 steps passing ``state`` equal one of 200.

    Returns one history row per step, the new ``state``, the decision-boundary grid, and with
    ``include_graph`` the graph and backward walk of the last step (the ``Graph`` of /run).
    A call stops between two steps at the wall clock (``train_wall_clock_s`` from its
    admission) and says so: ``truncated``, ``stopped``, ``steps_done``, a ``notice``; its
    ``state`` resumes from there.
    """
    # A tiny run (the playground's 10 steps of a small model: a few ms) runs on the event
    # loop, where handing it to a worker thread and back would cost about as much as the run;
    # any other runs in a thread of the training pool. Either stops at the wall clock.
    settings = runs.settings
    try:
        trainer = Trainer(request, settings, settings.max_train_steps_per_call)
    except SpecError as exc:
        return _refuse(exc)
    clock = worker.StepClock(worker.wall_clock_s(settings))
    try:  # training and programs share the workers' slots, in one fair queue
        async with runs.admission.slot(runs.client, runs.session):
            clock.start()  # the wall clock counts from the slot: an answer comes within it
            if trainer.estimated_ms() <= INLINE_MS:
                result = run(trainer, clock)
            else:  # a client that hangs up stops it at its next step, freeing the slot
                watcher = asyncio.create_task(stop_when_gone(http, clock.cancel))
                try:
                    result = await worker.in_thread(lambda: run(trainer, clock), clock, pool)
                finally:
                    watcher.cancel()
    except Busy as exc:  # 503 (saturated) or 429 (this client's share is taken)
        return refused(exc, runs.stats)
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
            "`done` event with the whole TrainResponse (`truncated` when the wall clock, "
            "`train_wall_clock_s` for the whole stream, stopped it). Closing the connection "
            "stops the run at its next step.",
        },
    },
    response_class=StreamingResponse,
    summary="The same run as server-sent events; stops when the client disconnects",
)
def train_stream(request: TrainRequest, http: Request, runs: Runs, pool: TrainPool) -> Response:
    """Progress rows as they are computed, the final state last (up to max_stream_steps)."""
    settings = runs.settings
    try:
        trainer = Trainer(request, settings, settings.max_stream_steps)
    except SpecError as exc:
        return _refuse(exc)
    return StreamingResponse(
        stream.events(
            trainer,
            http.is_disconnected,
            runs.admission,
            runs.client,
            runs.session,
            clock=worker.StepClock(worker.wall_clock_s(settings)),
            pool=lambda: pool,
        ),
        media_type="text/event-stream",
        headers={"cache-control": "no-store", "x-accel-buffering": "no"},
    )


@router.websocket("/train/live")
async def train_live(websocket: WebSocket, runs: Runs, pool: TrainPool) -> None:
    """The page's live run: see GET /api/v1/train/live for the protocol."""
    await live.serve(websocket, runs.settings, runs.admission, runs.client, runs.session, pool=pool)


LIVE_DOC = """\
**A WebSocket endpoint**: connect to `ws://HOST/api/v1/train/live` (`wss://` behind TLS). A
plain GET answers `426 Upgrade Required`. This is how the `/train` page plays: one connection
per run however long it plays (the rate limit counts the connection, not the updates), updates
paced by the page, settings changed mid-run taking effect at the next update. REST clients can
use `POST /api/v1/train` (stateless, state carried by the client) or `/train/stream` instead.

Messages are JSON text. **Client → server** (`LiveClientMessage`):

- `{"type": "start", "run": 1, "request": TrainRequest, "playing": false}`: (re)start the run.
  `request.state` null starts from fresh weights; a state from an earlier update resumes from
  it (a page whose connection dropped reconnects, to any replica, and sends its last state).
  `request.steps` is the number of steps per update while playing (at least 1). A paused
  start answers with an update at once (the model evaluated, no step).
- `{"type": "change", "request": TrainRequest}`: new settings for the running model (learning
  rate, optimizer, batch size, steps per update, added points, device); the run keeps its
  parameters and the request's `state` is ignored. Takes effect at the next update; a paused
  run answers with an evaluated update. A model or dataset change needs a `start`.
- `{"type": "play"}`, `{"type": "pause"}`.
- `{"type": "step", "id": 7, "include_graph": true}`: pause and take exactly one step; its
  update carries `"id": 7` (and the step's graph and PyTorch program if asked).
- `{"type": "ack"}`: the client has shown one update. The server sends at most 2 updates
  ahead of the acks, so the run goes at the client's pace and a hidden tab costs nothing.

**Server → client**: `{"type": "update", "run", "seq", "id", "response": TrainResponse}`
(`run` echoes the start's, so a client drops updates of a run it has reset; the history
holds the steps since the previous update), or `{"type": "error", "run", "detail"}` when a
message or a spec is refused (as the 422 of POST /train would be); an error pauses the run.

Every update is exactly what `POST /api/v1/train` returns for the same spec and state:
playing 40 updates of 5 steps equals one call of 200 steps, bit for bit. Each update has the
wall clock of one such call: an update it cuts short says `truncated` and the run goes on from
there at the next update.

**Close codes**: 1001 idle for 5 minutes, or the connection's age limit (30 minutes) reached
(reconnect and `start` with your last state when you need the run again); 1008 a message that
is not JSON text; 1009 a message over the body size limit; 1011 an internal error; 1013 too
many live runs on this server, or from your address: the close reason is
`{"retry_after": seconds}`: retry after that long, with some random extra so that a classroom
does not retry in step. A connection that sends no `start` within 10 seconds of opening is
closed (1001).
"""


@router.get(
    "/train/live",
    status_code=426,
    responses={426: {"description": "Upgrade Required: this path is a WebSocket endpoint."}},
    summary="The /train page's live run, over a WebSocket (protocol)",
    description=LIVE_DOC,
)
async def train_live_doc() -> Response:
    """A plain GET cannot play: 426 with the WebSocket upgrade it needs."""
    return OrjsonResponse(
        {"detail": "this is a WebSocket endpoint: connect with ws:// (see /docs)"},
        status_code=426,
        headers={"upgrade": "websocket"},
    )
