"""Autograd errors marked on their node, the forward replay, and the pass picker, in the page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from tests.e2e.programs import BACKWARD_TWICE, TINY, accumulating_passes
from tests.e2e.test_playground import open_program, replace_source, wait_ready

pytestmark = pytest.mark.e2e

#: y.add_(1) changes the output of exp in place, which exp's backward needs: the exp node is blamed.
INPLACE_ERROR = """\
import torch
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()
y.add_(1)
y.sum().backward()
"""

#: backward() on a leaf that does not require grad: the lone leaf is blamed.
NO_GRAD_ROOT = """\
import torch
t = torch.tensor(2.0)
t.backward()
"""

#: Three passes accumulate into w.grad: 18, then 36, then 54.
THREE_PASSES = accumulating_passes(3)

#: The error tag and outline colour of graph.css (light theme).
ERROR_RED = "rgb(201, 42, 42)"


def error_node(page: Page) -> Locator:
    return page.locator("[data-testid=graph] [data-error-node=true]")


def walk_buttons(page: Page) -> list[Locator]:
    ids = ("walk-first", "walk-prev", "walk-play", "walk-next", "walk-last")
    return [page.get_by_test_id(test_id) for test_id in ids]


def record_forward_order(page: Page) -> None:
    """Collect, in the page, the id of every node the forward replay marks as just computed."""
    page.evaluate(
        """() => {
          window.__forward = [];
          const graph = document.querySelector('[data-testid=graph]');
          new MutationObserver((records) => {
            for (const r of records) {
              if (r.target.dataset.forwardActive === 'true') window.__forward.push(r.target.dataset.nodeId);
            }
          }).observe(graph, { subtree: true, attributes: true, attributeFilter: ['data-forward-active'] });
        }"""
    )


def test_inplace_error_marks_the_exp_node_and_clears_on_a_good_run(page: Page) -> None:
    graph = open_program(page, INPLACE_ERROR)
    error = page.get_by_test_id("error")
    expect(error).to_contain_text("RuntimeError")
    expect(error).to_contain_text("modified by an inplace operation")
    expect(error).to_contain_text("line 5")
    # The failing backward's graph is drawn, with the culprit marked.
    assert int(graph.get_attribute("data-node-count") or 0) >= 4
    marked = error_node(page)
    expect(marked).to_have_count(1)
    expect(marked).to_have_attribute("data-node-name", "y")
    expect(marked).to_contain_text("ExpBackward0")
    expect(marked).to_contain_text("error here")
    stroke = marked.locator(".node-box").evaluate("el => getComputedStyle(el).stroke")
    assert stroke == ERROR_RED
    expect(page.get_by_test_id("error-node")).to_contain_text("at node y = exp(x)")
    # Nothing to walk: the walk's controls are disabled and the caption says why.
    expect(page.get_by_test_id("walk-position")).to_have_text("0 / 0")
    for button in walk_buttons(page):
        expect(button).to_be_disabled()
    expect(page.get_by_test_id("walk-caption")).to_contain_text("stopped with an error")
    graph.focus()
    page.keyboard.press("ArrowRight")
    page.keyboard.press(" ")
    expect(page.get_by_test_id("walk-position")).to_have_text("0 / 0")
    # The node named in the panel opens its details.
    page.get_by_test_id("error-node").get_by_role("button").click()
    expect(page.locator("#details")).to_be_visible()
    expect(page.locator("#details-body")).to_contain_text("ExpBackward0")

    replace_source(
        page, "import torch\nx = torch.tensor(2.0, requires_grad=True)\n(x * x).backward()\n"
    )
    page.get_by_test_id("run").click()
    wait_ready(page, runs=2)
    expect(error).to_be_hidden()
    expect(error_node(page)).to_have_count(0)
    expect(page.locator("[data-testid=graph] .error-tag")).to_have_count(0)
    expect(page.get_by_test_id("walk-next")).to_be_enabled()


def test_second_backward_marks_the_freed_mul_node(page: Page) -> None:
    """The second backward finds x * x's saved tensors freed: the mul node is blamed."""
    open_program(page, BACKWARD_TWICE)
    expect(page.get_by_test_id("error")).to_contain_text("backward through the graph a second time")
    marked = error_node(page)
    expect(marked).to_have_count(1)
    expect(marked).to_contain_text("MulBackward0")
    expect(page.get_by_test_id("error-node")).to_contain_text("x · x")
    expect(page.get_by_test_id("error-node")).to_contain_text("MulBackward0")


def test_backward_on_a_constant_marks_the_leaf(page: Page) -> None:
    graph = open_program(page, NO_GRAD_ROOT)
    expect(page.get_by_test_id("error")).to_contain_text("does not require grad")
    expect(graph.locator("[data-node-id]")).to_have_count(1)
    marked = error_node(page)
    expect(marked).to_have_attribute("data-node-name", "t")
    expect(marked).to_contain_text("= 2")
    expect(page.get_by_test_id("error-node")).to_contain_text("at node t")
    expect(page.get_by_test_id("forward-play")).to_be_enabled()


