"""Issue 20 in Chromium: Stop and runs that replace each other, output as it prints, the output
cut while the program runs on, graphs kept across failures and marked stale after an edit.

Times are measured here and held to the issue's own bounds (Stop ends an endless loop within
1.5 s, the next run answers within 3 s), which hold on a loaded 2-core machine: the server's
wall clock (5 s) is far beyond them, so only a real kill meets them."""

from __future__ import annotations

import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.programs import TINY, program_url
from tests.e2e.test_playground import node, replace_source, wait_ready

pytestmark = pytest.mark.e2e

LOOP = "print('looping')\nwhile True:\n    pass\n"
#: 30,000 lines of 9 characters and their newlines: 300,000 characters, then the tiny example
#: no backward(): the playground calls it on the last statement's value, says so, and shows it
IMPLICIT_BACKWARD = "import torch\nw = torch.tensor(2.0, requires_grad=True)\nw * 3\n"
PRINTS_300K = "for i in range(30000):\n    print(f'{i:09d}')\n" + TINY
SYNTAX_ERROR = "import torch\nw = torch.tensor(0.5, requires_grad=True\nloss = w * 2\n"
NUMPY_ONLY = "import numpy as np\nx = np.arange(4.0)\nprint((x * x).sum())\n"


def running(page: Page) -> int:
    """Programs the server is running now (its /readyz)."""
    body: dict[str, Any] = json.loads(page.request.get("/readyz").text())
    return int(body.get("running", 0))


def seconds_until(condition: Any, limit: float) -> float:
    """Poll ``condition`` every 20 ms; the seconds it took (fails past ``limit``)."""
    started = time.monotonic()
    while not condition():
        if time.monotonic() - started > limit:
            raise AssertionError(f"not within {limit} s")
        time.sleep(0.02)
    return time.monotonic() - started


def start_loop(page: Page) -> None:
    """Run the endless loop and wait until it is running: its first line is already shown."""
    replace_source(page, LOOP)
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("stop")).to_be_visible()
    # Output as it prints: the line is on the page while the program is still running.
    expect(page.get_by_test_id("stdout")).to_have_text("looping\n")
    expect(page.get_by_test_id("run-elapsed")).to_have_text(re.compile(r"^\d+\.\d s$"))
    assert running(page) == 1


def walk_to_the_end(page: Page) -> None:
    """A pass opens at its first backward step (the loss's): go to its end, where w has −24."""
    page.get_by_test_id("walk-last").click()


def test_stop_ends_an_endless_loop_and_the_next_run_answers(page: Page) -> None:
    page.goto(program_url(TINY))
    wait_ready(page)
    walk_to_the_end(page)
    start_loop(page)
    clicked = time.monotonic()
    page.get_by_test_id("stop").click()
    # The program's worker is gone on the server, not just forgotten by the page.
    seconds_until(lambda: running(page) == 0, 5.0)
    stopped_after = time.monotonic() - clicked
    expect(page.get_by_test_id("stop")).to_be_hidden()
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile(r"^Stopped after \d+\.\d s$"))
    expect(page.get_by_test_id("stdout")).to_have_text("looping\n")  # what it printed stays
    # The last good graph stays, marked as such.
    expect(node(page, "w")).to_contain_text("−24")
    note = page.get_by_test_id("graph-note")
    expect(note).to_have_attribute("data-kind", "kept")
    expect(note).to_contain_text("stopped")
    replace_source(page, TINY.replace("0.5", "0.6"))
    started = time.monotonic()
    page.get_by_test_id("run").click()
    wait_ready(page, runs=2)
    answered_after = time.monotonic() - started
    walk_to_the_end(page)
    expect(node(page, "w")).to_contain_text("−23.2")
    expect(note).to_be_hidden()
    assert stopped_after < 1.5, stopped_after
    assert answered_after < 3.0, answered_after


def test_a_new_run_ends_the_loop_it_replaces(page: Page) -> None:
    page.goto(program_url(TINY))
    wait_ready(page)
    start_loop(page)
    replace_source(page, TINY)
    started = time.monotonic()
    page.keyboard.press("Control+Enter")  # Run again while the loop runs: it replaces the loop
    wait_ready(page, runs=2)
    answered_after = time.monotonic() - started
    seconds_until(lambda: running(page) == 0, 1.5)
    expect(page.get_by_test_id("stdout")).to_have_text("dL/dw=-24.00  dL/db=-12.00\n")
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile(r"^Ran on cpu"))
    assert answered_after < 3.0, answered_after


