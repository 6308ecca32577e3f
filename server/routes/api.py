"""JSON API, version 1."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from starlette.responses import Response

from engine import backend
from server.examples import gallery
from server.sandbox import service
from server.sandbox.pool import PoolBusy, Sandbox
from server.schemas import DeviceInfo, ErrorBody, Example, Health, RunRequest, RunResponse
from server.serialize import OrjsonResponse, dumps, json_bytes_response
from server.settings import Settings, get_settings

router = APIRouter()
log = logging.getLogger(__name__)
SettingsDep = Annotated[Settings, Depends(get_settings)]

REQUEST_ERRORS: dict[int | str, dict[str, Any]] = {
    413: {"model": ErrorBody, "description": "Request body over the size limit."},
    415: {"model": ErrorBody, "description": "Request body is not application/json."},
    422: {
        "description": "The request does not match RunRequest (FastAPI's validation error body)."
    },
    429: {"model": ErrorBody, "description": "Rate limit exceeded (Retry-After says when)."},
    503: {"model": ErrorBody, "description": "Every worker stayed busy (Retry-After says when)."},
}


@router.get("/healthz", response_model=Health, tags=["meta"])
def healthz(http: Request) -> Health:
    """Liveness: the process answers; says how programs are confined."""
    sandbox = getattr(http.app.state, "sandbox", None)
    return Health(status="ok", sandbox=sandbox.mode if sandbox is not None else "starting")


@router.get("/api/v1/devices", response_model=list[DeviceInfo], tags=["meta"])
def devices() -> list[DeviceInfo]:
    """The devices a program may ask for, with the reason when one is unavailable."""
    return [DeviceInfo(**d) for d in backend.devices()]


def _unavailable_device(device: str) -> str | None:
    """Why ``device`` cannot run programs here, or None."""
    info = {d["name"]: d for d in backend.devices()}
    kind = device.split(":")[0]
    if info.get(kind, {}).get("available", False):
        return None
    return str(info.get(kind, {}).get("reason") or "not available")


@router.post(
    "/api/v1/run",
    response_model=RunResponse,
    responses=REQUEST_ERRORS,
    tags=["playground"],
    summary="Run a program; return its output, error and recorded graphs",
)
def run(request: RunRequest, http: Request, settings: SettingsDep) -> Response:
    """Run a program (or a bare expression) as real Python in a one-shot jailed worker.

    Errors in the program (syntax, runtime, autograd, budget) are a normal 200 response with
    ``ok: false`` and ``error`` located at line:col, like a REPL.
    """
    reason = _unavailable_device(request.device)
    if reason is not None:
        body = service.error_response(
            request.device, "RuntimeError", f"device '{request.device}' is not available: {reason}"
        )
        return json_bytes_response(dumps(body))
    sandbox: Sandbox = http.app.state.sandbox
    try:
        outcome = sandbox.run(service.job_for(request, settings), settings.sandbox_queue_timeout_s)
    except PoolBusy:
        return OrjsonResponse(
            {"detail": "every sandbox worker is busy; retry shortly"},
            status_code=503,
            headers={"retry-after": "1"},
        )
    return json_bytes_response(service.respond(outcome, request.device, sandbox.mode == "none"))


@router.get("/api/v1/examples", response_model=list[Example], tags=["playground"])
def examples() -> Response:
    """The examples gallery: the lessons' worked examples, each with an explanation."""
    return json_bytes_response(dumps(gallery()))
