"""Browser tests: the real app on a loopback port, driven by Debian's chromium."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.live_server import CHROMIUM_LAUNCH_ARGS, live_server

ROOT = Path(__file__).resolve().parents[2]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test in this folder drives a browser."""
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def app_url() -> Iterator[str]:
    """Base URL of the app, started once per session."""
    if not (ROOT / "static" / "dist" / "manifest.json").exists():
        pytest.fail("static/dist is not built: run `make frontend` (make test does it)")
    with live_server() as url:
        yield url


@pytest.fixture(scope="session")
def base_url(app_url: str) -> str:
    """pytest-playwright resolves page.goto("/") against this."""
    return app_url


@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict[str, Any]:
    """Debian's chromium, headless; never a downloaded browser."""
    return dict(CHROMIUM_LAUNCH_ARGS)


@pytest.fixture(scope="session")
def browser_context_args(base_url: str) -> dict[str, Any]:
    """A 1280×720 window that may use the clipboard (the share button)."""
    return {
        "base_url": base_url,
        "viewport": {"width": 1280, "height": 720},
        "permissions": ["clipboard-read", "clipboard-write"],
    }


@pytest.fixture
def expected_console_errors() -> list[str]:
    """Patterns of console errors a test provokes on purpose (a 503 it serves logs one)."""
    return []


@pytest.fixture(autouse=True)
def no_console_errors(page: Any, expected_console_errors: list[str]) -> Iterator[None]:
    """Fail a test whose page logged an error (a CSP violation, an exception, a failed load)."""
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"exception: {error}"))
    page.on(
        "console",
        lambda message: errors.append(message.text) if message.type == "error" else None,
    )
    page.on(
        "requestfailed",
        lambda request: (
            None
            if request.failure == "net::ERR_ABORTED"
            else errors.append(f"request failed: {request.url}")
        ),
    )
    yield
    unexpected = [e for e in errors if not any(re.search(p, e) for p in expected_console_errors)]
    assert not unexpected, unexpected
