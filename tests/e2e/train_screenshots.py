"""Screenshots of the train page (`python -m tests.e2e.train_screenshots`).

Writes PNGs to artifacts/screenshots/ and refreshes docs/screenshot-train.png. Runs the real app
and Debian's chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from tests.e2e.live_server import CHROMIUM_LAUNCH_ARGS, live_server

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "artifacts" / "screenshots"
README_SHOT = ROOT / "docs" / "screenshot-train.png"


def train_until(page: Page, step: int) -> None:
    """Play until the step counter reaches `step`, then pause."""
    page.get_by_test_id("train-play").click()
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=train-step]').textContent) >= n",
        arg=step,
        timeout=60_000,
    )
    page.get_by_test_id("train-play").click()
    page.wait_for_timeout(300)


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    README_SHOT.parent.mkdir(parents=True, exist_ok=True)
    shots = [
        ("train-moons", "#spu=10", 300, "light"),
        (
            "train-spiral-dark",
            "#data=spiral&classes=3&n=300&noise=0.05&hidden=16,16,16&spu=25",
            800,
            "dark",
        ),
        ("train-xor-fresh", "#data=xor&n=400", 0, "light"),
    ]
    with live_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**CHROMIUM_LAUNCH_ARGS)
        for name, hash_, steps, theme in shots:
            context = browser.new_context(
                viewport={"width": 1280, "height": 800}, color_scheme=theme
            )  # type: ignore[arg-type]
            page = context.new_page()
            page.goto(f"{url}/train{hash_}")
            page.wait_for_function(
                "document.querySelector('[data-testid=boundary]').dataset.updates"
            )
            if steps:
                train_until(page, steps)
            path = OUT / f"{name}.png"
            page.screenshot(path=str(path))
            print(f"wrote {path.relative_to(ROOT)}")
            if name == "train-moons":
                README_SHOT.write_bytes(path.read_bytes())
            context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
