"""The playground page end to end: the real app, the real run API, Debian's chromium."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.programs import (
    BIG_GRAPH,
    EXPRESSION,
    NAME_ERROR,
    PRINTS_HTML,
    TINY,
    program_url,
)

pytestmark = pytest.mark.e2e


def wait_ready(page: Page, runs: int = 1) -> Locator:
    """Wait until `runs` runs have been drawn; return the graph SVG."""
    page.wait_for_function(
        "n => { const g = document.querySelector('[data-testid=graph]');"
        " return g.dataset.state === 'ready' && Number(g.dataset.runCount || 0) >= n; }",
        arg=runs,
    )
    return page.get_by_test_id("graph")


def open_program(page: Page, source: str, **extra: str) -> Locator:
    page.goto(program_url(source, **extra))
    return wait_ready(page)


def replace_source(page: Page, source: str) -> None:
    """Replace the editor's text the way a paste does.

    Playwright's ``fill`` on a contenteditable goes through ``execCommand('insertText')``, which
    can make Chromium write a ``style`` attribute that the page's strict CSP then reports; a
    user's typing or pasting never does that, so the tests insert text as a paste would.
    """
    editor = page.get_by_test_id("editor")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)


def node(page: Page, name: str) -> Locator:
    return page.locator(f'[data-testid=graph] [data-node-name="{name}"]')


def position(page: Page) -> tuple[int, int]:
    text = page.get_by_test_id("walk-position").inner_text()
    current, total = (int(part) for part in text.split("/"))
    return current, total


def test_tiny_example_shows_w_gradient(page: Page) -> None:
    open_program(page, TINY)
    page.get_by_test_id("walk-last").click()  # the walk opens at its first step: to its end
    expect(node(page, "w")).to_contain_text("−24")
    expect(node(page, "b")).to_contain_text("−12")
    expect(node(page, "w")).to_contain_text("0.5")
    expect(page.get_by_test_id("stdout")).to_have_text("dL/dw=-24.00  dL/db=-12.00\n")


def test_expression_default_page_runs_with_bindings(page: Page) -> None:
    page.goto("/")
    wait_ready(page)
    page.get_by_test_id("walk-last").click()  # the walk opens at its first step: to its end
    expect(node(page, "w")).to_contain_text("−24")
    expect(page.get_by_test_id("binding-w-value")).to_have_value("0.5")


def test_a_new_expressions_inputs_start_at_distinct_values(page: Page) -> None:
    """All inputs at 1 opened `(a+b)*(a-b)` at 0 (`1·0 = 0` captions): new inputs start at
    distinct values, so every node of the graph has its own, and the result is not 0."""
    open_program(page, "(a+b)*(a-b)\n")
    expect(page.get_by_test_id("binding-a-value")).to_have_value("2")
    expect(page.get_by_test_id("binding-b-value")).to_have_value("3")
    values = page.locator("[data-testid=graph] [data-node-id]").evaluate_all(
        "nodes => nodes.map(n => (n.textContent.match(/= *(\\S+)/) || [])[1])"
    )
    assert None not in values and len(set(values)) == len(values) == 5, values
    assert "0" not in values and "1" not in values, values
    loss = page.locator("[data-testid=graph] [data-walk-active=true]")  # the walk opens there
    expect(loss).to_contain_text("= −5")
    expect(page.get_by_test_id("walk-caption")).not_to_contain_text("= 0")
    # An input added later takes a value no other input holds.
    replace_source(page, "(a+b)*(a-c)\n")
    expect(page.get_by_test_id("binding-c-value")).to_have_value("0.5")
    expect(page.get_by_test_id("binding-a-value")).to_have_value("2")


def test_walk_steps_with_buttons_and_keys(page: Page) -> None:
    graph = open_program(page, TINY)
    current, total = position(page)
    assert current == 1 and total > 1  # the walk opens at its first step, the loss's own
    expect(graph.locator("[data-walk-active=true]")).to_have_attribute("data-node-name", "loss")
    page.get_by_test_id("walk-first").click()
    expect(page.get_by_test_id("walk-caption")).to_contain_text("Forward pass done")
    expect(graph.locator("[data-walk-active=true]")).to_have_count(0)

    page.get_by_test_id("walk-next").click()
    expect(page.get_by_test_id("walk-position")).to_have_text(f"1 / {total}")
    active = graph.locator("[data-walk-active=true]")
    expect(active).to_have_attribute("data-node-name", "loss")
    first_caption = page.get_by_test_id("walk-caption").inner_text()
    assert first_caption.strip()

    page.get_by_test_id("walk-next").click()
    expect(page.get_by_test_id("walk-position")).to_have_text(f"2 / {total}")
    expect(page.get_by_test_id("walk-caption")).not_to_have_text(first_caption)
    page.get_by_test_id("walk-prev").click()
    expect(page.get_by_test_id("walk-caption")).to_have_text(first_caption)

    # The same with the keyboard, once the graph has focus.
    graph.focus()
    page.keyboard.press("End")
    expect(page.get_by_test_id("walk-position")).to_have_text(f"{total} / {total}")
    page.keyboard.press("Home")
    expect(page.get_by_test_id("walk-position")).to_have_text(f"0 / {total}")
    # Step until w's gradient is sent: its caption carries the numbers of dL/dw = x · dL/dp.
    for step in range(1, total + 1):
        page.keyboard.press("ArrowRight")
        expect(page.get_by_test_id("walk-position")).to_have_text(f"{step} / {total}")
        if "−24" in page.get_by_test_id("walk-caption").inner_text():
            break
    else:
        pytest.fail("no step's caption shows w's gradient −24")
    expect(node(page, "w")).to_contain_text("grad −24")
    page.keyboard.press("ArrowLeft")
    expect(page.get_by_test_id("walk-position")).to_have_text(f"{step - 1} / {total}")
    expect(node(page, "w")).not_to_contain_text("−24")


def test_accumulation_at_err(page: Page) -> None:
    graph = open_program(page, TINY)
    graph.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(graph.locator("[data-walk-active=true]")).to_have_attribute("data-node-name", "loss")
    flows = page.get_by_test_id("walk-contributions")
    expect(flows).to_contain_text("err.grad += −6")
    expect(flows).to_contain_text("−12")
    err = node(page, "err")
    expect(err).to_contain_text("+=")
    expect(err).to_contain_text("grad −12")
    page.keyboard.press("ArrowRight")
    expect(err).not_to_contain_text("+=")


def test_binding_slider_changes_gradient(page: Page) -> None:
    open_program(page, EXPRESSION, b="w:0.5:g,x:2,b:0:g,y:7")
    page.get_by_test_id("walk-last").click()  # to the end; a re-run keeps the walk there
    expect(node(page, "w")).to_contain_text("−24")
    slider = page.get_by_test_id("binding-w")
    slider.focus()
    page.keyboard.press("ArrowRight")  # w: 0.5 -> 0.6, so dL/dw = 2·(0.6·2 − 7)·2 = −23.2
    expect(page.get_by_test_id("binding-w-value")).to_have_value("0.6")
    expect(node(page, "w")).to_contain_text("−23.2")
    page.get_by_test_id("binding-x-value").fill("3")  # dL/dw = 2·(0.6·3 − 7)·3 = −31.2
    expect(node(page, "w")).to_contain_text("−31.2")
    expect(page).to_have_url(re.compile(r"x%3A3"))


def test_error_shows_type_message_and_line(page: Page) -> None:
    page.goto("/")
    wait_ready(page)
    editor = page.get_by_test_id("editor")
    replace_source(page, NAME_ERROR)
    editor.press("Control+Enter")
    error = page.get_by_test_id("error")
    expect(error).to_be_visible()
    expect(error).to_contain_text("NameError")
    expect(error).to_contain_text("undefined_name")
    expect(error).to_contain_text("line 3")
    marked = page.locator(".cm-error-line")
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text("undefined_name")


def test_share_url_round_trip_to_the_same_step(page: Page) -> None:
    graph = open_program(page, TINY)
    graph.focus()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    caption = page.get_by_test_id("walk-caption").inner_text()
    active_id = graph.locator("[data-walk-active=true]").get_attribute("data-node-id")
    page.get_by_test_id("share").click()
    link = page.get_by_test_id("share-url").input_value()
    assert "step=2" in link
    assert page.evaluate("navigator.clipboard.readText()") == link

    other = page.context.new_page()
    other.goto(link)
    wait_ready(other)
    _, total = position(page)
    expect(other.get_by_test_id("walk-position")).to_have_text(f"2 / {total}")
    expect(other.get_by_test_id("walk-caption")).to_have_text(caption)
    restored = other.get_by_test_id("graph").locator("[data-walk-active=true]")
    expect(restored).to_have_attribute("data-node-id", active_id or "")
    other.close()


def test_presentation_mode(page: Page) -> None:
    open_program(page, TINY)
    editor = page.get_by_test_id("editor")
    expect(editor).to_be_visible()
    page.locator("body").press("p")
    expect(editor).to_be_hidden()
    # A compact control bar stays: step, play and the step counter (issue 15), and a way out.
    for test_id in ("walk-prev", "walk-play", "walk-next", "walk-position", "present-exit"):
        expect(page.get_by_test_id(test_id)).to_be_visible()
    expect(page.get_by_test_id("walk-scrub")).to_be_hidden()
    caption = page.get_by_test_id("walk-caption")
    expect(caption).to_be_visible()
    size = caption.evaluate("el => parseFloat(getComputedStyle(el).fontSize)")
    assert size >= 24
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("walk-position")).to_contain_text("1 /")
    page.keyboard.press("Escape")
    expect(editor).to_be_visible()
    page.get_by_test_id("present").click()
    expect(editor).to_be_hidden()
    page.keyboard.press("p")
    expect(editor).to_be_visible()
    page.get_by_test_id("present").click()
    page.get_by_test_id("present-exit").click()
    expect(editor).to_be_visible()


def test_printed_html_is_shown_as_text(page: Page) -> None:
    open_program(page, PRINTS_HTML)
    stdout = page.get_by_test_id("stdout")
    expect(stdout).to_contain_text(
        '<img src=x onerror="window.__pwned = 1"><b id="injected">bold</b>'
    )
    expect(page.locator("#injected")).to_have_count(0)
    expect(stdout.locator("img")).to_have_count(0)
    assert page.evaluate("window.__pwned") is None


def test_300_node_graph_renders_under_a_second(page: Page) -> None:
    page.goto("/")
    wait_ready(page)
    replace_source(page, BIG_GRAPH)
    started = time.perf_counter()
    page.get_by_test_id("run").click()
    graph = wait_ready(page, runs=2)
    elapsed = time.perf_counter() - started
    count = int(graph.get_attribute("data-node-count") or 0)
    assert count >= 300
    # The loop's 100 iterations are one series (open around the walk's first step, inside the
    # last iteration), drawn as far fewer boxes; `m` opens every group: every node, as itself.
    expect(graph.locator('.module-frame[data-group-kind="repeat"]').first).to_contain_text("×100")
    assert graph.locator(".nodes [data-node-id]").count() < count
    render_ms = int(graph.get_attribute("data-render-ms") or 1e9)
    assert render_ms < 1000, f"layout + render of {count} nodes took {render_ms} ms"
    assert elapsed < 10, f"run + render took {elapsed:.1f} s"
    graph.focus()
    page.keyboard.press("m")
    expect(graph.locator(".nodes [data-node-id]")).to_have_count(count)
