"""Typed settings: host, port, default device, budgets. Environment prefix ``AGP_``."""

from __future__ import annotations

import functools

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
    max_ast_depth: int = 64
    max_steps: int = 1_000_000  # interpreter steps (statements + expression nodes)
    max_loop_iterations: int = 200_000  # all loops and comprehensions together
    max_call_depth: int = 64  # nested calls of the user's own functions
    max_int_bits: int = 4096  # size of an int made by **, *, <<
    max_str_len: int = 100_000
    max_list_len: int = 100_000  # lists, tuples, dicts, sets
    max_tensor_elements: int = 1_000_000  # one tensor
    max_total_elements: int = 20_000_000  # all tensors one program allocates
    max_flops: int = 500_000_000
    max_graph_nodes: int = 5_000
    max_recorded_passes: int = 20  # backward passes kept in `passes` (first and last kept)
    max_output_chars: int = 100_000
    wall_clock_s: float = 3.0  # the interpreter stops itself here ...
    hard_kill_grace_s: float = 1.0  # ... and the worker is killed this much later
    # Worker processes that run programs (one BLAS thread each).
    sandbox_workers: int = 8
    sandbox_memory_limit_bytes: int = 2 * 1024**3  # address-space cap per worker; 0 = none
    sandbox_queue_timeout_s: float = 20.0  # then 429 "busy"

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
