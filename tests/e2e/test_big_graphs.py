"""Big graphs a class can read: repetition collapses into series groups (an RNN cell called 20
times, a tanh RNN unrolled 30 steps by hand), the first view is readable (a few dozen boxes,
text >= 11 px, >= 16 px presented, the loss in view), Fit and zooming out never shrink text
below that (zooming out shuts a level instead), and the backward walk never loses the learner:
each step shows its node, in view, inside the opened group, with the iteration in the caption."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.e2e.graphcheck import measure
from tests.e2e.programs import program_url
from tests.e2e.test_playground import wait_ready
from tests.e2e.test_teaching import axe_violations

pytestmark = pytest.mark.e2e

#: A 3-layer MLP feeding a 20-step nn.RNNCell.
MLP_RNN = """\
import torch
import torch.nn as nn
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 3))
cell = nn.RNNCell(3, 5)
x = torch.randn(2, 4)
h = torch.zeros(2, 5)
for t in range(20):
    h = cell(model(x), h)
loss = h.pow(2).mean()
loss.backward()
"""

#: A tanh RNN unrolled by hand for 30 steps.
MANUAL_RNN = """\
import torch
torch.manual_seed(0)
Wx = torch.randn(3, 4, requires_grad=True)
Wh = torch.randn(4, 4, requires_grad=True)
b = torch.zeros(4, requires_grad=True)
xs = torch.randn(30, 3)
h = torch.zeros(4)
for t in range(30):
    h = torch.tanh(xs[t] @ Wx + h @ Wh + b)
loss = (h ** 2).sum()
loss.backward()
"""

#: A LeNet-style CNN: two convolutions with pooling, then two linear layers.
LENET = """\
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 5)
        self.conv2 = nn.Conv2d(4, 8, 5)
        self.fc1 = nn.Linear(8 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)
    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.flatten(1)
        return self.fc2(F.relu(self.fc1(x)))
