"""Screenshots of each state of the playground (`make screenshots`).

Writes PNGs to artifacts/screenshots/: each state of the tiny example in both themes, every
gallery example mid-walk at 1280x800 and presented at 1024x768, and the 3-layer MLP (also with
the module fields the engine is to add, collapsed and with the walk inside a module). Refreshes
docs/screenshot-walk.png, the README's opening picture, so it never goes stale. Runs the real app
and Debian's chromium.
"""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import Browser, Page, sync_playwright

from server.examples import EXAMPLES
from tests.e2e import contracts
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


def open_fresh(page: Page, url: str) -> None:
    """Load `url` as a new page (a hash-only change would keep the old page and its last run)."""
    page.goto("about:blank")
    page.goto(url)
    wait_ready(page)


def step_to(page: Page, position: int) -> None:
    page.get_by_test_id("graph").focus()
    page.keyboard.press("Home")
    for _ in range(position):
        page.keyboard.press("ArrowRight")
    page.mouse.move(0, 0)
    page.wait_for_function(
        "() => document.querySelector('[data-testid=graph]').dataset.state === 'ready'"
    )
    page.wait_for_timeout(150)


def walk_total(page: Page) -> int:
    return int(page.get_by_test_id("walk-position").inner_text().split("/")[1])


def gallery(browser: Browser, url: str) -> None:
    """Every example mid-walk at 1280x800, and presented at 1024x768; the MLP too."""
    for presented, size in (
        (False, {"width": 1280, "height": 800}),
        (True, {"width": 1024, "height": 768}),
    ):
        context = browser.new_context(base_url=url, viewport=size)  # type: ignore[arg-type]
        page = context.new_page()
        suffix = "-presented" if presented else ""
        shots = [(e.id, e.source) for e in EXAMPLES] + [("mlp", contracts.MLP)]
        for name, source in shots:
            open_fresh(page, program_url(source))
            if presented:
                page.keyboard.press("p")
            step_to(page, (walk_total(page) + 1) // 2)
            shoot(page, f"example-{name}{suffix}")
        # The MLP as it will be drawn once the engine sends its modules: shut, then walking inside.
        contracts.serve(
            page, contracts.with_mlp_modules(contracts.run_program(page, contracts.MLP))
        )
        open_fresh(page, program_url(contracts.MLP))
        if presented:
            page.keyboard.press("p")
        step_to(page, walk_total(page))
        shoot(page, f"example-mlp-modules{suffix}")
        step_to(page, 2)
        shoot(page, f"example-mlp-modules-inside{suffix}")
        context.close()


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
                viewport={"width": 1280, "height": 800},
                color_scheme=theme,  # type: ignore[arg-type]
            )
            page = context.new_page()
            suffix = "" if theme == "light" else "-dark"

            open_fresh(page, program_url(TINY))
            page.mouse.move(0, 0)
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

            open_fresh(page, program_url(EXPRESSION, b="w:0.5:g,x:2,b:0:g,y:7"))
            shoot(page, f"expression-bindings{suffix}")
            page.locator("[data-testid=graph] [data-node-name=w]").click()
            shoot(page, f"node-details{suffix}")

            open_fresh(page, program_url(NAME_ERROR))
            shoot(page, f"error{suffix}")

            open_fresh(page, program_url(TINY, step="1"))
            page.keyboard.press("p")
            page.mouse.move(0, 0)
            shoot(page, f"presentation{suffix}")
            page.keyboard.press("Escape")

            if theme == "light":
                open_fresh(page, program_url(BIG_GRAPH))
                shoot(page, "big-graph")
                page.set_viewport_size({"width": 1024, "height": 768})
                open_fresh(page, program_url(TINY, step="2"))
                shoot(page, "tiny-1024x768")
            context.close()
        gallery(browser, url)
        browser.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