def test_forward_replay_reveals_values_in_topological_order(page: Page) -> None:
    graph = open_program(page, TINY)
    ids = graph.locator("[data-node-id]").evaluate_all("els => els.map(e => e.dataset.nodeId)")
    expected = sorted(ids, key=lambda node_id: int(re.sub(r"\D", "", node_id)))
    record_forward_order(page)
    forward = page.get_by_test_id("forward-play")
    forward.click()
    expect(forward).to_have_attribute("aria-pressed", "true")
    loss = graph.locator('[data-node-name="loss"]')
    # The loss is computed last: at first it waits, dimmed, with its value hidden.
    expect(loss).to_have_attribute("data-forward", "pending")
    expect(loss).not_to_contain_text("36")
    expect(graph.locator(".has-grad")).to_have_count(0)  # no gradient during the forward pass
    expect(page.get_by_test_id("walk-caption")).to_contain_text("Forward")
    expect(loss).to_have_attribute("data-forward-active", "true", timeout=15_000)
    expect(loss).to_contain_text("36")
    expect(page.get_by_test_id("walk-caption")).to_contain_text("loss = mul(err, err) = 36")
    # Then the replay ends: every value shown, the walk at its start, ready to step backward.
    expect(forward).to_have_attribute("aria-pressed", "false")
    expect(graph.locator("[data-forward]")).to_have_count(0)
    expect(page.get_by_test_id("walk-caption")).to_contain_text("Forward pass done")
    assert page.evaluate("window.__forward") == expected
    _, total = page.get_by_test_id("walk-position").inner_text().split(" / ")
    expect(page.get_by_test_id("walk-position")).to_have_text(f"0 / {total}")
    page.get_by_test_id("walk-next").click()
    expect(graph.locator("[data-walk-active=true]")).to_have_attribute("data-node-name", "loss")


def test_forward_replay_with_the_f_key_and_cancel(page: Page) -> None:
    graph = open_program(page, TINY)
    graph.focus()
    page.keyboard.press("f")
    forward = page.get_by_test_id("forward-play")
    expect(forward).to_have_attribute("aria-pressed", "true")
    expect(graph.locator("[data-forward=pending]").first).to_be_attached()
    # f again stops: every value is back.
    page.keyboard.press("f")
    expect(forward).to_have_attribute("aria-pressed", "false")
    expect(graph.locator("[data-forward]")).to_have_count(0)
    expect(graph.locator('[data-node-name="loss"]')).to_contain_text("36")
    # A walk step cancels a replay in progress too.
    page.keyboard.press("f")
    expect(forward).to_have_attribute("aria-pressed", "true")
    page.keyboard.press("ArrowRight")
    expect(forward).to_have_attribute("aria-pressed", "false")
    expect(graph.locator("[data-forward]")).to_have_count(0)
    expect(page.get_by_test_id("walk-position")).to_contain_text("1 /")
    expect(graph.locator("[data-walk-active=true]")).to_have_attribute("data-node-name", "loss")


def test_forward_replay_of_a_failed_run_keeps_the_error_mark(page: Page) -> None:
    graph = open_program(page, INPLACE_ERROR)
    page.get_by_test_id("walk-speed").select_option("4")
    forward = page.get_by_test_id("forward-play")
    forward.click()
    expect(forward).to_have_attribute("aria-pressed", "true")
    expect(forward).to_have_attribute("aria-pressed", "false", timeout=15_000)
    expect(graph.locator("[data-forward]")).to_have_count(0)
    expect(error_node(page)).to_have_count(1)
    expect(page.get_by_test_id("walk-caption")).to_contain_text("stopped with an error")


def test_pass_picker_shows_grad_accumulating(page: Page) -> None:
    open_program(page, THREE_PASSES)
    expect(page.get_by_test_id("stdout")).to_contain_text("54")
    picker = page.get_by_test_id("pass-select")
    expect(picker).to_be_visible()
    expect(picker.locator("option")).to_have_count(3)
    w = page.locator('[data-testid=graph] [data-node-name="w"]')
    position = page.get_by_test_id("walk-position")

    def to_the_end() -> None:
        """A pass opens at its first step (once it is drawn): then to its end."""
        expect(position).to_have_text(re.compile(r"^1 / "))
        page.get_by_test_id("walk-last").click()
        expect(position).not_to_have_text(re.compile(r"^1 / "))

    to_the_end()
    expect(w).to_contain_text("grad 54")
    picker.select_option("0")
    to_the_end()
    expect(w).to_contain_text("grad 18")
    expect(page).to_have_url(re.compile(r"pass=0"))
    picker.select_option("1")
    to_the_end()
    expect(w).to_contain_text("grad 36")
    picker.select_option("2")
    to_the_end()
    expect(w).to_contain_text("grad 54")


NON_LEAF_GRAD = """\
import torch
x = torch.tensor(3.0, requires_grad=True)
h = x * x
loss = h + 1
loss.backward()
print(x.grad, h.grad)
"""


def test_reading_a_non_leaf_grad_shows_pytorchs_warning(page: Page) -> None:
    open_program(page, NON_LEAF_GRAD)
    expect(page.get_by_test_id("stdout")).to_contain_text("tensor(6.) None")
    notice = page.get_by_test_id("notice")
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Line 6: UserWarning: The .grad attribute of a Tensor")
    expect(notice).to_contain_text("retain_grad()")
