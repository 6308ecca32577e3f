"""Start the sandbox from the settings: its slots, budgets and jail mode, and the refusal to run
programs unjailed on a public address."""

from __future__ import annotations

import ipaddress
import logging

from engine import backend
from server import capacity
from server.sandbox.pool import Sandbox, SandboxConfig, SandboxUnavailable
from server.settings import Settings

log = logging.getLogger(__name__)


def is_loopback(host: str) -> bool:
    """127.0.0.0/8, ::1 and localhost."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def start(settings: Settings, extra_sys_path: list[str] | None = None) -> Sandbox:
    """Start the zygote and its workers; refuse an unjailed sandbox on a public address."""
    short, long = capacity.run_slots(settings)
    config = SandboxConfig(
        workers=short,
        long_workers=long,
        slice_s=settings.sandbox_slice_s,
        restart_deadline_s=settings.sandbox_restart_deadline_s,
        wall_clock_s=settings.wall_clock_s,
        grace_s=settings.hard_kill_grace_s,
        cpu_seconds=settings.cpu_s,
        memory_bytes=settings.sandbox_memory_limit_bytes,
        max_output_chars=settings.max_output_chars,
        max_result_bytes=settings.max_answer_bytes,
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
