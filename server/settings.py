"""Typed settings: host, port, default device, budgets. Environment prefix ``AGP_``."""

from __future__ import annotations

import functools
import os
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict
from starlette.requests import HTTPConnection


class Settings(BaseSettings):
    """Every knob of the service, overridable by environment variables (``AGP_PORT=9000``)."""

    model_config = SettingsConfigDict(env_prefix="AGP_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    default_device: str = "cpu"
    # CuPy's memory pool cap, so one request cannot take the whole card.
    cuda_memory_limit_bytes: int = 4 * 1024**3
    # Request hygiene.
    max_body_bytes: int = 256 * 1024  # also the largest WebSocket message
    # A connection must send a request's head within this many seconds (from its first byte,
    # or from connecting), and a body within this many more; else it is closed (head) or
    # answered 408 (body). Idle kept-alive connections close after `keep_alive_s`.
    header_timeout_s: float = 10.0
    body_timeout_s: float = 10.0
    keep_alive_s: int = 5
    # JSON answers and pages at least this big are gzipped for clients that accept it.
    gzip_min_bytes: int = 1024
    # Per-client limit on /api/ requests (token bucket, a minute's worth of burst). The default
    # serves a classroom behind one address: forty students running a program every 0.5-2.5 s
    # make ~27 requests a second (make bench: the classroom load), and 3,600 a minute leaves
    # twice that. Live training counts once per run (one connection), not per update. 0 turns
    # it off, for deployments that limit at their edge.
    rate_limit_per_minute: int = 3600
    # Peers whose X-Forwarded-For / Forwarded headers name the client (uvicorn's
    # --forwarded-allow-ips: comma-separated addresses or networks, "*" for any). Empty: none,
    # so every client is its peer address and a spoofed header changes nothing.
    forwarded_allow_ips: str = ""
    # Admission control (server/admission.py): how many requests may wait for a worker (0: four
    # per worker) and for how long at most (never past the wall clock); beyond, 503 +
    # Retry-After.
    admission_queue: int = 0
    admission_max_wait_s: float = 10.0
    # Server processes for `make run` / `python -m server` (each has its own sandbox).
    workers: int = Field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)))
    # For testing the pages' back-off: the first N work requests (POST /api/...) of each client
    # get a 503 with Retry-After, as a saturated server answers.
    busy_first_requests: int = 0

    # Program budgets (server/program/budgets.py): every one enforced, every one tested. They
    # bound what a run costs (wall clock, CPU, memory, below) and what the page draws, never
    # what a program may compute.
    max_source_bytes: int = 64 * 1024
    max_ast_nodes: int = 20_000
    max_ast_depth: int = 100
    max_graph_nodes: int = 5_000  # nodes of one drawn pass (a bigger graph: around its root)
    max_recorded_passes: int = 20  # backward passes kept in `passes` (first and last kept)
    max_kept_nodes: int = 5_000  # nodes of the kept passes together (then only the latest)
    max_drawn_numbers: int = 2_000_000  # numbers a drawn graph of the program's own Values holds
    max_output_chars: int = 100_000  # also each of the error's message, the notice, a result
    # A worker's answer is hostile input (server/sandbox/answers.py): at most this many bytes
    # and this many JSON objects and arrays, both checked before it is parsed; beyond, the run
    # answers a malformed-answer error. The biggest real answers of the test corpus (367
    # programs): 11.6 MB with 407,000 (a micrograd MLP lecture's 20 drawn passes), 9.1 MB with
    # 261,000, 3.1 MB with 74,000.
    max_answer_bytes: int = 24 * 1024 * 1024
    max_answer_items: int = 600_000
    # The program gets a TimeoutError here (sized for a lesson's training loop: minutes) ...
    wall_clock_s: float = 180.0
    hard_kill_grace_s: float = 1.0  # ... and its worker is SIGKILLed this much later
    cpu_s: int = 0  # RLIMIT_CPU per worker; 0 = wall clock + grace + 1 s
    # The jail: "auto" uses seccomp where the kernel has it, else runs unjailed on a loopback
    # host only (with a notice); "seccomp" refuses to start without it; "none" runs unjailed
    # anywhere (for development on a machine without seccomp: never on a public address).
    sandbox: Literal["auto", "seccomp", "none"] = "auto"
    # Programs running at once (one-shot jailed workers, as many kept pre-forked). More than
    # the cores: a program stuck in a loop holds a core until its wall clock, and the kernel
    # time-slices the others past it, so short programs stay fast.
    sandbox_workers: int = Field(default_factory=lambda: _default_sandbox_workers())
    # A program that has used this much CPU is *long*: it is reniced (it yields the cores to
    # short programs) and moves to its own slots, of which there are this many more (0: twice
    # sandbox_workers), so that endless loops cannot hold the slots a class's short runs need.
    sandbox_slice_s: float = 0.25
    sandbox_long_workers: int = 0
    # A long program for which no long slot is free (all taken, or its client holds one
    # already) keeps its short slot at most this long, then stops with a TimeoutError that
    # says so (what it printed and recorded is kept); a long slot freed in time takes it on.
    sandbox_overdue_s: float = 1.0
    # Without a running zygote for this long (its restarts keep failing), /healthz fails.
    sandbox_restart_deadline_s: float = 30.0
    # RLIMIT_AS per worker (its address space: ~120 MiB is NumPy and the engine); 0 = none.
    sandbox_memory_limit_bytes: int = 1024**3
    sandbox_queue_timeout_s: float = 10.0
    # Memory admission (server/capacity.py): the runs held at once, short and long, times
    # sandbox_memory_limit_bytes must fit this budget; 0: the cgroup's limit (else the host's
    # memory) less server_memory_reserve_bytes per server process, shared by the processes.
    run_memory_budget_bytes: int = 0
    server_memory_reserve_bytes: int = 1024**3
    # Fair share (server/admission.py): what one client (its address, or the address a
    # trusted proxy names, and its browser session) may hold: short runs, long runs, and
    # requests waiting; beyond, 429 with Retry-After. 0: no limit.
    client_short_slots: int = 2
    client_long_slots: int = 1
    client_queue: int = 4
    # Each pre-forked worker pays its first-run costs (copy-on-write faults, cold caches: ~3 ms)
    # on a warm-up program while it waits, instead of on the learner's program.
    sandbox_warm_workers: bool = True  # then 503 "busy" with Retry-After

    # Training budgets (POST /api/v1/train and /train/stream): oversized specs get a 422.
    max_train_parameters: int = 10_000  # weights + biases of the MLP
    max_train_steps_per_call: int = 1_000  # /api/v1/train
    max_stream_steps: int = 20_000  # /api/v1/train/stream
    max_train_step_cost: int = 4_000_000  # parameters x (batch + evaluated samples), per step
    max_boundary_grid: int = 100  # cells per side of the decision-boundary grid
    # Training runs in the server process, in a pool of its own off the event loop
    # (server/training/worker.py): a call, a stream or a live update stops between two steps
    # after this many seconds and answers what it did; threads at once (0: one per core, at
    # most the short slots: more only take turns at the GIL).
    train_wall_clock_s: float = 30.0
    train_threads: int = 0


def _default_sandbox_workers() -> int:
    """Four programs per core across the machine, shared by the server processes."""
    processes = int(os.environ.get("AGP_WORKERS", "1") or 1)
    return max(2, min(16, 4 * (os.cpu_count() or 1)) // max(1, processes))


@functools.lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings from its environment (what `python -m server` serves with)."""
    return Settings()


def app_settings(connection: HTTPConnection) -> Settings:
    """The settings of the app serving this request: the one way routes read settings.

    ``create_app(settings)`` keeps them on ``app.state``; a plain function rather than a
    FastAPI dependency, which would cost a thread hop per request for a ``def`` provider.
    """
    settings: Settings = connection.app.state.settings
    return settings
