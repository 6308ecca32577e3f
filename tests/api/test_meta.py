"""Health and device endpoints."""

from __future__ import annotations

from fastapi.testclient import TestClient

from server.app import create_app
from server.sandbox import jail


def test_healthz_says_how_programs_are_confined() -> None:
    with TestClient(create_app()) as client:
        response = client.get("/healthz")
    assert response.status_code == 200
    expected = "seccomp" if jail.probe()[0] else "none"
    assert response.json() == {"status": "ok", "sandbox": expected}


def test_devices_lists_cpu_and_cuda_with_reason() -> None:
    client = TestClient(create_app())
    devices = {d["name"]: d for d in client.get("/api/v1/devices").json()}
    assert devices["cpu"]["available"] is True
    assert "cuda" in devices
    if not devices["cuda"]["available"]:
        assert devices["cuda"]["reason"]
