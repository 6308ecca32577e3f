"""JSON API, version 1."""

from __future__ import annotations

import logging
from typing import Annotated, Any

from fastapi import APIRouter, Depends
from starlette.responses import Response

from engine import backend
from server.examples import gallery
from server.sandbox.budgets import Budgets
from server.sandbox.pool import PoolBusy, WorkerPool, get_pool
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
    429: {"model": ErrorBody, "description": "Rate limit exceeded, or every worker stayed busy."},
}


@router.get("/healthz", response_model=Health, tags=["meta"])
def healthz() -> Health:
    """Liveness: the process answers."""
    return Health(status="ok")


@router.get("/api/v1/devices", response_model=list[DeviceInfo], tags=["meta"])
def devices() -> list[DeviceInfo]:
    """The devices a program may ask for, with the reason when one is unavailable."""
    return [DeviceInfo(**d) for d in backend.devices()]


def sandbox_pool(settings: Settings) -> WorkerPool:
    """The process-wide worker pool for these settings."""
    return get_pool(
        settings.sandbox_workers, settings.sandbox_memory_limit_bytes, settings.hard_kill_grace_s
    )


def _user_error(device: str, type_name: str, message: str) -> bytes:
    return dumps(
        {
            "ok": False, "stdout": "", "graph": None, "passes": [], "notice": None,
            "device": device, "timing_ms": {},
            "error": {"type": type_name, "message": message, "line": None, "col": None},
        }
    )  # fmt: skip


@router.post(
    "/api/v1/run",
    response_model=RunResponse,
    responses=REQUEST_ERRORS,
    tags=["playground"],
    summary="Run a program; return its output, error and recorded graphs",
)
def run(request: RunRequest, settings: SettingsDep) -> Response:
    """Run a program (or bare expression) in a sandboxed worker.

    Errors in the program (syntax, runtime, autograd, budget) are a normal 200 response with
    ``ok: false`` and ``error`` located at line:col, like a REPL.
    """
    device_info = {d["name"]: d for d in backend.devices()}
    kind = request.device.split(":")[0]
    if not device_info.get(kind, {}).get("available", False):
        reason = device_info.get(kind, {}).get("reason") or "not available"
        return json_bytes_response(
            _user_error(
                request.device,
                "RuntimeError",
                f"device '{request.device}' is not available: {reason}",
            )
        )
    job = {
        "source": request.source,
        "device": request.device,
        "seed": request.seed,
        "bindings": {
            k: (v.model_dump() if hasattr(v, "model_dump") else v)
            for k, v in request.bindings.items()
        },
        "budgets": Budgets.from_settings(settings).as_dict(),
    }
    try:
        body = sandbox_pool(settings).run(
            job, settings.wall_clock_s, settings.sandbox_queue_timeout_s
        )
    except PoolBusy:
        return OrjsonResponse(
            {"detail": "all sandbox workers are busy; retry later"},
            status_code=429,
            headers={"retry-after": "1"},
        )
    except Exception as exc:
        log.exception("sandbox failure")
        body = _user_error(
            request.device,
            "RuntimeError",
            f"the sandbox failed to run the program ({type(exc).__name__})",
        )
    return json_bytes_response(body)


@router.get("/api/v1/examples", response_model=list[Example], tags=["playground"])
def examples() -> Response:
    """The examples gallery: the lessons' worked examples, each with an explanation."""
    return json_bytes_response(dumps(gallery()))
