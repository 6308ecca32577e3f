"""Issue 20 in Chromium: the playground (and /train) on a phone, an upright tablet, a laptop and
a projector; touch pan and pinch; the splitter and line wrapping; keyboard and motion."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from tests.e2e.programs import TINY, program_url
from tests.e2e.test_playground import node, replace_source, wait_ready
from tests.e2e.test_teaching import axe_violations

pytestmark = pytest.mark.e2e

PHONE = {"width": 390, "height": 844}
TABLET = {"width": 820, "height": 1180}
PROJECTOR = {"width": 1920, "height": 1080}
#: a training loop: 3 backward passes, so the pass picker shows
PASSES = """\
import torch
w = torch.tensor(1.0, requires_grad=True)
for step in range(3):
    loss = (w * 2.0 - 7.0) ** 2
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad.zero_()
"""


class Screen:
    """A browser context of one size whose pages fail the test on any console error."""

    def __init__(self, browser: Browser, base_url: str, **options: Any) -> None:
        self.context: BrowserContext = browser.new_context(base_url=base_url, **options)
        self.errors: list[str] = []

    def page(self) -> Page:
        page = self.context.new_page()
        page.on("pageerror", lambda error: self.errors.append(f"exception: {error}"))
        page.on(
            "console",
            lambda m: self.errors.append(m.text) if m.type == "error" else None,
        )
        return page

    def close(self) -> None:
        self.context.close()
        assert not self.errors, self.errors


@pytest.fixture
def screen(browser: Browser, base_url: str) -> Iterator[Any]:
    made: list[Screen] = []

    def make(**options: Any) -> Page:
        made.append(Screen(browser, base_url, **options))
        return made[-1].page()

    yield make
    for s in made:
        s.close()


def rect(locator: Locator) -> dict[str, float]:
    box = locator.bounding_box()
    assert box is not None, locator
    return box


def inside(box: dict[str, float], area: dict[str, float], slack: float = 0.5) -> bool:
    return (
        box["x"] >= area["x"] - slack
        and box["y"] >= area["y"] - slack
        and box["x"] + box["width"] <= area["x"] + area["width"] + slack
        and box["y"] + box["height"] <= area["y"] + area["height"] + slack
    )


def viewport(page: Page) -> dict[str, float]:
    size = page.viewport_size
    assert size is not None
    return {"x": 0, "y": 0, "width": size["width"], "height": size["height"]}


def no_sideways_scrolling(page: Page) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.evaluate("window.innerWidth"), width


def show_graph(page: Page) -> Locator:
    """Scroll the graph into view as a reader would (in the one-column layouts it is below the
    program) and return it."""
    graph = page.get_by_test_id("graph")
    page.locator(".stage").scroll_into_view_if_needed()
    page.evaluate("document.querySelector('.stage').scrollIntoView({block: 'start'})")
    return graph


# ---- a phone ----------------------------------------------------------------------------------


def test_phone_one_column_nothing_off_screen(screen: Any) -> None:
    page = screen(viewport=PHONE, has_touch=True, is_mobile=True)
    page.goto(program_url(TINY))
    wait_ready(page)
    no_sideways_scrolling(page)
    # The header's buttons are all on screen, none over another, and each takes a tap.
    buttons = [rect(page.get_by_test_id(t)) for t in ("examples", "share", "present", "theme")]
    buttons.append(rect(page.get_by_test_id("shortcuts-open")))
    for i, a in enumerate(buttons):
        assert inside(a, viewport(page)), a
        for b in buttons[i + 1 :]:
            apart = (
                a["x"] + a["width"] <= b["x"]
                or b["x"] + b["width"] <= a["x"]
                or a["y"] + a["height"] <= b["y"]
                or b["y"] + b["height"] <= a["y"]
            )
            assert apart, (a, b)
    # One column: the editor above the graph, both the screen's width.
    editor, graph = rect(page.locator("#editor-host")), rect(page.get_by_test_id("graph"))
    assert editor["y"] + editor["height"] <= graph["y"]
    assert graph["x"] >= 0 and graph["x"] + graph["width"] <= PHONE["width"] + 0.5
    assert graph["width"] >= PHONE["width"] - 2
    # After the run, with the graph scrolled into view: every node on screen, the walk bar too.
    show_graph(page)
    nodes = page.locator("[data-testid=graph] [data-node-id]")
    expect(nodes).to_have_count(8)
    for i in range(8):
        assert inside(rect(nodes.nth(i)), viewport(page)), i
    for control in ("walk-prev", "walk-play", "walk-next"):
        assert inside(rect(page.get_by_test_id(control)), viewport(page)), control
    no_sideways_scrolling(page)
    # The Examples dialog opens on screen (a tap on the button is not intercepted).
    page.evaluate("window.scrollTo(0, 0)")
    page.get_by_test_id("examples").tap()
    dialog = page.locator("#examples-dialog")
    expect(dialog).to_be_visible()
    assert inside(rect(dialog), viewport(page))


def test_on_a_phone_run_brings_the_graph_into_view_and_no_keys_are_advertised(
    screen: Any,
) -> None:
    """The graph is a screen below the program on a phone: Run scrolls it into view once its
    answer is drawn. A touch screen has no Ctrl+Enter: neither Run nor the editor offers it."""
    page = screen(viewport=PHONE, has_touch=True, is_mobile=True)
    page.goto(program_url(TINY))
    graph = wait_ready(page)
    page.evaluate("window.scrollTo(0, 0)")
    # the page's first run leaves the view alone: the graph starts low on the screen
    assert rect(graph)["y"] > PHONE["height"] / 2, rect(graph)
    expect(page.get_by_test_id("run").locator("kbd")).to_be_hidden()
    description = page.get_by_test_id("editor").evaluate(
        "el => el.getRootNode().getElementById(el.getAttribute('aria-describedby')).textContent"
    )
    assert "Ctrl+Enter" not in description and "Escape, then Tab" in description
    page.get_by_test_id("run").tap()
    wait_ready(page, runs=2)
    expect(graph).to_be_in_viewport(ratio=0.9)
    for control in ("walk-prev", "walk-play", "walk-next"):
        expect(page.get_by_test_id(control)).to_be_in_viewport()
    # A laptop still advertises the key.
    laptop = screen(viewport={"width": 1280, "height": 720})
    laptop.goto(program_url(TINY))
    wait_ready(laptop)
    expect(laptop.get_by_test_id("run").locator("kbd")).to_have_text("Ctrl+Enter")


def test_phone_touch_pans_pinches_and_taps(screen: Any) -> None:
    page = screen(viewport=PHONE, has_touch=True, is_mobile=True)
    page.goto(program_url(TINY))
    graph = wait_ready(page)
    show_graph(page)
    area = rect(graph)
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, points: list[tuple[float, float]]) -> None:
        cdp.send(
            "Input.dispatchTouchEvent",
            {
                "type": kind,
                "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)],
            },
        )

    def transform() -> tuple[float, float, float]:
        value = graph.locator("g.viewport").get_attribute("transform") or ""
        match = re.search(r"translate\(([-\d.e]+),([-\d.e]+)\) scale\(([-\d.e]+)\)", value)
        assert match, value
        x, y, k = (float(g) for g in match.groups())
        return x, y, k

    cx, cy = area["x"] + area["width"] / 2, area["y"] + area["height"] / 2
    x0, y0, k0 = transform()
    # Two fingers apart: zoom in around them.
    touch("touchStart", [(cx - 40, cy), (cx + 40, cy)])
    for step in range(1, 6):
        touch("touchMove", [(cx - 40 - 12 * step, cy), (cx + 40 + 12 * step, cy)])
    touch("touchEnd", [])
    _, _, k1 = transform()
    assert k1 > k0 * 1.5, (k0, k1)
    # One finger: pan.
    x1, y1, _ = transform()
    touch("touchStart", [(cx, cy)])
    for step in range(1, 6):
        touch("touchMove", [(cx - 10 * step, cy + 8 * step)])
    touch("touchEnd", [])
    x2, y2, _ = transform()
    assert x2 < x1 - 30 and y2 > y1 + 20, (x1, y1, x2, y2)
    # A tap on a node still selects it. (Chromium's gesture detector wants a moment between
    # gestures before it makes a tap a click.)
    page.wait_for_timeout(600)
    page.get_by_test_id("graph-fit").tap()
    page.wait_for_timeout(600)
    w = node(page, "w")
    box = rect(w)
    page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    expect(page.get_by_test_id("details")).to_be_visible()
    assert (x0, y0) != (x2, y2)


def test_train_page_on_a_phone(screen: Any) -> None:
    page = screen(viewport=PHONE, has_touch=True, is_mobile=True)
    page.goto("/train")
    boundary = page.get_by_test_id("boundary")
    expect(boundary).to_be_visible()
    no_sideways_scrolling(page)
    box = rect(boundary)
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"], box
    page.get_by_test_id("train-step-once").tap()
    expect(page.get_by_test_id("train-step")).not_to_have_text("0")


# ---- an upright tablet ----------------------------------------------------------------------


def test_tablet_keeps_the_current_node_on_screen(screen: Any) -> None:
    page = screen(viewport=TABLET, has_touch=True)
    page.goto(program_url(TINY))
    graph = wait_ready(page)
    no_sideways_scrolling(page)
    show_graph(page)
    page.get_by_test_id("walk-first").click()
    total = int(page.get_by_test_id("walk-position").inner_text().split("/")[1])
    pane = rect(graph)
    for step in range(1, total + 1):
        page.get_by_test_id("walk-next").click()
        expect(page.get_by_test_id("walk-position")).to_have_text(f"{step} / {total}")
        active = rect(graph.locator("[data-walk-active=true]"))
        assert inside(active, pane), (step, active, pane)
        assert inside(active, viewport(page)), (step, active)


# ---- a laptop: the splitter and line wrapping --------------------------------------------------


def test_splitter_drags_moves_by_keyboard_and_is_remembered(page: Page) -> None:
    page.goto(program_url(TINY))
    wait_ready(page)
    splitter = page.get_by_test_id("splitter")
    side = page.locator("#side")
    before = rect(side)["width"]
    box = rect(splitter)
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + 200)
    page.mouse.down()
    page.mouse.move(box["x"] + 250, box["y"] + 200, steps=5)
    page.mouse.up()
    wider = rect(side)["width"]
    assert wider > before + 150, (before, wider)
    # By keyboard: the arrows move it, not the walk.
    position = page.get_by_test_id("walk-position").inner_text()
    splitter.focus()
    value = int(splitter.get_attribute("aria-valuenow") or 0)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect(splitter).to_have_attribute("aria-valuenow", str(value - 4))
    expect(page.get_by_test_id("walk-position")).to_have_text(position)
    narrower = rect(side)["width"]
    assert narrower < wider
    # The graph pane follows it (the view re-fits), and a reload keeps it.
    page.reload()
    wait_ready(page)
    assert abs(rect(page.locator("#side"))["width"] - narrower) <= 2
    expect(page.get_by_test_id("splitter")).to_have_attribute("aria-valuenow", str(value - 4))


def test_line_wrap_toggle_is_remembered(page: Page) -> None:
    long_line = "x = 1  # " + "a comment that goes on and on " * 8
    page.goto(program_url(long_line))
    wait_ready(page)
    content = page.locator(".cm-scroller")
    sideways = "el => el.scrollWidth > el.clientWidth + 1"
    assert content.evaluate(sideways)
    toggle = page.get_by_test_id("editor-wrap")
    expect(toggle).to_have_attribute("aria-pressed", "false")
    toggle.click()
    expect(toggle).to_have_attribute("aria-pressed", "true")
    assert not content.evaluate(sideways)
    page.reload()
    wait_ready(page)
    expect(page.get_by_test_id("editor-wrap")).to_have_attribute("aria-pressed", "true")
    assert not page.locator(".cm-scroller").evaluate(sideways)


# ---- presentation on a projector ---------------------------------------------------------------


def test_presentation_has_the_pass_picker_forward_and_controls_for_the_room(screen: Any) -> None:
    page = screen(viewport=PROJECTOR)
    page.goto(program_url(PASSES))
    wait_ready(page)
    page.keyboard.press("p")
    expect(page.locator("body")).to_have_class(re.compile("presenting"))
    for hook in ("pass-select", "forward-play", "walk-next", "graph-fit", "present-exit"):
        expect(page.get_by_test_id(hook)).to_be_visible()
    for hook in ("walk-next", "graph-fit", "forward-play", "pass-select"):
        size = page.get_by_test_id(hook).evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
        assert size >= 18, (hook, size)
    page.get_by_test_id("pass-select").select_option(index=0)
    expect(page.get_by_test_id("walk-position")).to_have_text(re.compile(r"/ [1-9]"))
    page.get_by_test_id("forward-play").click()
    expect(page.get_by_test_id("forward-play")).to_have_attribute("aria-pressed", "true")
    page.get_by_test_id("forward-play").click()


def test_presentation_uses_the_width_of_the_room(screen: Any) -> None:
    """The lessons' tiny graph is tall and narrow: laid out for the laptop's pane it filled 40%
    of a projector's width; presenting lays it out again for the wide pane."""
    page = screen(viewport=PROJECTOR)
    page.goto(program_url(TINY))
    graph = wait_ready(page)
    page.keyboard.press("p")
    expect(graph).to_have_attribute("data-rankdir", "LR")
    page.wait_for_timeout(300)
    drawn = rect(graph.locator("g.viewport"))
    assert drawn["width"] >= 0.6 * PROJECTOR["width"], drawn
    page.keyboard.press("Escape")  # back: laid out for the narrower pane again
    expect(graph).to_have_attribute("data-rankdir", "BT")


