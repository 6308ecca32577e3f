"""Practice mode (issue 43): the walk stops at each step, the learner types the gradient it
sends, the page checks it against the engine's recorded answer and names the mistake; hints and
answers on request, a score and a review; share links and presentation mode keep it; the whole
walk by keyboard alone, and axe-core finds nothing."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.programs import TINY, program_url
from tests.e2e.test_notebook import code_cell, draws, graph_drawn, run_all, run_cell
from tests.e2e.test_playground import wait_ready
from tests.e2e.test_teaching import axe_violations

pytestmark = pytest.mark.e2e

#: x feeds two consumers (u = x·2 and v = x + 1): at the third step x.grad = 6 + 8 = 14.
TWO_CONSUMERS = """\
import torch
x = torch.tensor(3.0, requires_grad=True)
u = x * 2
v = x + 1
loss = u * v
loss.backward()
"""

#: A bias broadcast over a batch of two rows: b.grad sums 2y over the rows, [10, 10].
BROADCAST_BIAS = """\
import torch
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
b = torch.tensor([0.5, -0.5], requires_grad=True)
y = x + b
loss = (y * y).sum()
loss.backward()
"""


def open_practice(page: Page, source: str, **extra: str) -> None:
    """Open `source` in practice mode (from the link) and wait for its graph."""
    page.goto(program_url(source, practice="1", **extra))
    wait_ready(page)
    expect(page.get_by_test_id("practice")).to_have_attribute("aria-pressed", "true")


def answer(page: Page, typed: str) -> None:
    """Type `typed` in the guess field and press Enter (it checks)."""
    guess = page.get_by_test_id("guess")
    guess.fill(typed)
    guess.press("Enter")


def box_grad(page: Page, name: str) -> str:
    return (
        page.locator(f'[data-testid=graph] [data-node-name="{name}"] .node-grad').text_content()
        or ""
    )


def test_the_first_step_asks_and_the_right_value_is_accepted(page: Page) -> None:
    """TINY in practice mode: step 1 asks for err's gradient, hidden in the graph and the
    caption until −12 is typed; then both show it."""
    open_practice(page, TINY)
    guess = page.get_by_test_id("guess")
    expect(guess).to_be_visible()
    expect(guess).to_be_focused()
    expect(page.locator("#practice-prompt")).to_contain_text("err.grad")
    expect(page.get_by_test_id("walk-caption")).to_contain_text("∂loss/∂err = ?")
    expect(page.get_by_test_id("walk-caption")).not_to_contain_text("−12")
    assert "?" in box_grad(page, "err")
    answer(page, "-12")
    feedback = page.get_by_test_id("guess-feedback")
    expect(feedback).to_contain_text("Right")
    expect(page.get_by_test_id("walk-caption")).to_contain_text("−12")
    expect(page.locator('[data-testid=graph] [data-node-name="err"] .node-grad')).to_have_text(
        "grad −12"
    )
    expect(page.get_by_test_id("practice-next")).to_be_focused()
    expect(page.get_by_test_id("practice-score")).to_contain_text("1 / 1")


def test_the_walk_waits_for_an_answer(page: Page) -> None:
    """→ at a step still asking does not move the walk: it says to answer first."""
    open_practice(page, TINY)
    page.get_by_test_id("graph").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("guess-feedback")).to_contain_text("first")
    expect(page.get_by_test_id("walk-position")).to_have_text("1 / 4")


def test_a_missing_local_derivative_is_named(page: Page) -> None:
    """At w (a share link opens the walk at its step 4): −12 instead of −24 is the upstream
    gradient passed on, ×x forgotten; then −24 is right."""
    open_practice(page, TINY, step="4")
    expect(page.locator("#practice-prompt")).to_contain_text("w.grad")
    answer(page, "-12")
    feedback = page.get_by_test_id("guess-feedback")
    expect(feedback).to_contain_text("multiply by the local derivative")
    expect(feedback).to_have_attribute("data-diagnosis", "local_forgotten")
    expect(page.get_by_test_id("walk-caption")).not_to_contain_text("−24")
    answer(page, "-24")
    expect(feedback).to_contain_text("Right")
    expect(page.get_by_test_id("practice-score")).to_contain_text("0 / 1")


def test_a_missed_accumulation_is_named(page: Page) -> None:
    """x feeds u and v: at u's step, typing u's contribution (8) instead of 6 + 8 is a missed +=."""
    open_practice(page, TWO_CONSUMERS, step="3")
    expect(page.locator("#practice-prompt")).to_contain_text("x.grad")
    assert "+= ?" in box_grad(page, "x")  # it already holds 6
    answer(page, "8")
    feedback = page.get_by_test_id("guess-feedback")
    expect(feedback).to_have_attribute("data-diagnosis", "accumulation")
    expect(feedback).to_contain_text("add them (+=)")
    answer(page, "14")
    expect(feedback).to_contain_text("Right")


def test_a_broadcast_not_summed_is_named(page: Page) -> None:
    """b + a batch of two rows: typing 2y unsummed (3 3 7 7) is a broadcast not summed back."""
    open_practice(page, BROADCAST_BIAS, step="3")
    expect(page.locator("#practice-prompt")).to_contain_text("b.grad")
    answer(page, "[[3, 3], [7, 7]]")
    feedback = page.get_by_test_id("guess-feedback")
    expect(feedback).to_have_attribute("data-diagnosis", "broadcast")
    expect(feedback).to_contain_text("sum the gradient over the broadcast axes", ignore_case=True)
    answer(page, "10 10")
    expect(feedback).to_contain_text("Right")


def test_hint_then_answer_on_request(page: Page) -> None:
    """The hint is the rule with symbols (no numbers); Show answer reveals the caption's numbers."""
    open_practice(page, TINY, step="4")
    page.get_by_test_id("practice-hint").click()
    hint = page.get_by_test_id("practice-hint-text")
    expect(hint).to_contain_text("∂loss/∂w = x · ∂loss/∂(w · x)")
    assert "24" not in hint.inner_text()
    page.get_by_test_id("practice-show").click()
    expect(page.get_by_test_id("guess-feedback")).to_contain_text("−24")
    expect(page.get_by_test_id("walk-caption")).to_contain_text("= −24")
    expect(page.get_by_test_id("practice-score")).to_contain_text("0 / 1")


