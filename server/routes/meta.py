"""For operators and load balancers: liveness, readiness, metrics (unversioned), and the
devices a program may ask for."""

from __future__ import annotations

import logging

from fastapi import APIRouter, Request
from starlette.responses import Response

from engine import backend
from server.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.metrics import metrics_of
from server.routes.deps import MaybeAdmission, MaybeSandbox
from server.schemas import DeviceInfo, Health, Ready
from server.serialize import OrjsonResponse

#: liveness, readiness, metrics: unversioned
meta = APIRouter(tags=["meta"])
#: the devices, under the versioned API
router = APIRouter(prefix="/api/v1", tags=["meta"])
log = logging.getLogger(__name__)


@meta.get(
    "/healthz",
    response_model=Health,
    responses={503: {"model": Health, "description": "Failing: the sandbox cannot restart."}},
)
def healthz(sandbox: MaybeSandbox) -> Response:
    """Liveness: the process answers (cheap: no work) and its sandbox is up or coming back;
    503 once it has not been able to serve for ``sandbox_restart_deadline_s``: no zygote for
    that long (restarts keep failing), or one that has not answered its heartbeat for that long
    (killing it did not help), so that an orchestrator restarts the server. Says how programs
    are confined."""
    failing = sandbox.failing() if sandbox is not None and not sandbox.live() else None
    if failing is not None:
        log.error("liveness fails: %s", failing)
        body = Health(status="failing", sandbox="failed")
        return OrjsonResponse(body.model_dump(), status_code=503)
    body = Health(status="ok", sandbox=sandbox.mode if sandbox is not None else "starting")
    return OrjsonResponse(body.model_dump())


@meta.get(
    "/readyz",
    response_model=Ready,
    responses={503: {"model": Ready, "description": "Not ready: starting, or saturated."}},
)
def readyz(sandbox: MaybeSandbox, admission: MaybeAdmission) -> Response:
    """Readiness: whether this replica can take work now: a live zygote with workers ready or
    running, and room in the queue. A load balancer sends new requests elsewhere while this
    says 503 (starting, a zygote restarting or not answering its heartbeat, or saturated), and
    ``reason`` says why."""
    why = sandbox.not_ready() if sandbox is not None else "the sandbox is starting"
    if sandbox is None or admission is None or why is not None:
        mode = sandbox.mode if sandbox is not None else "starting"
        again = sandbox is not None and bool(mode == "restarting" or sandbox.stuck)
        body = Ready(
            status="restarting" if again else "starting",
            sandbox=mode,
            reason=why or "the server is starting",
        )
        return OrjsonResponse(body.model_dump(), status_code=503)
    body = Ready(
        status="ready" if admission.queued < admission.queue_limit else "saturated",
        sandbox=sandbox.mode,
        running=admission.running,
        queued=admission.queued,
        slots=admission.slots,
        ready_workers=sandbox.ready_workers(),
    )
    return OrjsonResponse(body.model_dump(), status_code=200 if body.status == "ready" else 503)


@meta.get("/metrics", include_in_schema=False)
def metrics(http: Request) -> Response:
    """Prometheus metrics: queue depth, runs, refusals, run latency (see server/metrics.py)."""
    registry = metrics_of(http.app)
    body = registry.render() if registry is not None else b""
    return Response(body, media_type=METRICS_CONTENT_TYPE)


@router.get("/devices", response_model=list[DeviceInfo])
def devices() -> list[DeviceInfo]:
    """The devices a program may ask for, with the reason when one is unavailable."""
    return [DeviceInfo(**d) for d in backend.devices()]