def test_a_syntax_error_keeps_the_previous_graph(page: Page) -> None:
    page.goto(program_url(TINY))
    graph = wait_ready(page)
    walk_to_the_end(page)
    replace_source(page, SYNTAX_ERROR)
    page.get_by_test_id("run").click()
    wait_ready(page, runs=2)
    expect(page.get_by_test_id("error")).to_contain_text("SyntaxError")
    expect(node(page, "w")).to_contain_text("−24")
    expect(graph.locator("[data-node-id]")).to_have_count(8)
    expect(page.locator("#graph-empty")).to_be_hidden()
    note = page.get_by_test_id("graph-note")
    expect(note).to_be_visible()
    expect(note).to_have_attribute("data-kind", "kept")
    expect(note).to_contain_text("Last good run")
    expect(note).to_contain_text("SyntaxError (line 2)")
    expect(graph).to_have_attribute("data-note", "kept")
    # The walk of the kept graph still plays.
    page.get_by_test_id("walk-first").click()
    page.get_by_test_id("walk-next").click()
    expect(graph.locator("[data-walk-active=true]")).to_have_attribute("data-node-name", "loss")


def test_a_program_without_a_graph_keeps_the_previous_one(page: Page) -> None:
    """The gallery's NumPy example records no graph: the tensor graph before it stays."""
    page.goto(program_url(TINY))
    wait_ready(page)
    walk_to_the_end(page)
    replace_source(page, NUMPY_ONLY)
    page.get_by_test_id("run").click()
    wait_ready(page, runs=2)
    expect(page.get_by_test_id("stdout")).to_have_text("14.0\n")
    expect(page.get_by_test_id("error")).to_be_hidden()
    expect(node(page, "w")).to_contain_text("−24")
    expect(page.get_by_test_id("graph-note")).to_contain_text("recorded no graph")


def test_an_edited_program_marks_its_graph_stale(page: Page) -> None:
    page.goto(program_url(TINY))
    graph = wait_ready(page)
    note = page.get_by_test_id("graph-note")
    expect(note).to_be_hidden()
    page.get_by_test_id("editor").click()
    page.keyboard.press("End")
    page.keyboard.insert_text("  # edited")
    expect(note).to_have_attribute("data-kind", "stale")
    expect(note).to_contain_text("changed since this graph was drawn")
    expect(graph).to_have_attribute("data-note", "stale")
    page.keyboard.press("Control+Enter")
    wait_ready(page, runs=2)
    expect(note).to_be_hidden()


def test_printing_300000_characters_runs_to_its_end_with_the_notice_and_its_graph(
    page: Page,
) -> None:
    page.goto("/")
    wait_ready(page)
    replace_source(page, PRINTS_300K)
    page.get_by_test_id("run").click()
    wait_ready(page, runs=2)
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile(r"^Ran on cpu"))
    expect(page.get_by_test_id("error")).to_be_hidden()
    truncated = page.get_by_test_id("output-truncated")
    expect(truncated).to_be_visible()
    expect(truncated).to_be_in_viewport()  # above the output, not pushed below it
    printed = 30_000 * 10 + len("dL/dw=-24.00  dL/db=-12.00\n")
    expect(truncated).to_contain_text(f"the program printed {printed:,} characters")
    stdout = page.get_by_test_id("stdout").inner_text()
    # The head and the tail are kept, the cut marked between them, within the budget.
    head, mark, tail = re.split(
        r"(\n… \[[\d,]+ characters cut: budget max_output_chars\] …\n)", stdout
    )
    assert len(stdout) <= 100_000 and head.startswith("000000000\n000000001\n")
    assert len(head) == 75_000 and tail.endswith("029999\ndL/dw=-24.00  dL/db=-12.00\n")
    cut = int(re.sub(r"\D", "", mark))
    assert len(head) + cut + len(tail) == printed
    expect(truncated).to_contain_text(f"the first 75,000 and the last {len(tail):,} are shown")
    # It ran on to its end: the graph of its last lines is drawn.
    walk_to_the_end(page)
    expect(node(page, "w")).to_contain_text("−24")
    expect(page.get_by_test_id("graph-note")).to_be_hidden()


def test_a_new_run_and_stop_clear_what_the_previous_run_left(page: Page) -> None:
    """The "did not call backward()" note and the `Out` value belong to the run that made them:
    a new run clears them as it starts, and a run that is stopped shows none."""
    page.goto("/")
    wait_ready(page)
    replace_source(page, IMPLICIT_BACKWARD)
    page.get_by_test_id("run").click()
    wait_ready(page, runs=2)
    notice, result = page.get_by_test_id("notice"), page.get_by_test_id("result")
    expect(notice).to_contain_text("did not call backward()")
    expect(result).to_be_visible()
    expect(result).to_contain_text("6")
    start_loop(page)  # a new run: while it runs, nothing of the last one's is shown
    expect(notice).to_be_hidden()
    expect(result).to_be_hidden()
    page.get_by_test_id("stop").click()
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile(r"^Stopped after"))
    expect(notice).to_be_hidden()
    expect(result).to_be_hidden()
    expect(page.get_by_test_id("stdout")).to_have_text("looping\n")
    # A run that answers shows its own (here: no note, no value).
    replace_source(page, "print('hi')\n")
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile(r"^Ran on cpu"))
    expect(page.get_by_test_id("stdout")).to_have_text("hi\n")
    expect(notice).to_be_hidden()
    expect(result).to_be_hidden()