net = LeNet()
images = torch.randn(2, 1, 28, 28)
labels = torch.tensor([3, 7])
loss = F.cross_entropy(net(images), labels)
loss.backward()
"""

GRAPH_BOXES = "[data-testid=graph] .nodes [data-node-id]"


def open_at(page: Page, source: str, width: int = 1366, height: int = 768) -> Locator:
    page.set_viewport_size({"width": width, "height": height})
    page.goto(program_url(source))
    return wait_ready(page)


def pane_rect(page: Page) -> tuple[float, float, float, float]:
    left, top, right, bottom = measure(page).pane
    return left, top, right, bottom


def in_pane(page: Page, box: Locator) -> bool:
    rect = box.bounding_box()
    assert rect is not None
    left, top, right, bottom = pane_rect(page)
    return (
        left - 1 <= rect["x"]
        and rect["x"] + rect["width"] <= right + 1
        and top - 1 <= rect["y"]
        and rect["y"] + rect["height"] <= bottom + 1
    )


def visible_boxes(page: Page) -> int:
    """Node boxes drawn at least partly inside the graph pane."""
    left, top, right, bottom = pane_rect(page)
    return sum(
        1
        for _, (x0, y0, x1, y1) in measure(page).boxes
        if x1 > left and x0 < right and y1 > top and y0 < bottom
    )


def check_first_view(page: Page, min_px: float) -> None:
    """A few dozen boxes at most, at least three, the loss in view, no text below `min_px`."""
    drawing = measure(page)
    assert min(drawing.font_px) >= min_px - 0.01, sorted(drawing.font_px)[:3]
    assert 3 <= visible_boxes(page) <= 60
    loss = page.locator(f'{GRAPH_BOXES}[data-node-name="loss"]')
    expect(loss).to_have_count(1)
    assert in_pane(page, loss)


def test_an_rnn_cell_called_20_times_is_one_series_box(page: Page) -> None:
    graph = open_at(page, MLP_RNN)
    series = graph.locator('.nodes [data-group-kind="repeat"]')
    expect(series).to_have_count(1)
    expect(series).to_contain_text("cell ×20")
    expect(series).to_contain_text("t = 0 … 19")
    check_first_view(page, 11)
    # Opened (keyboard: the box is focusable, Enter opens it), the 20 iterations (each the MLP's
    # calls and the cell's) come back, each with its index, in a frame that says what they are.
    series.focus()
    page.keyboard.press("Enter")
    wait_ready(page)
    expect(graph.locator(".nodes [data-iteration]")).to_have_count(20)
    expect(graph.locator('.nodes [data-iteration="17"]')).to_contain_text("t = 17")
    frame = graph.locator('.module-frame[data-group-kind="repeat"]')
    expect(frame).to_contain_text("cell ×20")
    # Its frame's title shuts it again, from the keyboard too.
    frame.locator("[data-frame-module]").focus()
    page.keyboard.press("Enter")
    expect(series).to_have_count(1)


def test_a_loop_unrolled_30_steps_reads_as_one_group_and_fits_legibly(page: Page) -> None:
    graph = open_at(page, MANUAL_RNN)
    series = graph.locator('.nodes [data-group-kind="repeat"]')
    expect(series).to_have_count(1)
    expect(series).to_contain_text("×30")
    # Not 30 copies: the loop's h is drawn once, as the series' output.
    expect(graph.locator('.nodes [data-node-name="h"]')).to_have_count(0)
    check_first_view(page, 11)
    # Fit never makes text unreadable, even with the series open.
    series.click()
    wait_ready(page)
    expect(graph.locator(".nodes [data-iteration]")).to_have_count(30)
    page.get_by_test_id("graph-fit").click()
    wait_ready(page)
    assert min(measure(page).font_px) >= 11 - 0.01


def test_zooming_out_shuts_a_level_instead_of_shrinking_text(page: Page) -> None:
    graph = open_at(page, MANUAL_RNN)
    graph.locator('.nodes [data-group-kind="repeat"]').click()
    wait_ready(page)
    expect(graph.locator(".nodes [data-iteration]")).to_have_count(30)
    page.get_by_test_id("graph").focus()
    for _ in range(12):
        page.keyboard.press("-")
    expect(graph.locator('.nodes [data-group-kind="repeat"]')).to_contain_text("×30")
    wait_ready(page)
    assert min(measure(page).font_px) >= 11 - 0.01


def test_zooming_in_on_a_shut_series_opens_it(page: Page) -> None:
    graph = open_at(page, MANUAL_RNN)
    series = graph.locator('.nodes [data-group-kind="repeat"]')
    rect = series.bounding_box()
    assert rect
    page.mouse.move(rect["x"] + rect["width"] / 2, rect["y"] + rect["height"] / 2)
    # One turn of the wheel, zooming to well past twice the legible size over the box.
    page.mouse.wheel(0, -600)
    expect(graph.locator(".nodes [data-iteration]")).to_have_count(30)
    expect(graph.locator('.module-frame[data-group-kind="repeat"]')).to_contain_text("×30")


def test_the_walk_through_a_loop_never_skips_and_keeps_its_node_in_view(page: Page) -> None:
    graph = open_at(page, MANUAL_RNN)
    total = int(page.get_by_test_id("walk-position").inner_text().split("/")[1])
    page.get_by_test_id("graph").focus()
    page.keyboard.press("Home")
    seen_iterations: set[int] = set()
    for position in range(1, 41):
        page.keyboard.press("ArrowRight")
        # Each press moves exactly one step: none skipped.
        expect(page.get_by_test_id("walk-position")).to_have_text(f"{position} / {total}")
        wait_ready(page)
        active = graph.locator(".nodes [data-walk-active=true]")
        expect(active).to_have_count(1)
        assert in_pane(page, active.locator(".node-box")), position
        expect(page.locator("#hovercard")).to_be_hidden()
        iteration = page.get_by_test_id("walk-iteration")
        if iteration.count():
            match = re.fullmatch(r"t = (\d+)", iteration.inner_text())
            assert match
            seen_iterations.add(int(match.group(1)))
            # The step's node is drawn inside its own, opened iteration.
            expect(active).to_have_attribute("data-iteration", match.group(1))
        assert min(measure(page).font_px) >= 11 - 0.01
    # Backward from the last step of the loop: t = 29, 28, ... each named in the caption.
    assert {29, 28, 27} <= seen_iterations, sorted(seen_iterations)


@pytest.mark.parametrize("source", [MLP_RNN, MANUAL_RNN, LENET], ids=["mlp-rnn", "loop", "lenet"])
def test_presented_at_1280x720_the_first_view_reads_from_the_back(page: Page, source: str) -> None:
    open_at(page, source, 1280, 720)
    page.keyboard.press("p")
    expect(page.locator("body")).to_have_class(re.compile("presenting"))
    wait_ready(page)
    check_first_view(page, 16)


def test_a_lenet_cnn_opens_readable(page: Page) -> None:
    open_at(page, LENET)
    check_first_view(page, 11)


def test_axe_finds_nothing_with_a_series_open(browser: Browser, base_url: str) -> None:
    """Group boxes and frames are reachable and named: axe-core finds nothing, shut or open."""
    context = browser.new_context(base_url=base_url, bypass_csp=True)
    page = context.new_page()
    try:
        graph = open_at(page, MANUAL_RNN)
        assert axe_violations(page) == []
        graph.locator('.nodes [data-group-kind="repeat"]').click()
        wait_ready(page)
        expect(graph.locator(".nodes [data-iteration]")).to_have_count(30)
        assert axe_violations(page) == []
    finally:
        context.close()
