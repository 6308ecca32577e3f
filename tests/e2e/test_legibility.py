"""Graphs a class can read (issue 15): on every gallery example and on a 3-layer MLP, node text
renders at >= 11 px at 1280x800 and >= 16 px presented at 1024x768, measured on the rendered text,
and nothing overlaps (boxes, badges and gradient labels checked pairwise, at every walk step)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from server.examples import EXAMPLES, example
from tests.e2e import contracts
from tests.e2e.graphcheck import measure
from tests.e2e.programs import program_url
from tests.e2e.test_playground import wait_ready

pytestmark = pytest.mark.e2e

GRAPHS = [e.id for e in EXAMPLES] + ["mlp", "mlp-modules"]


def open_graph(page: Page, which: str) -> None:
    """Open a gallery example, the MLP, or the MLP with the engine's module fields."""
    if which == "mlp-modules":
        contracts.serve(
            page, contracts.with_mlp_modules(contracts.run_program(page, contracts.MLP))
        )
        source = contracts.MLP
    elif which == "mlp":
        source = contracts.MLP
    else:
        source = example(which).source
    page.goto(program_url(source))
    wait_ready(page)


def walk_total(page: Page) -> int:
    return int(page.get_by_test_id("walk-position").inner_text().split("/")[1])


def check_every_step(page: Page, min_px: float) -> None:
    """Where the walk opens (its first step), at its end and at each step from the start:
    legible, nothing overlapping."""
    total = walk_total(page)
    positions = [min(1, total), total, *range(total + 1)]
    for index, position in enumerate(positions):
        if index == 1:
            page.keyboard.press("End")
        elif index == 2:
            page.keyboard.press("Home")
        elif index > 2:
            page.keyboard.press("ArrowRight")
        expect(page.get_by_test_id("walk-position")).to_have_text(f"{position} / {total}")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=graph]').dataset.state === 'ready'"
        )
        drawing = measure(page)
        if not drawing.boxes:
            continue  # nothing recorded (a program that fails before any tensor op)
        assert drawing.min_font_px >= min_px - 0.01, (position, sorted(drawing.font_px)[:3])
        assert min(drawing.heights) >= min_px - 0.01, (position, sorted(drawing.heights)[:3])
        assert not drawing.problems(), (position, drawing.problems())


@pytest.mark.parametrize("which", GRAPHS)
def test_legible_and_clear_at_1280x800(page: Page, which: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_graph(page, which)
    page.mouse.move(0, 0)
    check_every_step(page, 11)


@pytest.mark.parametrize("which", GRAPHS)
def test_legible_and_clear_presented_at_1024x768(page: Page, which: str) -> None:
    page.set_viewport_size({"width": 1024, "height": 768})
    open_graph(page, which)
    page.keyboard.press("p")
    expect(page.locator("body")).to_have_class("page-playground presenting")
    # The compact bar: stepping and the counter stay on screen.
    for test_id in ("walk-prev", "walk-play", "walk-next", "walk-position"):
        expect(page.get_by_test_id(test_id)).to_be_in_viewport()
    expect(page.get_by_test_id("legend")).to_be_hidden()
    check_every_step(page, 16)


def test_deep_graph_goes_bottom_to_top_and_follows_the_walk(page: Page) -> None:
    """The MLP reads bottom to top (never one thin row), at a legible size, and the view pans so
    the active node is always on screen; Fit never makes its text unreadable (a graph that does not
    fit legibly stays at that size, around the walk's node)."""
    page.set_viewport_size({"width": 1280, "height": 800})
    open_graph(page, "mlp")
    graph = page.get_by_test_id("graph")
    expect(graph).to_have_attribute("data-rankdir", "BT")
    page.keyboard.press("Home")
    pane = graph.bounding_box()
    assert pane
    for _ in range(walk_total(page)):
        page.keyboard.press("ArrowRight")
        box = graph.locator("[data-walk-active=true] > .node-box").bounding_box()
        assert box
        assert pane["x"] <= box["x"] and box["x"] + box["width"] <= pane["x"] + pane["width"]
        assert pane["y"] <= box["y"] and box["y"] + box["height"] <= pane["y"] + pane["height"]
    page.get_by_test_id("graph-fit").click()
    drawing = measure(page)
    assert drawing.min_font_px >= 11 - 0.01, sorted(drawing.font_px)[:3]
    box = graph.locator("[data-walk-active=true] > .node-box").bounding_box()
    assert box
    assert pane["x"] <= box["x"] and box["x"] + box["width"] <= pane["x"] + pane["width"]
    assert pane["y"] <= box["y"] and box["y"] + box["height"] <= pane["y"] + pane["height"]


def test_tall_pane_is_not_one_thin_row(page: Page) -> None:
    """In a tall window the MLP uses the height: the issue saw one row cut off at the right with
    the lower half of the pane empty. Collapsed into its modules, it fits whole."""
    page.set_viewport_size({"width": 900, "height": 1600})
    open_graph(page, "mlp")
    expect(page.get_by_test_id("graph")).to_have_attribute("data-rankdir", "BT")

    def covered_height() -> tuple[float, float]:
        drawing = measure(page)
        _, top, _, bottom = drawing.pane
        seen = [r for _, r in drawing.boxes if r[3] > top and r[1] < bottom]
        low = min(max(r[1], top) for r in seen)
        high = max(min(r[3], bottom) for r in seen)
        return high - low, bottom - top

    covered, pane = covered_height()
    assert covered >= 0.5 * pane, (covered, pane)
    contracts.serve(page, contracts.with_mlp_modules(contracts.run_program(page, contracts.MLP)))
    page.reload()
    wait_ready(page)
    expect(page.locator("[data-module-id]")).to_have_count(3)
    drawing = measure(page)
    left, top, right, bottom = drawing.pane
    assert all(
        left - 1 <= r[0] and r[2] <= right + 1 and top - 1 <= r[1] and r[3] <= bottom + 1
        for _, r in drawing.boxes
    ), "the collapsed MLP fits the tall pane whole"
    covered, pane = covered_height()
    assert covered >= 0.5 * pane, (covered, pane)
