"""Pydantic request/response models: the public contract (DESIGN.md, "API contract")."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class Health(BaseModel):
    status: Literal["ok"]


class DeviceInfo(BaseModel):
    name: str = Field(examples=["cpu", "cuda"])
    available: bool
    reason: str | None = Field(default=None, description="Why the device is unavailable.")