def test_the_whole_walk_by_keyboard_with_a_score_and_a_review(page: Page) -> None:
    """No mouse: g turns practice on, each answer typed and Enter checks, Enter goes on; the
    walk ends with its score, and "next mistake" goes back to the step answered wrong."""
    page.goto(program_url(TINY))
    wait_ready(page)
    page.keyboard.press("g")
    expect(page.get_by_test_id("practice")).to_have_attribute("aria-pressed", "true")
    expect(page).to_have_url(re.compile(r"practice=1"))
    guess = page.get_by_test_id("guess")
    expect(guess).to_be_focused()
    feedback = page.get_by_test_id("guess-feedback")
    position = page.get_by_test_id("walk-position")
    # (what is typed, the verdict, whether the step is then done): one sign slip at step 2
    typed_answers = [
        ("-12", "right", True),  # step 1: err
        ("12", "sign", False),  # step 2: (w·x + b), the sign flipped
        ("-12", "right", True),
        ("-12", "right", False),  # step 3: (w·x), then b
        ("-12", "right", True),
        ("-24", "right", True),  # step 4: w
    ]
    for typed, verdict, step_done in typed_answers:
        expect(guess).to_be_focused()
        page.keyboard.type(typed)
        page.keyboard.press("Enter")
        expect(feedback).to_have_attribute("data-diagnosis", verdict)
        if step_done and position.inner_text() != "4 / 4":
            expect(page.get_by_test_id("practice-next")).to_be_focused()
            page.keyboard.press("Enter")
    expect(position).to_have_text("4 / 4")
    expect(feedback).to_contain_text("Walk done: 4 of 5 right at the first try")
    expect(page.get_by_test_id("practice-score")).to_contain_text("4 / 5")
    # The review, by keyboard: Tab reaches "next mistake", Enter goes back to step 2.
    review = page.get_by_test_id("practice-review")
    for _ in range(30):
        if review.evaluate("b => b === document.activeElement"):
            break
        page.keyboard.press("Tab")
    expect(review).to_be_focused()
    page.keyboard.press("Enter")
    expect(position).to_have_text("2 / 4")
    expect(feedback).to_contain_text("12 (sign), then -12 (right)")


def test_the_toggle_reruns_and_share_links_keep_practice(page: Page) -> None:
    """The button turns practice on (a new run asking its questions) and off; the URL says so."""
    page.goto(program_url(TINY))
    wait_ready(page)
    expect(page.get_by_test_id("practice-panel")).to_be_hidden()
    page.get_by_test_id("practice").click()
    expect(page.get_by_test_id("guess")).to_be_visible()
    expect(page).to_have_url(re.compile(r"practice=1"))
    page.get_by_test_id("practice").click()
    expect(page.get_by_test_id("practice-panel")).to_be_hidden()
    expect(page.get_by_test_id("walk-caption")).to_contain_text("−12")