# ---- keyboard and motion ----------------------------------------------------------------------


def test_escape_then_tab_is_said_and_works(page: Page) -> None:
    page.goto(program_url(TINY))
    wait_ready(page)
    editor = page.get_by_test_id("editor")
    description = editor.evaluate(
        "el => el.getRootNode().getElementById(el.getAttribute('aria-describedby')).textContent"
    )
    assert "press Escape, then Tab" in description
    # Said where the focus is, too: a hint shows on the editor while it has the focus.
    hint = page.get_by_test_id("editor-hint")
    expect(hint).to_be_hidden()
    editor.click()
    expect(hint).to_be_visible()
    expect(hint).to_contain_text("Esc, then Tab")
    assert inside(rect(hint), rect(page.locator("#editor-host")))
    page.keyboard.press("Tab")  # indents: focus stays in the editor
    assert editor.evaluate("el => el.getRootNode().activeElement === el")
    expect(hint).to_be_visible()
    page.keyboard.press("Escape")
    page.keyboard.press("Tab")
    assert not editor.evaluate("el => el.getRootNode().activeElement === el")
    expect(hint).to_be_hidden()
    page.keyboard.press("?")
    expect(page.get_by_test_id("shortcuts")).to_contain_text("Esc, then Tab")


def test_a_focused_node_shows_its_ring_in_every_state(page: Page) -> None:
    page.goto(program_url(TINY))
    graph = wait_ready(page)
    page.get_by_test_id("walk-first").click()
    page.get_by_test_id("walk-next").click()
    active = graph.locator("[data-walk-active=true]")
    expect(active).to_have_attribute("data-node-name", "loss")
    ring = active.locator(".node-focus")
    assert ring.evaluate("el => getComputedStyle(el).display") == "none"
    # Keyboard focus on the walk's active node: its ring shows, outside its active outline.
    active.focus()
    page.keyboard.press("ArrowUp")  # to the node before it in forward order...
    page.keyboard.press("ArrowDown")  # ...and back, by keyboard (so :focus-visible holds)
    focused = graph.locator(".node:focus")
    expect(focused).to_have_attribute("data-walk-active", "true")
    assert ring.evaluate("el => getComputedStyle(el).display") != "none"
    ring_box, node_box = rect(ring), rect(active.locator(".node-box"))
    assert ring_box["width"] > node_box["width"] and ring_box["height"] > node_box["height"]
    stroke = ring.evaluate("el => getComputedStyle(el).stroke")
    assert stroke != active.locator(".node-box").evaluate("el => getComputedStyle(el).stroke")


