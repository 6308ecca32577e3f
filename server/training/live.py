"""The train page's live run over one WebSocket (/api/v1/train/live).

One connection carries a whole run, however long it plays: the page sends commands (start,
change, play, pause, step) and an ``ack`` for each update it has shown; the server computes
updates one at a time (a tiny one on the event loop, as POST /train does, a larger one in a
thread of the training pool; each stops at the wall clock of a POST /train call) and never more
than ``window`` ahead of the page, so a run goes at the page's
frame rate and a hidden tab costs nothing. The rate limiter sees one request per connection,
not one per frame.

Nothing outlives the connection: every update carries the state, and a page whose connection
drops (or is closed for idleness or age, code 1001) reconnects and resumes from the last state
it received, on whichever replica it reaches. Determinism makes that seamless: a run resumed
from a state takes exactly the steps the old connection would have taken.

Close codes: 1001 idle or lifetime reached (reconnect when needed); 1008 a message that is not
a JSON text; 1009 a message over ``max_body_bytes`` (the server reads no more of it than its
header: uvicorn's ``ws_max_size`` is the same cap); 1011 an internal error; 1013 too many live
runs in this process, or from this client (address), with the reason ``{"retry_after": s}``.

Idle sockets cannot starve real runs: a connection that has not sent its ``start`` within
``start_s`` is closed, one that goes quiet for ``idle_s`` too, and one address holds at most
``max_runs_per_client`` of the process's ``max_runs``.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import threading
import time
from dataclasses import dataclass
from functools import partial
from typing import Any

import anyio
from pydantic import TypeAdapter, ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.admission import Admission
from server.serialize import dumps
from server.settings import Settings
from server.training.errors import SpecError
from server.training.schemas import (
    LiveAck,
    LiveChange,
    LiveClientMessage,
    LivePause,
    LivePlay,
    LiveStart,
    LiveStep,
    TrainRequest,
    TrainState,
)
from server.training.trainer import INLINE_MS, Trainer
from server.training.worker import StepClock, admitted, in_thread, wall_clock_s

log = logging.getLogger(__name__)

MESSAGES: TypeAdapter[LiveClientMessage] = TypeAdapter(LiveClientMessage)

CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_ERROR = 1011
CLOSE_TRY_LATER = 1013


@dataclass(frozen=True)
class LiveLimits:
    """The live endpoint's limits (read when a connection opens; tests replace ``LIMITS``)."""

    #: Updates sent and not yet acknowledged: 2 keeps the server busy while the page draws.
    window: int = 2
    #: A connection that sends nothing for this long is closed (1001); a playing page acks
    #: every frame, so this closes paused pages and hidden tabs, which reconnect when needed.
    idle_s: float = 300.0
    #: A connection is closed (1001) after the first update past this age, so that long
    #: sessions spread over replicas as they scale; the page reconnects at once and resumes.
    lifetime_s: float = 1800.0
    #: A connection that has not started a run this long after opening is closed (1001).
    start_s: float = 10.0
    #: Live runs one process serves at once, and from one client (address: a classroom behind
    #: one NAT plays from one); the next is closed with 1013 and ``retry_after``.
    max_runs: int = 128
    max_runs_per_client: int = 48
    retry_after_s: int = 5
    #: One-step commands queued at once (a page sends one per click or key press).
    max_queued_steps: int = 64


LIMITS = LiveLimits()


