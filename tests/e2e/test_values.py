"""Your own autograd in the browser (issue 13): the lesson's Value engine drawn with its walk,
and Compare with PyTorch marking the node the broken += harms."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from server.examples import example
from tests.e2e.programs import TINY, program_url

SEED = example("seed-tiny-autograd").source
BROKEN = example("value-broken-plus-equals").source


def wait_runs(page: Page, runs: int) -> Locator:
    page.wait_for_function(
        "n => { const g = document.querySelector('[data-testid=graph]');"
        " return g.dataset.state === 'ready' && Number(g.dataset.runCount || 0) >= n; }",
        arg=runs,
    )
    return page.get_by_test_id("graph")


def node(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid=graph] [data-node-name="{name}"]')


def test_the_seed_value_graph_plays_its_own_walk(page: Page) -> None:
    page.goto(program_url(SEED))
    graph = wait_runs(page, 1)
    expect(page.get_by_test_id("stdout")).to_contain_text("step 0: loss=36.000  dL/dw=-24.00")
    page.get_by_test_id("pass-select").select_option("0")
    # the pass opens at its first step, the loss's own
    expect(page.get_by_test_id("walk-position")).to_have_text("1 / 5")
    expect(node(page, "loss")).to_have_attribute("data-walk-active", "true")
    page.get_by_test_id("walk-last").click()
    expect(node(page, "w")).to_contain_text("grad −24")
    expect(node(page, "b")).to_contain_text("grad −12")
    expect(node(page, "w")).to_contain_text("your Value")
    expect(node(page, "loss")).to_contain_text("your Value · *")
    expect(graph.locator("[data-node-id]")).to_have_count(10)
    expect(page.get_by_test_id("walk-position")).to_have_text("5 / 5")
    graph.focus()
    page.keyboard.press("Home")
    expect(node(page, "err")).not_to_contain_text("−12")
    page.keyboard.press("ArrowRight")  # the first step: loss = err · err sends −6 twice
    expect(node(page, "loss")).to_have_attribute("data-walk-active", "true")
    caption = page.get_by_test_id("walk-caption")
    expect(caption).to_contain_text("∂loss/∂err = −6 · 1 = −6")
    expect(caption).to_contain_text("∂loss/∂err += −6 · 1 = −6  → −6 + (−6) = −12")
    expect(node(page, "err")).to_contain_text("grad −12")
    page.keyboard.press("ArrowRight")
    expect(node(page, "err")).to_have_attribute("data-walk-active", "true")
    page.get_by_test_id("walk-last").click()
    expect(node(page, "w")).to_contain_text("grad −24")
    # a Value graph offers the comparison; a tensor program does not
    expect(page.get_by_test_id("compare")).to_be_visible()
    page.goto(program_url(TINY))
    wait_runs(page, 1)
    expect(page.get_by_test_id("compare")).to_be_hidden()


def test_compare_with_pytorch_highlights_the_broken_node(page: Page) -> None:
    page.goto(program_url(BROKEN))
    graph = wait_runs(page, 1)
    expect(page.get_by_test_id("stdout")).to_contain_text("dL/dw=-12.00")
    compare = page.get_by_test_id("compare")
    expect(graph.locator("[data-compare]")).to_have_count(0)
    compare.click()
    wait_runs(page, 2)
    expect(compare).to_have_attribute("aria-pressed", "true")
    expect(page).to_have_url(re.compile(r"cmp=1"))
    page.get_by_test_id("pass-select").select_option("0")
    differs = graph.locator('[data-compare="differs"]')
    expect(differs).to_have_count(1)
    expect(differs).to_have_attribute("data-node-name", "err")
    expect(differs).to_contain_text("≠ PyTorch")
    expect(graph.locator('[data-compare="agrees"]')).to_have_count(9)
    summary = page.get_by_test_id("compare-summary")
    expect(summary).to_contain_text("err (yours −6, PyTorch's −12)")
    # the box is drawn in the error colour
    stroke = differs.locator(".node-box").evaluate("el => getComputedStyle(el).stroke")
    agree_stroke = graph.locator('[data-compare="agrees"] .node-box').first.evaluate(
        "el => getComputedStyle(el).stroke"
    )
    assert stroke != agree_stroke and stroke.startswith("rgb(")
    # the last pass: err is still the one red node; x and y, never zeroed, hold this pass's
    # gradient but lost what PyTorch would have kept adding to: marked apart, as replaced
    page.get_by_test_id("pass-select").select_option("2")
    expect(graph.locator('[data-compare="differs"]')).to_have_count(1)
    expect(graph.locator('[data-compare="replaced"]')).to_have_count(2)
    expect(summary).to_contain_text("replaced what an earlier pass left")
    # the setting is in the link: a reload compares again
    page.reload()
    wait_runs(page, 1)
    expect(graph.locator('[data-compare="differs"]')).to_have_count(1)
    expect(graph.locator('[data-compare="differs"]')).to_have_attribute("data-node-name", "err")
    compare.click()  # off again: the marks go
    wait_runs(page, 2)
    expect(graph.locator("[data-compare]")).to_have_count(0)
    expect(summary).to_be_hidden()


def test_the_rules_are_in_the_pages_help(page: Page) -> None:
    page.goto("/")
    wait_runs(page, 1)
    help_ = page.get_by_test_id("value-help")
    help_.locator("summary").click()
    for word in ("_prev", "backward_fn", "__dict__", "Compare with PyTorch", "budget"):
        expect(help_).to_contain_text(word)
