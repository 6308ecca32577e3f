"""Schemathesis against the app's own OpenAPI schema: no input, valid or not, gets a 5xx."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, settings

schemathesis = pytest.importorskip("schemathesis")

from server.app import create_app  # noqa: E402
from tests.api.conftest import make_settings  # noqa: E402

APP = create_app(make_settings())
schema = schemathesis.openapi.from_asgi("/openapi.json", APP)


@schema.parametrize()
@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_input_gets_a_server_error(case: schemathesis.Case) -> None:
    response = case.call()
    assert response.status_code < 500, (
        case.method,
        case.path,
        response.status_code,
        response.text[:300],
    )
