"""Screenshots of each state of the playground (`make screenshots`).

Writes PNGs to artifacts/screenshots/ and refreshes docs/screenshot-walk.png, the README's
opening picture, so it never goes stale. Runs the real app and Debian's chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from tests.e2e.live_server import CHROMIUM_LAUNCH_ARGS, live_server
from tests.e2e.programs import BIG_GRAPH, EXPRESSION, NAME_ERROR, TINY, program_url

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "artifacts" / "screenshots"
README_SHOT = ROOT / "docs" / "screenshot-walk.png"


def wait_ready(page: Page, runs: int = 1) -> None:
    page.wait_for_function(
        "n => { const g = document.querySelector('[data-testid=graph]');"
        " return g.dataset.state === 'ready' && Number(g.dataset.runCount || 0) >= n; }",
        arg=runs,
    )


def step_to(page: Page, position: int) -> None:
    page.get_by_test_id("graph").focus()
    page.keyboard.press("Home")
    for _ in range(position):
        page.keyboard.press("ArrowRight")
    page.mouse.move(0, 0)


def shoot(page: Page, name: str) -> Path:
    path = OUT / f"{name}.png"
    page.screenshot(path=str(path))
    print(f"wrote {path.relative_to(ROOT)}")
    return path


def main() -> int:
    OUT.mkdir(parents=True, exist_ok=True)
    README_SHOT.parent.mkdir(parents=True, exist_ok=True)
    with live_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**CHROMIUM_LAUNCH_ARGS)
        for theme in ("light", "dark"):
            context = browser.new_context(
                base_url=url,
                viewport={"width": 1280, "height": 720},
                color_scheme=theme,  # type: ignore[arg-type]
            )
            page = context.new_page()
            suffix = "" if theme == "light" else "-dark"

            page.goto(program_url(TINY))
            wait_ready(page)
            shoot(page, f"tiny-end{suffix}")
            step_to(page, 0)
            shoot(page, f"tiny-forward{suffix}")
            step_to(page, 1)
            shoot(page, f"tiny-walk-accumulate{suffix}")
            step_to(page, 4)
            walk = shoot(page, f"tiny-walk-w{suffix}")
            if theme == "light":
                README_SHOT.write_bytes(walk.read_bytes())
                print(f"wrote {README_SHOT.relative_to(ROOT)}")

            page.goto(program_url(EXPRESSION, b="w:0.5:g,x:2,b:0:g,y:7"))
            wait_ready(page)
            shoot(page, f"expression-bindings{suffix}")
            page.locator("[data-testid=graph] [data-node-name=w]").click()
            shoot(page, f"node-details{suffix}")

            page.goto(program_url(NAME_ERROR))
            wait_ready(page)
            shoot(page, f"error{suffix}")

            page.goto(program_url(TINY, step="1"))
            wait_ready(page)
            page.keyboard.press("p")
            page.mouse.move(0, 0)
            shoot(page, f"presentation{suffix}")
            page.keyboard.press("Escape")

            if theme == "light":
                page.goto(program_url(BIG_GRAPH))
                wait_ready(page)
                shoot(page, "big-graph")
                page.set_viewport_size({"width": 1024, "height": 768})
                page.goto(program_url(TINY, step="2"))
                wait_ready(page)
                shoot(page, "tiny-1024x768")
            context.close()
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
