"""A TestClient on an app with small budgets so that hostile programs end quickly."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from server.app import create_app
from server.program.packing import unpack_answer
from server.schemas import Graph, RunResponse
from server.settings import Settings
from tests.e2e.live_server import live_server

TEST_SETTINGS = dict(
    rate_limit_per_minute=0,
    sandbox_workers=2,
    wall_clock_s=1.5,
    hard_kill_grace_s=0.5,
    max_output_chars=20_000,
    max_graph_nodes=2_000,
    max_drawn_numbers=2_000_000,
    sandbox_queue_timeout_s=10.0,
)


def make_settings(**overrides: Any) -> Settings:
    return Settings(**{**TEST_SETTINGS, **overrides})


@contextmanager
def one_slot_server() -> Iterator[tuple[str, FastAPI]]:
    """A real server (its URL and app) with one slot, a short wait for it and a long wall clock:
    a program still running holds the only slot, so the next run gets through only once it is
    really gone. (A program is made long only after 30 CPU seconds here: a long one would leave
    its short slot to the next run, tests/api/test_serving.py's subject, not the Stop tests'.)"""
    app = create_app(
        make_settings(
            sandbox_workers=1,
            admission_queue=1,
            admission_max_wait_s=0.5,
            wall_clock_s=20.0,
            sandbox_slice_s=30.0,
        )
    )
    with live_server(app) as url:
        yield url, app


@pytest.fixture(scope="session")
def client() -> Iterator[TestClient]:
    with TestClient(create_app(make_settings())) as c:
        yield c


def run(client: TestClient, source: str, **fields: Any) -> dict[str, Any]:
    """POST /api/v1/run and return the JSON body (asserting a 200), its passes unpacked into
    whole graphs (``graph`` the one shown): tests/api/test_packing.py tests the packed form."""
    response = client.post("/api/v1/run", json={"source": source, **fields})
    assert response.status_code == 200, response.text
    raw = response.json()
    RunResponse.model_validate(raw, strict=True)  # the packed answer is the documented one
    body: dict[str, Any] = unpack_answer(raw)
    return body


def validate_graphs(body: dict[str, Any], strict: bool = False) -> None:
    """Every graph of an unpacked answer (each pass, and ``graph``) is a documented Graph."""
    for graph in [*body["passes"], body["graph"]]:
        if graph is not None:
            Graph.model_validate(graph, strict=strict)
