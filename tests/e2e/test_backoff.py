"""The pages back off from a busy server (issue 12), against a real server made busy by a
setting: ``busy_first_requests`` answers each client's first pieces of work with 503 and
Retry-After (a POST), or closes its live-training connection with 1013 and the wait, exactly
as a saturated server does. The page shows a calm "busy, retrying" state, waits, and carries
on without losing the program or the training state."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from server.app import create_app
from tests.api.conftest import make_settings
from tests.e2e.live_server import live_server
from tests.e2e.programs import TINY, program_url

BUSY_FIRST = 2


@pytest.fixture
def busy_url() -> Iterator[str]:
    """A fresh busy server per test (the count of refused work is per client)."""
    app = create_app(make_settings(busy_first_requests=BUSY_FIRST))
    with live_server(app) as url:
        yield url


@pytest.fixture
def expected_console_errors() -> list[str]:
    # Chromium logs every 5xx answer to the console; these are served on purpose.
    return [r"status of 503 \(Service Unavailable\)"]


def test_playground_waits_out_a_busy_server_and_keeps_the_program(
    page: Page, busy_url: str
) -> None:
    # Each run is a socket: a refused one is closed at once (1013) with nothing on it, the
    # one that runs carries the result.
    answers: list[list[str]] = []

    def opened(socket: Any) -> None:
        if socket.url.endswith("/api/v1/run/live"):
            frames: list[str] = []
            answers.append(frames)
            socket.on("framereceived", lambda payload: frames.append(str(payload)))

    page.on("websocket", opened)
    page.goto(busy_url + program_url(TINY))
    status = page.get_by_test_id("run-status")
    expect(status).to_have_text(re.compile(r"busy: retrying in \d+ s"))
    expect(status).to_have_attribute("data-state", "busy")
    expect(page.get_by_test_id("error")).to_be_hidden()
    expect(page.get_by_test_id("editor")).to_contain_text("loss = err * err")
    expect(status).to_have_text(re.compile(r"^Ran on cpu"), timeout=20_000)
    assert len(answers) == BUSY_FIRST + 1, answers
    assert all(frames == [] for frames in answers[:BUSY_FIRST]), answers
    assert '"event":"result"' in answers[-1][-1], answers[-1][-1][:200]
    page.get_by_test_id("walk-last").click()  # the walk opens at its first step: to its end
    expect(page.locator('[data-testid=graph] [data-node-name="w"]')).to_contain_text("−24")


def test_train_page_waits_out_a_busy_server_and_keeps_its_run(page: Page, busy_url: str) -> None:
    closes: list[Any] = []
    page.on("websocket", lambda ws: ws.on("close", lambda _ws: closes.append(ws.url)))
    page.goto(busy_url + "/train")
    notice = page.get_by_test_id("train-link")  # the page connects as it opens: refused
    expect(notice).to_contain_text("busy", timeout=20_000)
    page.get_by_test_id("train-play").click()  # pressed while it waits: kept, not lost
    expect(notice).to_be_hidden(timeout=30_000)
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=train-step]').textContent) >= 20",
        timeout=30_000,
    )
    expect(page.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("train-error")).to_be_hidden()
    page.get_by_test_id("train-play").click()
    assert closes, "the busy server closed the first live connections"