def test_presentation_hides_the_answer_until_revealed(page: Page) -> None:
    """Presenting: the class predicts first; the instructor reveals the step."""
    open_practice(page, TINY)
    page.get_by_test_id("present").click()
    expect(page.get_by_test_id("guess")).to_be_visible()
    expect(page.get_by_test_id("walk-caption")).not_to_contain_text("−12")
    page.get_by_test_id("practice-show").click()
    expect(page.get_by_test_id("walk-caption")).to_contain_text("−12")


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_nothing_in_practice_mode(browser: Browser, base_url: str, theme: str) -> None:
    """Zero axe-core violations with a question, its feedback and its hint on screen."""
    context = browser.new_context(base_url=base_url, bypass_csp=True, color_scheme=theme)  # type: ignore[arg-type]
    page = context.new_page()
    try:
        open_practice(page, TINY, step="4")
        assert axe_violations(page) == []
        answer(page, "-12")
        page.get_by_test_id("practice-hint").click()
        expect(page.get_by_test_id("practice-hint-text")).to_be_visible()
        assert axe_violations(page) == []
        answer(page, "-24")
        expect(page.get_by_test_id("guess-feedback")).to_contain_text("Right")
        assert axe_violations(page) == []
    finally:
        context.close()


def test_the_notebook_practices_the_shown_cells_walk(page: Page) -> None:
    """The notebook's toggle runs the shown cell again with its questions; its walk asks at
    each step as the playground's does, and the link keeps practice mode."""
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    run_all(page)
    expect(page.get_by_test_id("graph-cell")).to_have_text("Graph of cell 3")
    before = draws(page)
    page.get_by_test_id("practice").click()
    graph_drawn(page, before)
    expect(page).to_have_url(re.compile(r"practice=1"))
    expect(page.get_by_test_id("guess")).to_be_visible()
    expect(page.locator("#practice-prompt")).to_contain_text(".grad now?")
    expect(page.get_by_test_id("walk-caption")).to_contain_text("= ?")
    answer(page, "123456")
    expect(page.get_by_test_id("guess-feedback")).to_have_attribute("data-diagnosis", "wrong")
    page.get_by_test_id("practice-show").click()
    expect(page.get_by_test_id("guess-feedback")).to_contain_text("The answer")
    expect(page.get_by_test_id("walk-caption")).not_to_contain_text("= ?")
    expect(page.get_by_test_id("practice-next")).to_be_focused()


def test_a_notebook_cell_marked_as_an_exercise_is_practised(page: Page) -> None:
    """A code cell whose first line is `# exercise` is walked in practice mode, the toggle off."""
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    run_all(page)
    cell = code_cell(page, 3)
    cell.get_by_test_id("cell-editor").click()
    page.keyboard.press("Control+Home")
    page.keyboard.type("# exercise\n")
    expect(cell).to_have_attribute("data-exercise", "true")
    run_cell(page, 3)
    expect(page.get_by_test_id("guess")).to_be_visible()
    expect(page.get_by_test_id("practice")).to_have_attribute("aria-pressed", "true")
    expect(page).not_to_have_url(re.compile(r"practice=1"))


def test_every_gallery_example_and_lesson_has_a_practice_version(page: Page) -> None:
    """The Examples gallery offers each example's practice version beside it, and the
    notebook's Lessons each lesson's: picking one opens it in practice mode, asking."""
    page.goto("/")
    wait_ready(page)
    page.get_by_test_id("examples").click()
    cards = page.locator("[data-testid^=example-][data-example]")
    expect(cards.first).to_be_visible()
    practice = page.locator("[data-testid$=-practice][data-testid^=example-]")
    expect(practice).to_have_count(cards.count())
    first = cards.first.get_attribute("data-example")
    page.get_by_test_id(f"example-{first}-practice").click()
    expect(page.get_by_test_id("practice")).to_have_attribute("aria-pressed", "true")
    expect(page.get_by_test_id("guess")).to_be_visible()
    expect(page).to_have_url(re.compile(r"practice=1"))
    page.goto("/notebook")
    expect(page.get_by_test_id("cells")).to_have_attribute("data-state", "ready")
    page.get_by_test_id("lessons").click()
    lesson = page.locator("[data-testid^=lesson-][data-testid$=-practice]").first
    expect(lesson).to_be_visible()
    lesson.click()
    expect(page.get_by_test_id("practice")).to_have_attribute("aria-pressed", "true")
    expect(page).to_have_url(re.compile(r"practice=1"))