@pytest.mark.parametrize("motion", ["reduce", "no-preference"])
def test_reduced_motion_stops_the_flowing_edge(screen: Any, motion: str) -> None:
    page = screen(viewport={"width": 1280, "height": 720}, reduced_motion=motion)
    page.goto(program_url(TINY, step="1"))
    graph = wait_ready(page)
    flowing = graph.locator(".edge.flowing").first
    expect(flowing).to_be_visible()
    animation = flowing.evaluate("el => getComputedStyle(el).animationName")
    assert animation == ("none" if motion == "reduce" else "grad-flow")
    replace_source(page, TINY)  # nothing else animates either (a global rule)
    assert page.locator("body").evaluate("el => getComputedStyle(el).scrollBehavior") == "auto"


# ---- axe-core on the new states and sizes ------------------------------------------------------


@pytest.mark.parametrize("size", [PHONE, TABLET], ids=["phone", "tablet"])
def test_axe_finds_nothing_running_stopped_and_kept(screen: Any, size: dict[str, int]) -> None:
    """Zero axe-core violations while a program runs (Stop shown, output arriving), once it is
    stopped, and with a kept graph and its note; on a phone and an upright tablet. (axe sets
    inline styles itself: its context bypasses the CSP, which every other test checks.)"""
    page = screen(viewport=size, has_touch=True, bypass_csp=True)
    page.goto(program_url(TINY))
    wait_ready(page)
    replace_source(page, "print('looping')\nwhile True:\n    pass\n")
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("stdout")).to_have_text("looping\n")
    assert axe_violations(page) == []
    page.get_by_test_id("stop").click()
    expect(page.get_by_test_id("graph-note")).to_have_attribute("data-kind", "kept")
    assert axe_violations(page) == []
    page.get_by_test_id("editor").click()
    page.keyboard.press("End")
    page.keyboard.insert_text("\n")
    assert axe_violations(page) == []
