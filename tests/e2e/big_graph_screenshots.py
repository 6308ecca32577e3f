"""Screenshots of big graphs for the docs (``python -m tests.e2e.big_graph_screenshots``).

Writes docs/screenshot-big-first-view.png (an MLP feeding a 20-step RNN cell, right after Run at
1366x768: its repetition collapsed into one series box), docs/screenshot-series-walk.png (a tanh
RNN unrolled 30 steps, mid-walk: the series open at the iteration the walk is in, `t = …` in the
caption) and docs/screenshot-presented-720p.png (the first of them presented at 1280x720).
Runs the real app and Debian's chromium.
"""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from tests.e2e.live_server import CHROMIUM_LAUNCH_ARGS, live_server
from tests.e2e.programs import program_url
from tests.e2e.test_big_graphs import MANUAL_RNN, MLP_RNN

DOCS = Path(__file__).resolve().parents[2] / "docs"


def wait_ready(page: Page) -> None:
    page.wait_for_function(
        "() => { const g = document.querySelector('[data-testid=graph]');"
        " return g.dataset.state === 'ready' && Number(g.dataset.runCount || 0) >= 1; }"
    )


def main() -> None:
    with live_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**CHROMIUM_LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(url + program_url(MLP_RNN))
        wait_ready(page)
        page.screenshot(path=DOCS / "screenshot-big-first-view.png")
        page.set_viewport_size({"width": 1280, "height": 720})
        page.keyboard.press("p")
        wait_ready(page)
        page.screenshot(path=DOCS / "screenshot-presented-720p.png")
        page.set_viewport_size({"width": 1366, "height": 768})
        page.goto("about:blank")
        page.goto(url + program_url(MANUAL_RNN))
        wait_ready(page)
        page.get_by_test_id("graph").focus()
        for position in range(2, 22):
            page.keyboard.press("ArrowRight")
            page.get_by_test_id("walk-position").filter(has_text=f"{position} /").wait_for()
        page.mouse.move(0, 0)
        wait_ready(page)
        page.screenshot(path=DOCS / "screenshot-series-walk.png")
        browser.close()
    for name in ("big-first-view", "presented-720p", "series-walk"):
        print(f"wrote docs/screenshot-{name}.png")


if __name__ == "__main__":
    main()
