"""The run service: start the sandbox from settings, run one request, answer validated JSON."""

from __future__ import annotations

import ipaddress
import logging
from typing import Any

import orjson
from pydantic import ValidationError

from engine import backend
from server.program.budgets import Budgets
from server.sandbox.pool import Outcome, Sandbox, SandboxConfig, SandboxUnavailable
from server.schemas import RunRequest, RunResponse
from server.settings import Settings

log = logging.getLogger(__name__)

UNJAILED_NOTICE = (
    "This server runs programs without a kernel jail (no seccomp here): it serves this "
    "machine only. Do not expose it."
)


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def long_workers(settings: Settings) -> int:
    """Slots for long programs (besides ``sandbox_workers`` for short ones)."""
    return settings.sandbox_long_workers or 2 * settings.sandbox_workers


def start(settings: Settings, extra_sys_path: list[str] | None = None) -> Sandbox:
    """Start the zygote and its workers; refuse an unjailed sandbox on a public address."""
    config = SandboxConfig(
        workers=settings.sandbox_workers,
        long_workers=long_workers(settings),
        slice_s=settings.sandbox_slice_s,
        restart_deadline_s=settings.sandbox_restart_deadline_s,
        wall_clock_s=settings.wall_clock_s,
        grace_s=settings.hard_kill_grace_s,
        cpu_seconds=settings.cpu_s,
        memory_bytes=settings.sandbox_memory_limit_bytes,
        max_output_chars=settings.max_output_chars,
        mode=settings.sandbox,
        cuda_workers=1 if backend.cuda_is_available() else 0,
        warm_workers=settings.sandbox_warm_workers,
        extra_sys_path=list(extra_sys_path or []),
    )
    sandbox = Sandbox(config)
    if sandbox.mode == "none":
        if settings.sandbox == "auto" and not is_loopback(settings.host):
            sandbox.close()
            raise SandboxUnavailable(
                f"no kernel jail here ({sandbox.reason}): refusing to run programs for "
                f"{settings.host}; serve on a loopback address, or set AGP_SANDBOX=none to "
                "run unjailed on purpose"
            )
        log.warning("sandbox: programs run WITHOUT a kernel jail (%s)", sandbox.reason)
    else:
        log.info(
            "sandbox: seccomp jail, Landlock ABI %d, %d workers", sandbox.landlock, config.workers
        )
    return sandbox


def job_for(request: RunRequest, settings: Settings) -> dict[str, Any]:
    """The job a worker runs: the request plus the budgets (plain JSON)."""
    return {
        "source": request.source,
        "device": request.device,
        "seed": request.seed,
        "bindings": {
            k: (v.model_dump() if hasattr(v, "model_dump") else v)
            for k, v in request.bindings.items()
        },
        "budgets": Budgets.from_settings(settings).as_dict(),
        "compare": request.compare,
    }


def error_response(device: str, type_name: str, message: str, stdout: str = "") -> dict[str, Any]:
    return {
        "ok": False, "stdout": stdout, "output_truncated": False, "output_chars": None,
        "graph": None, "passes": [], "passes_total": 0,
        "result": None, "notice": None, "device": device, "timing_ms": {},
        "error": {"type": type_name, "message": message, "line": None, "col": None},
    }  # fmt: skip


def respond(outcome: Outcome, device: str, unjailed: bool) -> bytes:
    """Merge what the worker sent with what it printed, validate it, encode it."""
    if outcome.result is not None:
        body = outcome.result
        body["stdout"] = outcome.stdout
        body.setdefault("output_truncated", False)
        body.setdefault("output_chars", None)
    else:
        error = outcome.error or {"type": "RuntimeError", "message": "the program failed"}
        body = error_response(device, error["type"], error["message"], outcome.stdout)
        body["error"].update({k: error[k] for k in ("line", "traceback") if error.get(k)})
    timing = body.get("timing_ms")
    if isinstance(timing, dict):
        timing.update(outcome.timing_ms)
    if unjailed:
        notice = body.get("notice")
        body["notice"] = (
            f"{notice}\n{UNJAILED_NOTICE}"
            if isinstance(notice, str) and notice
            else UNJAILED_NOTICE
        )
    try:
        RunResponse.model_validate(body, strict=True)
    except ValidationError as exc:
        log.warning("a worker's result failed validation: %s", exc.errors()[:3])
        body = error_response(
            device, "RuntimeError", "the program's worker sent a malformed result", outcome.stdout
        )
    return orjson.dumps(body)
