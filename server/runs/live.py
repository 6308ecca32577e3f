"""A run over one WebSocket: the streamed run's events, and a Stop that keeps what it recorded.

``POST /api/v1/run/stream`` can only be stopped by closing its connection, which kills the
program's worker at once: what it printed so far is on the page, but the passes it recorded
die with the worker. A lesson's training loop stopped after 30 s should keep its graphs, as
Jupyter's interrupt keeps a notebook's state. Over a WebSocket the page can say ``stop``
while the run goes on:

1. the page sends ``{"type": "run", "request": {...}}`` (a ``RunRequest``, or for the
   notebook's socket a ``NotebookRunRequest``) within ``START_S`` of connecting;
2. the server sends the streamed run's events, one JSON text message each (``start``,
   ``stdout``, ``cell``, ``progress``, then ``result`` with the whole response; or ``busy``
   with ``retry_after_s``, or ``invalid`` with the validation error's ``detail``), and closes
   (1000) after the last;
3. ``{"type": "stop"}`` at any time stops the program softly (:meth:`Cancel.stop_softly`):
   a ``KeyboardInterrupt`` is raised where it is, and the ``result`` that follows holds what
   it printed and the passes it recorded until then, as an error at that line. The server
   says ``stopping`` at once. A program that cannot stop within the grace (stuck in one
   native call) is killed, and its result says so.

Closing the socket instead kills the worker at once (a newer run replacing this one). The
same admission control as the HTTP routes applies (one connection is one request to the rate
limiter and one run to the fair share). Close codes: 1000 done; 1001 nothing sent within
``START_S``; 1008 a message that is not JSON text; 1009 a message over the body cap.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any, Generic, Literal, TypeVar

import anyio
from pydantic import BaseModel, ConfigDict, TypeAdapter, ValidationError
from starlette.websockets import WebSocket, WebSocketDisconnect

from server.runs.stream import RunStream, event_line

Request = TypeVar("Request", bound=BaseModel)

#: seconds a connection may take to send its run
START_S = 10.0
CLOSE_DONE = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009


class StopMessage(BaseModel):
    """``{"type": "stop"}``: stop the program softly, keeping what it recorded."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["stop"]


class RunMessage(BaseModel, Generic[Request]):
    """``{"type": "run", "request": {...}}``: the run, the first message."""

    model_config = ConfigDict(extra="forbid")
    type: Literal["run"]
    request: Request


#: what the server makes of a run: a stream to relay, or the lines of an answer given at once
#: (a refusal: its device is not here, or admission control is full)
Opened = RunStream | list[bytes]


async def serve(
    websocket: WebSocket,
    request_model: type[BaseModel],
    open_run: Callable[[Any], Awaitable[Opened]],
    max_bytes: int,
) -> None:
    """Serve one run over ``websocket``: read its request, ``open_run`` it, relay the events
    while listening for ``stop``."""
    await websocket.accept()
    run_message = RunMessage[request_model]  # type: ignore[valid-type]
    text = await _receive_text(websocket, START_S, max_bytes)
    if text is None:
        return
    try:
        request = run_message.model_validate_json(text).request
    except ValidationError as exc:
        detail = json.loads(exc.json(include_url=False, include_input=False))
        await _send(websocket, event_line("invalid", 0.0, detail=detail))
        await _close(websocket, CLOSE_POLICY, "the first message must be a run")
        return
    opened = await open_run(request)
    if isinstance(opened, list):
        for line in opened:
            await _send(websocket, line)
        await _close(websocket, CLOSE_DONE)
        return
    stream = opened
    lock = anyio.Lock()  # one message at a time: the relay's, or the listener's `stopping`
    try:
        async with anyio.create_task_group() as group:
            group.start_soon(_listen, websocket, stream, max_bytes, lock, group.cancel_scope)
            try:
                async for line in stream.events():
                    async with lock:
                        await _send(websocket, line)
            except (WebSocketDisconnect, OSError, RuntimeError):
                pass  # the page went away: stream.close() below ends the run
            await _close(websocket, CLOSE_DONE)
            group.cancel_scope.cancel()
    finally:
        stream.close()


async def _listen(
    websocket: WebSocket,
    stream: RunStream,
    max_bytes: int,
    lock: anyio.Lock,
    scope: anyio.CancelScope,
) -> None:
    """While the run goes on: ``stop`` stops it softly; a closed socket kills it now."""
    stop = TypeAdapter(StopMessage)
    while True:
        try:
            message = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            message = {"type": "websocket.disconnect"}
        if message["type"] == "websocket.disconnect":
            stream.close()  # nobody is left to read its answer
            scope.cancel()
            return
        text = message.get("text")
        if text is None or len(text) > max_bytes:
            continue  # only `stop` means anything now; the run goes on
        try:
            stop.validate_json(text)
        except ValidationError:
            continue
        stream.stop_softly()
        with contextlib.suppress(WebSocketDisconnect, OSError, RuntimeError):
            async with lock:
                await _send(websocket, event_line("stopping", stream.elapsed_s()))


async def _receive_text(websocket: WebSocket, within_s: float, max_bytes: int) -> str | None:
    """The first message's text, or None (the socket closed, with the code that says why)."""
    with anyio.move_on_after(within_s) as idle:
        try:
            message = await websocket.receive()
        except (WebSocketDisconnect, RuntimeError):
            return None
    if idle.cancelled_caught:
        await _close(websocket, CLOSE_GOING_AWAY, "no run was sent")
        return None
    if message["type"] == "websocket.disconnect":
        return None
    text = message.get("text")
    if text is None:
        await _close(websocket, CLOSE_POLICY, "send JSON text messages")
        return None
    if len(text) > max_bytes:
        await _close(websocket, CLOSE_TOO_BIG, f"over {max_bytes} bytes")
        return None
    return str(text)


async def _send(websocket: WebSocket, line: bytes) -> None:
    await websocket.send_text(line.rstrip(b"\n").decode())


async def _close(websocket: WebSocket, code: int, reason: str = "") -> None:
    with contextlib.suppress(RuntimeError, OSError):  # already closed by the client
        await websocket.close(code, reason)
