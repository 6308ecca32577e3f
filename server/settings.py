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


@functools.lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings (cached; tests override the dependency instead)."""
    return Settings()
