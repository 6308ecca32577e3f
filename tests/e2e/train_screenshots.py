"""Screenshots of the train page (`python -m tests.e2e.train_screenshots`).

Writes PNGs to artifacts/screenshots/ and refreshes docs/screenshot-train.png. Runs the real app
and Debian's chromium, at 1280x800: a trained model, a dark spiral, a fresh page, a diverging
run with its warning, and the calm notice of a busy server.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from server.training import live
from tests.e2e.live_server import CHROMIUM_LAUNCH_ARGS, live_server

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "artifacts" / "screenshots"
README_SHOT = ROOT / "docs" / "screenshot-train.png"


def wait_step(page: Page, step: int) -> None:
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=train-step]').textContent) >= n",
        arg=step,
        timeout=60_000,
    )


def train_until(page: Page, step: int) -> None:
    """Play until the step counter reaches `step`, then pause."""
    page.get_by_test_id("train-play").click()
    wait_step(page, step)
    page.get_by_test_id("train-play").click()
    page.wait_for_timeout(300)


def diverge(page: Page) -> None:
    """Play at a learning rate of 10 until the warning shows, then pause."""
    page.get_by_test_id("train-play").click()
    page.get_by_test_id("train-diverge").wait_for(state="visible", timeout=20_000)
    wait_step(page, 100)
    page.get_by_test_id("train-play").click()
    page.wait_for_timeout(300)


def busy(page: Page) -> None:
    """Play, then have the server refuse new live runs for a while: the page's connection,
    opened with a 1-second lifetime, is closed and its reconnect refused."""
    page.get_by_test_id("train-play").click()
    wait_step(page, 150)
    live.LIMITS = live.LiveLimits(lifetime_s=1, max_runs=0, retry_after_s=20)
    page.get_by_test_id("train-link").wait_for(state="visible", timeout=20_000)
    page.wait_for_timeout(300)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    README_SHOT.parent.mkdir(parents=True, exist_ok=True)
    shots = [
        ("train-moons", "#spu=10", lambda page: train_until(page, 300), "light"),
        (
            "train-spiral-dark",
            "#data=spiral&classes=3&n=300&noise=0.05&hidden=16,16,16&spu=25",
            lambda page: train_until(page, 800),
            "dark",
        ),
        ("train-xor-fresh", "#data=xor&n=400", None, "light"),
        ("train-diverging", "#lr=10", diverge, "light"),
        ("train-busy", "", busy, "light"),
    ]
    with live_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**CHROMIUM_LAUNCH_ARGS)
        for name, hash_, action, theme in shots:
            live.LIMITS = live.LiveLimits(lifetime_s=1 if action is busy else 1800)
            context = browser.new_context(
                viewport={"width": 1280, "height": 800}, color_scheme=theme
            )  # type: ignore[arg-type]
            page = context.new_page()
            page.goto(f"{url}/train{hash_}")
            page.wait_for_function(
                "() => document.querySelector('[data-testid=boundary]').dataset.updates"
            )
            if action:
                action(page)
            path = OUT / f"{name}.png"
            page.screenshot(path=str(path))
            print(f"wrote {path.relative_to(ROOT)}")
            if name == "train-moons":
                README_SHOT.write_bytes(path.read_bytes())
            context.close()
        live.LIMITS = live.LiveLimits()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
