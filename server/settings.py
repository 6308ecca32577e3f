"""Typed settings: host, port, default device, budgets. Environment prefix ``AGP_``."""

from __future__ import annotations

import functools
import os
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Every knob of the service, overridable by environment variables (``AGP_PORT=9000``)."""

    model_config = SettingsConfigDict(env_prefix="AGP_", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    default_device: str = "cpu"
    # CuPy's memory pool cap, so one request cannot take the whole card.
    cuda_memory_limit_bytes: int = 4 * 1024**3
    # Request hygiene.
    max_body_bytes: int = 256 * 1024
    rate_limit_per_minute: int = 240  # 0 turns rate limiting off (tests)

    # Program budgets (server/sandbox): every one enforced, every one tested.
    max_source_bytes: int = 64 * 1024
    max_ast_nodes: int = 20_000
    max_ast_depth: int = 100
    max_tensor_elements: int = 1_000_000  # one tensor
    max_total_elements: int = 20_000_000  # all tensors one program allocates
    max_flops: int = 500_000_000
    max_graph_nodes: int = 5_000
    max_recorded_passes: int = 20  # backward passes kept in `passes` (first and last kept)
    max_output_chars: int = 100_000
    wall_clock_s: float = 5.0  # the program gets a TimeoutError here ...
    hard_kill_grace_s: float = 1.0  # ... and its worker is SIGKILLed this much later
    cpu_s: int = 0  # RLIMIT_CPU per worker; 0 = wall clock + grace + 1 s
    # The jail: "auto" uses seccomp where the kernel has it, else runs unjailed on a loopback
    # host only (with a notice); "seccomp" refuses to start without it; "none" runs unjailed
    # anywhere (for development on a machine without seccomp: never on a public address).
    sandbox: Literal["auto", "seccomp", "none"] = "auto"
    # Programs running at once (one-shot jailed workers, as many kept pre-forked). More than
    # the cores: a program stuck in a loop holds a core until its wall clock, and the kernel
    # time-slices the others past it, so short programs stay fast.
    sandbox_workers: int = Field(default_factory=lambda: min(16, 4 * (os.cpu_count() or 1)))
    # RLIMIT_AS per worker (its address space: ~120 MiB is NumPy and the engine); 0 = none.
    sandbox_memory_limit_bytes: int = 1024**3
    sandbox_queue_timeout_s: float = 10.0  # then 503 "busy" with Retry-After

    # Training budgets (POST /api/v1/train and /train/stream): oversized specs get a 422.
    max_train_parameters: int = 10_000  # weights + biases of the MLP
    max_train_steps_per_call: int = 1_000  # /api/v1/train
    max_stream_steps: int = 20_000  # /api/v1/train/stream
    max_train_step_cost: int = 4_000_000  # parameters x (batch + evaluated samples), per step
    max_boundary_grid: int = 100  # cells per side of the decision-boundary grid


@functools.lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (cached; tests override the dependency instead)."""
    return Settings()