class LiveCounter:
    """Open live runs, in all and per client, and the work they did (tests watch a hang-up
    stop a run)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.active = 0
        self.by_client: collections.Counter[str] = collections.Counter()
        self.steps = 0
        self.updates = 0

    def try_open(self, limit: int, client: str = "", per_client: int | None = None) -> bool:
        with self._lock:
            if self.active >= limit:
                return False
            if per_client is not None and self.by_client[client] >= per_client:
                return False
            self.active += 1
            self.by_client[client] += 1
            return True

    def close(self, client: str = "") -> None:
        with self._lock:
            self.active -= 1
            self.by_client[client] -= 1
            if self.by_client[client] <= 0:
                del self.by_client[client]

    def took(self, steps: int) -> None:
        with self._lock:
            self.steps += steps
            self.updates += 1


runs = LiveCounter()


@dataclass(frozen=True)
class Job:
    """One update to compute: the settings to apply first (if any), then the steps to take."""

    run: int
    seq: int
    play: bool  # take the request's steps per update; otherwise ``steps``
    steps: int
    record: bool
    id: int | None
    rebuild: TrainRequest | None
    keep_params: bool
    include_data: bool


class LiveRun:
    """One connection's run as commands and pending work. ``apply`` and ``next_job`` run on the
    event loop; ``execute`` runs in a worker thread and is the only code touching the trainer,
    one job at a time."""

    def __init__(self, settings: Settings, limits: LiveLimits) -> None:
        self.settings = settings
        self.limits = limits
        self.trainer: Trainer | None = None
        self.run = 0
        self.started = False
        self.playing = False
        self.in_flight = 0
        self.seq = 0
        self._rebuild: TrainRequest | None = None
        self._keep_params = False
        self._include_data = False
        self._evaluate = False
        self._steps: collections.deque[LiveStep] = collections.deque()

    def apply(self, message: LiveClientMessage) -> str | None:
        """Record a command; returns the reason it is refused, if it is (the run pauses)."""
        if isinstance(message, LiveAck):
            self.in_flight = max(0, self.in_flight - 1)
            return None
        if isinstance(message, LiveStart):
            self.run = message.run  # a refusal names the run it refuses
            if message.request.steps < 1:
                self.playing = False
                return "request.steps (steps per update) must be at least 1"
            self.started = True
            self._rebuild, self._keep_params = message.request, False
            self._include_data = message.request.include_data
            self.playing = message.playing
            self._evaluate = not message.playing
            self._steps.clear()
            return None
        if not self.started:
            return "send a `start` message first"
        if isinstance(message, LiveChange):
            if message.request.steps < 1:
                self.playing = False
                return "request.steps (steps per update) must be at least 1"
            request = message.request
            if self._rebuild is not None and not self._keep_params:
                # The start has not run yet: its state (fresh or resumed) still applies.
                request = request.model_copy(update={"state": self._rebuild.state})
            else:
                self._keep_params = True
            self._rebuild = request
            self._include_data = self._include_data or message.request.include_data
            self._evaluate = not self.playing
        elif isinstance(message, LivePlay):
            self.playing = True
        elif isinstance(message, LivePause):
            self.playing = False
        elif isinstance(message, LiveStep):
            if len(self._steps) >= self.limits.max_queued_steps:
                self.playing = False
                return f"more than {self.limits.max_queued_steps} steps queued"
            self.playing = False
            self._steps.append(message)
        return None

    def next_job(self) -> Job | None:
        """The next update to compute, or None while there is nothing to do (or no credit)."""
        if not self.started:
            return None
        step = self._steps.popleft() if self._steps else None
        play = step is None and not self._evaluate
        if play and not (self.playing and self.in_flight < self.limits.window):
            return None
        self.seq += 1
        job = Job(
            run=self.run,
            seq=self.seq,
            play=play,
            steps=1 if step else 0,
            record=bool(step and step.include_graph),
            id=step.id if step else None,
            rebuild=self._rebuild,
            keep_params=self._keep_params,
            include_data=self._include_data,
        )
        self._rebuild, self._include_data, self._evaluate = None, False, False
        self.in_flight += 1
        return job

    def refused(self, job: Job) -> None:
        """A job whose settings were refused sent an error, not an update: pause the run."""
        self.in_flight = max(0, self.in_flight - 1)
        self.playing = False
        self._steps.clear()

    def estimated_ms(self, job: Job) -> float:
        """A high guess of the job's milliseconds (infinite when it builds a new trainer)."""
        if job.rebuild is not None or self.trainer is None:
            return float("inf")
        return self.trainer.estimated_ms(self.trainer.req.steps if job.play else job.steps)

    def execute(
        self, job: Job, clock: StepClock | None = None
    ) -> tuple[Trainer | None, bytes, bool]:
        """Apply the job's settings and take its steps (in a worker thread), stopping between
        steps when ``clock`` says so (the update's wall clock ran out, or the page went away):
        the trainer to keep, the message to send, and whether it is an update (else an
        error)."""
        trainer = self.trainer
        try:
            if job.rebuild is not None:
                request = job.rebuild
                if job.keep_params and trainer is not None:
                    carried = TrainState.model_validate(trainer.state())
                    request = request.model_copy(update={"state": carried})
                trainer = Trainer(request, self.settings, self.settings.max_train_steps_per_call)
        except SpecError as exc:
            # A refused start leaves no run; refused new settings leave the run as it was.
            return (trainer if job.keep_params else None), error(job.run, str(exc)), False
        if trainer is None:
            return None, error(job.run, "no run: the last `start` was refused"), False
        steps = trainer.req.steps if job.play else job.steps
        t0 = time.perf_counter()
        history = trainer.advance(steps, record_last=job.record, clock=clock)
        timing = {"setup": trainer.setup_ms if job.rebuild else 0.0,
                  "train": round((time.perf_counter() - t0) * 1000, 3)}  # fmt: skip
        response = trainer.result(
            history, timing, include_data=job.include_data, clock=clock, asked=steps
        )
        runs.took(len(history))
        update = {"type": "update", "run": job.run, "seq": job.seq, "id": job.id,
                  "response": response}  # fmt: skip
        return trainer, dumps(update), True


