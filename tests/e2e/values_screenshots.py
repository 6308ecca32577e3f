"""Screenshots of your own autograd, drawn (issue 13): ``python -m tests.e2e.values_screenshots``.

Writes PNGs to artifacts/screenshots/values-*.png: the lesson's Value engine mid-walk, the
broken-+= copy compared with PyTorch (first and last pass), and micrograd's MLP of Values.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from server.examples import EXAMPLES
from tests.e2e.live_server import CHROMIUM_LAUNCH_ARGS, live_server
from tests.e2e.programs import program_url
from tests.e2e.screenshots import wait_ready

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "artifacts" / "screenshots"
SOURCES = {e.id: e.source for e in EXAMPLES}


def shoot(page: Page, name: str) -> None:
    path = OUT / f"values-{name}.png"
    page.mouse.move(0, 0)
    page.screenshot(path=str(path))
    print(f"wrote {path.relative_to(ROOT)}")


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    with live_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**CHROMIUM_LAUNCH_ARGS)
        page = browser.new_context(base_url=url, viewport={"width": 1280, "height": 720}).new_page()
        page.goto(program_url(SOURCES["seed-tiny-autograd"], **{"pass": "0", "step": "1"}))
        wait_ready(page)
        shoot(page, "seed-walk-step1")
        page.goto(program_url(SOURCES["value-broken-plus-equals"], cmp="1", **{"pass": "0"}))
        wait_ready(page)
        shoot(page, "broken-compare-pass1")
        page.get_by_test_id("pass-select").select_option("2")
        page.wait_for_timeout(300)
        shoot(page, "broken-compare-pass3")
        page.goto(program_url(SOURCES["micrograd-mlp"], cmp="1"))
        wait_ready(page)
        shoot(page, "micrograd-mlp")
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
