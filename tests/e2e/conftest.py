"""Browser tests: the real app on a loopback port, driven by Debian's chromium."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterator
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


#: Chromium's CPU slowed down this many times (CDP ``Emulation.setCPUThrottlingRate``), e.g.
#: ``AGP_E2E_CPU_THROTTLE=4``: a test that then fails assumed how fast the machine runs
#: instead of waiting for what the page promises. Off (1) by default.
CPU_THROTTLE = float(os.environ.get("AGP_E2E_CPU_THROTTLE", "1") or 1)


def throttle_cpu(page: Any) -> None:
    """Slow ``page``'s CPU down by :data:`CPU_THROTTLE` (nothing when it is 1)."""
    if CPU_THROTTLE > 1:
        cdp = page.context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": CPU_THROTTLE})


@pytest.fixture(scope="session", autouse=True)
def cpu_throttle() -> Iterator[None]:
    """With AGP_E2E_CPU_THROTTLE set, every page a test opens (the ``page`` fixture's, or one
    it makes with ``new_page``) runs on a throttled CPU."""
    if CPU_THROTTLE <= 1:
        yield
        return
    from playwright.sync_api import Browser, BrowserContext

    def throttled(original: Callable[..., Any]) -> Callable[..., Any]:
        def new_page(self: Any, *args: Any, **kwargs: Any) -> Any:
            page = original(self, *args, **kwargs)
            throttle_cpu(page)
            return page

        return new_page

    saved = (Browser.new_page, BrowserContext.new_page)
    Browser.new_page = throttled(saved[0])  # type: ignore[method-assign]
    BrowserContext.new_page = throttled(saved[1])  # type: ignore[method-assign]
    try:
        yield
    finally:
        Browser.new_page, BrowserContext.new_page = saved  # type: ignore[method-assign]


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
