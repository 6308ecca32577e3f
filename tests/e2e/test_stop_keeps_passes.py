"""Stop in the middle of a lesson's training loop keeps what it recorded, in Chromium.

A learner stops a long run when they have seen enough. Stop (over the /run/live WebSocket)
stops the program where it is: the page keeps what it printed and the passes it recorded until
then, draws the last of them and walks it, and the pass picker says that the run stopped there.
A second Stop while it stops ends it at once. Each test waits for what the page shows (the
output printed by step N, the status, the picker), never for a time.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.test_playground import node, replace_source, wait_ready

pytestmark = pytest.mark.e2e

#: a training loop of about two minutes: a step every ~40 ms, each with its backward pass
TRAINING = (
    "import time, torch\n"
    "w = torch.tensor(2.0, requires_grad=True)\n"
    "started = time.monotonic()\n"
    "for step in range(3000):\n"
    "    loss = (w * 3 - 1) ** 2\n"
    "    loss.backward()\n"
    "    with torch.no_grad():\n"
    "        w -= 0.01 * w.grad\n"
    "    w.grad = None\n"
    "    print(f'step {step} at {time.monotonic() - started:.0f} s')\n"
    "    time.sleep(0.04)\n"
)


def stop_when_printed(page: Page, line: re.Pattern[str]) -> None:
    """Run TRAINING, and press Stop once the output shows ``line``."""
    page.goto("/")
    wait_ready(page)
    replace_source(page, TRAINING)
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("stop")).to_be_visible()
    expect(page.get_by_test_id("stdout")).to_have_text(line, timeout=90_000)
    page.get_by_test_id("stop").click()


def check_kept(page: Page) -> None:
    """The stopped run's output, its passes (the last drawn and walkable), and where it stopped."""
    status = page.get_by_test_id("run-status")
    expect(status).to_have_text(re.compile(r"^Stopped after \d+\.\d s$"))
    expect(status).to_have_attribute("data-state", "stopped")
    wait_ready(page, runs=2)
    error = page.get_by_test_id("error")
    expect(error).to_contain_text("KeyboardInterrupt")
    expect(error).to_contain_text("stopped by Stop")
    printed = page.get_by_test_id("stdout").inner_text()
    steps = len(re.findall(r"^step \d+", printed, re.M))
    # The picker lists the passes recorded (as many as the steps printed, give or take the one
    # in flight), shows the last, and says the run stopped after it.
    picker = page.get_by_test_id("pass-select")
    expect(picker).to_be_visible()
    options = picker.locator("option")
    last = options.nth(options.count() - 1)
    expect(last).to_contain_text("stopped here")
    assert picker.input_value() == last.get_attribute("value")
    match = re.search(r"pass (\d+) of (\d+)", last.inner_text())
    assert match is not None, last.inner_text()
    assert abs(int(match.group(2)) - steps) <= 1, (last.inner_text(), steps)
    # The last pass is drawn and its backward walk plays to w's gradient.
    expect(node(page, "w")).to_be_visible()
    page.get_by_test_id("walk-last").click()
    position = page.get_by_test_id("walk-position").inner_text()
    current, total = (int(part) for part in position.split("/"))
    assert total > 0 and current == total, position
    expect(page.get_by_test_id("walk-caption")).not_to_be_empty()


def test_stop_keeps_the_output_and_walks_the_last_pass(page: Page) -> None:
    stop_when_printed(page, re.compile(r"^step 20 at", re.M))
    check_kept(page)


def test_a_second_stop_ends_the_run_at_once(page: Page) -> None:
    stuck = "import signal, time\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nprint('ready')\n"
    stuck += "while True:\n    time.sleep(0.01)\n"
    page.goto("/")
    wait_ready(page)
    replace_source(page, stuck)
    page.get_by_test_id("run").click()
    expect(page.get_by_test_id("stdout")).to_have_text("ready\n")
    stop = page.get_by_test_id("stop")
    stop.click()
    expect(page.get_by_test_id("run-status")).to_have_attribute("data-state", "stopping")
    expect(stop).to_have_text(re.compile("Stop now"))
    stop.click()
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile(r"^Stopped after"))
    expect(stop).to_be_hidden()
    expect(page.get_by_test_id("stdout")).to_have_text("ready\n")


@pytest.mark.slow
def test_stop_at_30_s_into_a_two_minute_run_keeps_its_passes(page: Page) -> None:
    """The issue's own case: Stop 30 s into a two-minute training loop."""
    stop_when_printed(page, re.compile(r"^step \d+ at 30 s", re.M))
    check_kept(page)
