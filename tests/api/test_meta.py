"""Health and device endpoints."""

from __future__ import annotations

from fastapi.testclient import TestClient

from server.app import create_app


def test_healthz() -> None:
    client = TestClient(create_app())
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}


def test_devices_lists_cpu_and_cuda_with_reason() -> None:
    client = TestClient(create_app())
    devices = {d["name"]: d for d in client.get("/api/v1/devices").json()}
    assert devices["cpu"]["available"] is True
    assert "cuda" in devices
    if not devices["cuda"]["available"]:
        assert devices["cuda"]["reason"]
