"""JSON API, version 1."""

from __future__ import annotations

from fastapi import APIRouter

from engine import backend
from server.schemas import DeviceInfo, Health

router = APIRouter()


@router.get("/healthz", response_model=Health, tags=["meta"])
def healthz() -> Health:
    """Liveness: the process answers."""
    return Health(status="ok")


@router.get("/api/v1/devices", response_model=list[DeviceInfo], tags=["meta"])
def devices() -> list[DeviceInfo]:
    """The devices a program may ask for, with the reason when one is unavailable."""
    return [DeviceInfo(**d) for d in backend.devices()]
