"""One source of truth per step (issue 15): walking every gallery example, the node box, the hover
card, the details panel, the caption and the contribution row show the same step's numbers, in
one number format (true minus, one exponent style)."""

from __future__ import annotations

import re
import time
from typing import Any

import pytest
from playwright.sync_api import Locator, Page, expect

from server.examples import EXAMPLES
from tests.e2e.test_legibility import open_graph, walk_total

pytestmark = pytest.mark.e2e

#: A number as the page writes it: −1.5, 36, 5.81e−4, −∞, NaN.
NUMBER = re.compile(r"[−]?(?:\d+(?:\.\d+)?(?:e[−]?\d+)?|∞)|NaN")

STEP_STATE = """() => {
  const svg = document.querySelector('[data-testid=graph]');
  const rows = [...document.querySelectorAll('[data-testid=walk-contributions] li')].map((li) => ({
    to: li.dataset.to, text: li.querySelector('[data-testid=flow-value]').textContent }));
  const lines = [...document.querySelectorAll('[data-testid=walk-caption] .formula-text')].map((s) => s.textContent);
  const grads = {};
  for (const g of svg.querySelectorAll('[data-node-id]')) grads[g.dataset.nodeId] = g.querySelector('.node-grad').textContent;
  const active = svg.querySelector('[data-walk-active=true]')?.dataset.nodeId ?? null;
  return { rows, lines, grads, active };
}"""


def numbers(text: str) -> list[str]:
    return NUMBER.findall(text)


def elements(text: str) -> tuple[list[str], int]:
    """The numbers a value's text lists and how many elements the value has: "[1, −2, … 64
    values]" lists 1 and −2 of 64; a scalar lists itself, of 1."""
    if "…" in text:
        head, tail = text.rsplit("…", 1)
        return numbers(head), int(numbers(tail)[0])
    found = numbers(text)
    return found, len(found)


def same_value(box_text: str, row_text: str) -> bool:
    """A box may list fewer elements than the row (it is narrower), never different ones."""
    box_elements, box_total = elements(box_text)
    row_elements, row_total = elements(row_text)
    return box_total == row_total and row_elements[: len(box_elements)] == box_elements


def box(page: Page, node_id: str) -> Locator:
    return page.locator(f'[data-testid=graph] [data-node-id="{node_id}"]')


def first_number(text: str) -> str | None:
    found = numbers(text)
    return found[0] if found else None


def check_cards(page: Page, node_id: str, box_grad: str) -> None:
    """The hover card and the details panel show the box's gradient (first element for tensors)."""
    target = box(page, node_id)
    if box_grad.startswith("grad μ") or target.get_attribute("data-module-id"):
        return  # a summary (min/mean/max) or a module box: not comparable element by element
    expected = first_number(box_grad)
    target.dispatch_event("pointerover")
    card = page.get_by_test_id("hovercard-grad")
    expect(card).to_be_visible()
    assert first_number(card.inner_text()) == expected, (node_id, box_grad, card.inner_text())
    target.dispatch_event("pointerout")
    position = page.get_by_test_id("walk-position").inner_text()
    # A click opens the details and moves the walk to the step that sends the node its
    # gradient (issue 19): the panel shows the box's gradient there, the same number.
    target.dispatch_event("click")
    details = page.get_by_test_id("details-grad")
    expect(details).to_be_visible()
    # (the move may shut the module the node was drawn in: then its box is the module's; and
    # the view redraws as the walk moves: the two agree once the move is shown)
    deadline = time.monotonic() + 5
    while True:
        shown = target.locator(".node-grad").text_content() if target.count() else None
        if shown is None or shown.startswith("grad μ"):
            break
        if first_number(details.inner_text()) == first_number(shown):
            break
        assert time.monotonic() < deadline, (node_id, shown, details.inner_text())
        page.wait_for_timeout(100)
    # The card never opens over the open details panel.
    if target.count():
        target.dispatch_event("pointerover")
    expect(page.get_by_test_id("hovercard")).to_be_hidden()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("details")).to_be_hidden()
    seek(page, position)


def seek(page: Page, position: str) -> None:
    """Back to walk position `position` ("3 / 7"), with the walk's scrubber."""
    page.get_by_test_id("walk-scrub").evaluate(
        "(el, value) => { el.value = value; el.dispatchEvent(new Event('input')); }",
        position.split(" / ")[0],
    )
    expect(page.get_by_test_id("walk-position")).to_have_text(position)


@pytest.mark.parametrize("which", [e.id for e in EXAMPLES] + ["mlp-modules"])
def test_every_view_shows_the_same_numbers(page: Page, which: str) -> None:
    page.set_viewport_size({"width": 1280, "height": 800})
    open_graph(page, which)
    total = walk_total(page)
    page.keyboard.press("Home")
    for step in range(1, total + 1):
        page.keyboard.press("ArrowRight")
        expect(page.get_by_test_id("walk-position")).to_have_text(f"{step} / {total}")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=graph]').dataset.state === 'ready'"
        )
        state: dict[str, Any] = page.evaluate(STEP_STATE)
        text = " ".join(
            [r["text"] for r in state["rows"]] + state["lines"] + list(state["grads"].values())
        )
        assert not re.search(r"-\d", text), text  # a true minus on every number
        assert not re.search(r"\d[eE][+-]|e[−]?0\d", text), text  # one exponent style: 5.81e−4
        # Each receiver's box shows what its last row of this step says it now holds.
        final: dict[str, str] = {}
        for row in state["rows"]:
            found = numbers(row["text"].split("→")[-1].split(" = ")[-1])
            assert found, row
            final[row["to"]] = row["text"].split("→")[-1].split(" = ")[-1].strip()
        for node_id, value in final.items():
            if node_id in state["grads"]:
                shown = state["grads"][node_id]
                assert shown.startswith("grad ") and "… …" not in shown, (step, node_id, shown)
                assert same_value(shown, value), (step, node_id, shown, value)
        # Where a step sends a number (a scalar) and its caption line ends in a number, it is the
        # row's (the engine writes no number when it sums a broadcast gradient: nothing to compare).
        if len(state["lines"]) == len(state["rows"]):
            for line, row in zip(state["lines"], state["rows"], strict=True):
                tail = row["text"].split("→")[-1].split(" = ")[-1].strip()
                if "[" in tail:
                    continue  # a tensor: the caption keeps the symbols
                last = re.search(rf"(?<![\w#^.])({NUMBER.pattern})\s*$", line)
                if last:
                    assert last.group(1) == tail, (step, line, row)
        # Hover card and details panel agree with the boxes: the active node and a receiver.
        checked = [state["active"], *list(final)[:1]]
        for node_id in dict.fromkeys(n for n in checked if n and n in state["grads"]):
            check_cards(page, node_id, state["grads"][node_id])