def error(run: int | None, detail: Any) -> bytes:
    """A LiveError message."""
    return dumps({"type": "error", "run": run, "detail": detail})


class LiveConnection:
    """Serves one accepted WebSocket: a task receiving commands, a loop computing updates."""

    def __init__(
        self,
        websocket: WebSocket,
        settings: Settings,
        limits: LiveLimits,
        admission: Admission | None = None,
        client: str = "",
        session: str = "",
        pool: anyio.CapacityLimiter | None = None,
    ) -> None:
        self.websocket = websocket
        self.pool = pool
        self.settings = settings
        self.limits = limits
        self.admission = admission
        self.client = client
        self.session = session
        self.run = LiveRun(settings, limits)
        self.opened = time.monotonic()
        self._wake = anyio.Event()
        self._send_lock = anyio.Lock()

    async def serve(self) -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(self._compute, group.cancel_scope)
            await self._receive()
            group.cancel_scope.cancel()

    async def _send(self, text: bytes) -> None:
        async with self._send_lock:
            await self.websocket.send_text(text.decode())

    async def _close(self, code: int, reason: str = "") -> None:
        async with self._send_lock:
            with contextlib.suppress(RuntimeError):  # already closed by the client
                await self.websocket.close(code, reason)

    async def _receive(self) -> None:
        """Apply the client's messages until it hangs up, goes idle or breaks the protocol."""
        while True:
            patience = self.limits.idle_s if self.run.started else self.limits.start_s
            with anyio.move_on_after(patience) as idle:
                message = await self.websocket.receive()
            if idle.cancelled_caught:
                await self._close(CLOSE_GOING_AWAY, '{"idle": true}')
                return
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if text is None:
                await self._close(CLOSE_POLICY, "send JSON text messages")
                return
            if len(text) > self.settings.max_body_bytes:
                await self._close(CLOSE_TOO_BIG, f"over {self.settings.max_body_bytes} bytes")
                return
            try:
                command = MESSAGES.validate_json(text)
            except ValidationError as exc:
                detail = json.loads(exc.json(include_url=False, include_input=False))
                await self._send(error(None, detail))
                continue
            refusal = self.run.apply(command)
            if refusal is not None:
                await self._send(error(self.run.run, refusal))
            self._wake.set()

    async def _compute(self, scope: anyio.CancelScope) -> None:
        """Compute and send updates as the commands and the page's acks allow."""
        try:
            while True:
                self._wake = anyio.Event()  # before next_job: no wake-up is lost
                job = self.run.next_job()
                if job is None:
                    await self._wake.wait()
                    continue
                # Each update takes a slot in the admission queue that programs use too, so a
                # classroom training live and running programs share the machine fairly; a busy
                # server makes the updates wait (the page just plays slower), never fail.
                # Each update has the wall clock of a POST /train call, from its slot on.
                clock = StepClock(wall_clock_s(self.settings))
                async with admitted(self.admission, self.client, self.session):
                    clock.start()
                    # As POST /train does: a tiny update (a few ms) runs on the event loop,
                    # where two thread hand-offs would cost about as much and, on a busy
                    # machine, far more; a larger one (or a new trainer) in a thread of the
                    # training pool, which stops at its next step once the page hangs up.
                    if self.run.estimated_ms(job) <= INLINE_MS:
                        trainer, message, updated = self.run.execute(job, clock)
                    else:
                        trainer, message, updated = await in_thread(
                            partial(self.run.execute, job, clock), clock, self.pool
                        )
                self.run.trainer = trainer
                if not updated:
                    self.run.refused(job)
                await self._send(message)
                if time.monotonic() - self.opened > self.limits.lifetime_s:
                    await self._close(CLOSE_GOING_AWAY, '{"reconnect": true}')
                    scope.cancel()
                    return
        except (WebSocketDisconnect, OSError):
            scope.cancel()
        except Exception:
            log.exception("live training failed")
            await self._close(CLOSE_ERROR, "internal error")
            scope.cancel()


async def serve(
    websocket: WebSocket,
    settings: Settings,
    admission: Admission | None = None,
    client: str = "",
    session: str = "",
    pool: anyio.CapacityLimiter | None = None,
) -> None:
    """Accept and serve one live run (refused with 1013 and retry_after beyond max_runs, or
    beyond max_runs_per_client from one client)."""
    limits = LIMITS
    await websocket.accept()
    if not runs.try_open(limits.max_runs, client, limits.max_runs_per_client):
        await websocket.close(CLOSE_TRY_LATER, json.dumps({"retry_after": limits.retry_after_s}))
        return
    try:
        await LiveConnection(websocket, settings, limits, admission, client, session, pool).serve()
    finally:
        runs.close(client)
