"""How the sandbox runs: its workers, deadlines, budgets and jail mode (filled from the
settings by :mod:`server.sandbox.startup`)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class SandboxConfig:
    """How the sandbox runs; filled from Settings by the app."""

    workers: int = 2  # workers kept ready (and short programs running at once)
    long_workers: int = 0  # more programs that may run at once once they are long (demoted)
    wall_clock_s: float = 5.0
    grace_s: float = 1.0
    cpu_seconds: int = 0  # RLIMIT_CPU per worker; 0 = wall clock + 1
    memory_bytes: int = 1024**3
    max_output_chars: int = 100_000
    max_result_bytes: int = 24 * 1024 * 1024  # a RESULT frame (Settings.max_answer_bytes)
    mode: str = "auto"  # auto | seccomp | none
    cuda_workers: int = 0
    warm_up: bool = True  # run the gallery in the zygote before forking (warm caches)
    gc_freeze: bool = True  # gc.freeze() in the zygote (no copy-on-write from collections)
    warm_workers: bool = True  # each worker runs a warm-up program before it says READY
    #: CPU seconds after which a program is long: reniced, and moved to the long slots
    slice_s: float = 0.25
    #: without a live zygote for this long, the sandbox has failed (liveness says so)
    restart_deadline_s: float = 30.0
    #: keep a standby (a fork of the loaded zygote) that replaces a dead zygote at once
    standby: bool = True
    #: a zygote that has not answered a heartbeat (sent every HEARTBEAT_S) for this long is
    #: stuck (stopped, or hung): it is SIGKILLed and replaced
    heartbeat_timeout_s: float = 5.0
    extra_sys_path: list[str] = field(default_factory=list)
