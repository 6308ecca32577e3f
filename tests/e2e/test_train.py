"""The train page end to end: the real app, the real train API, Debian's chromium."""

from __future__ import annotations

import re
import time
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

pytestmark = pytest.mark.e2e


def step_count(page: Page) -> int:
    return int(page.get_by_test_id("train-step").inner_text())


def read_acc(page: Page) -> float:
    text = page.get_by_test_id("test-acc").inner_text()
    return float(text) if text != "–" else -1.0


def updates(page: Page) -> int:
    return int(page.get_by_test_id("boundary").get_attribute("data-updates") or 0)


def contrast(fg: str, bg: str) -> float:
    """WCAG contrast ratio of two CSS rgb()/rgba() colours."""

    def luminance(css: str) -> float:
        r, g, b = (int(v) / 255 for v in re.findall(r"[\d.]+", css)[:3])
        lin = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in (r, g, b)]
        return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]

    hi, lo = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def open_train(page: Page, hash_: str = "") -> None:
    page.goto(f"/train{hash_}")
    page.wait_for_function("() => document.querySelector('[data-testid=boundary]').dataset.updates")


def wait_step_at_least(page: Page, n: int, timeout: float = 20_000) -> None:
    page.wait_for_function(
        "n => Number(document.querySelector('[data-testid=train-step]').textContent) >= n",
        arg=n,
        timeout=timeout,
    )


def test_play_moves_the_step_counter_and_accuracy_then_pause_stops_it(page: Page) -> None:
    open_train(page)
    expect(page.get_by_test_id("train-step")).to_have_text("0")
    start_acc = read_acc(page)
    page.get_by_test_id("train-play").click()
    expect(page.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "true")
    # the pressed button must stay readable (its label once went white on a light background)
    colours = page.get_by_test_id("train-play").evaluate(
        "b => [getComputedStyle(b).color, getComputedStyle(b).backgroundColor]"
    )
    assert contrast(*colours) >= 3, colours
    expect(page.get_by_test_id("train-play")).to_contain_text("Pause")
    wait_step_at_least(page, 150)
    page.wait_for_function("() => Number(document.querySelector('[data-testid=test-acc]')"
                           ".textContent) >= 0.9", timeout=20_000)  # fmt: skip
    assert read_acc(page) > start_acc
    page.get_by_test_id("train-play").click()
    expect(page.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "false")
    page.wait_for_timeout(300)  # the call in flight lands
    paused_at = step_count(page)
    page.wait_for_timeout(500)
    assert step_count(page) == paused_at
    # the charts and the boundary have been drawn
    assert page.get_by_test_id("loss-chart").bounding_box()["height"] > 100  # type: ignore[index]
    assert page.evaluate("() => document.querySelector('[data-testid=boundary]').width") > 0


def test_step_once_takes_exactly_one_step(page: Page) -> None:
    open_train(page)
    before = updates(page)
    page.get_by_test_id("train-step-once").click()
    expect(page.get_by_test_id("train-step")).to_have_text("1")
    page.get_by_test_id("train-step-once").click()
    expect(page.get_by_test_id("train-step")).to_have_text("2")
    assert updates(page) >= before + 2
    page.get_by_test_id("train-reset").click()
    expect(page.get_by_test_id("train-step")).to_have_text("0")


def test_learning_rate_changes_mid_run_and_lands_in_the_url(page: Page) -> None:
    open_train(page, "#lr=0.00001&spu=5")
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 30)
    slow_acc = read_acc(page)  # lr 1e-5: barely moves from the initial accuracy
    page.get_by_test_id("train-lr").select_option("0.03")
    assert "lr=0.03" in page.url or "lr=" not in page.url  # 0.03 is the default: dropped
    at_change = step_count(page)
    assert at_change > 0  # the run went on: no reset
    wait_step_at_least(page, at_change + 200)
    page.get_by_test_id("train-play").click()
    page.wait_for_function("() => Number(document.querySelector('[data-testid=test-acc]')"
                           ".textContent) >= 0.9", timeout=20_000)  # fmt: skip
    assert read_acc(page) > slow_acc
    page.get_by_test_id("train-lr").select_option("0.1")
    assert "lr=0.1" in page.url


def test_add_a_point_by_clicking_the_plot(page: Page) -> None:
    open_train(page)
    page.get_by_test_id("train-point-class-1").click()
    box = page.get_by_test_id("boundary").bounding_box()
    assert box is not None
    before = updates(page)
    page.get_by_test_id("boundary").click(
        position={"x": box["width"] * 0.9, "y": box["height"] * 0.1}
    )
    expect(page.get_by_test_id("train-point-count")).to_have_text("1 added")
    page.wait_for_function("n => Number(document.querySelector('[data-testid=boundary]')"
                           ".dataset.updates) > n", arg=before)  # fmt: skip
    pts = parse_qs(urlparse(page.url).fragment)["pts"][0]
    x, y, label = pts.split(":")
    assert float(x) > 1.0 and float(y) > 1.0 and label == "1"
    # the point is trained on: a step still works, and a reload keeps the point
    page.get_by_test_id("train-step-once").click()
    expect(page.get_by_test_id("train-step")).to_have_text("1")
    page.reload()
    expect(page.get_by_test_id("train-point-count")).to_have_text("1 added")


def test_settings_live_in_the_url(page: Page) -> None:
    open_train(page, "#data=spiral&classes=3&hidden=8,8,8&act=relu&opt=momentum&batch=64")
    expect(page.get_by_test_id("train-dataset")).to_have_value("spiral")
    expect(page.get_by_test_id("train-shape")).to_have_text("2-8-8-8-3")
    expect(page.get_by_test_id("train-activation")).to_have_value("relu")
    expect(page.get_by_test_id("train-optimizer")).to_have_value("momentum")
    expect(page.get_by_test_id("train-batch")).to_have_value("64")
    # the layer builder edits the model and the URL
    page.get_by_test_id("train-layer-0-plus").click()
    page.get_by_test_id("train-layer-2-remove").click()
    page.get_by_test_id("train-add-layer").click()
    expect(page.get_by_test_id("train-shape")).to_have_text("2-9-8-8-3")
    assert "hidden=9%2C8%2C8" in page.url or "hidden=9,8,8" in page.url
    page.get_by_test_id("train-dataset").select_option("circles")
    expect(page.get_by_test_id("train-shape")).to_have_text("2-9-8-8-2")
    expect(page.get_by_test_id("train-step")).to_have_text("0")


def test_open_a_step_in_the_playground(page: Page) -> None:
    open_train(page, "#hidden=4")
    page.get_by_test_id("train-step-once").click()
    expect(page.get_by_test_id("train-step")).to_have_text("1")
    with page.context.expect_page() as popup:
        page.get_by_test_id("train-open-playground").click()
    playground = popup.value
    playground.wait_for_url(re.compile(r"/#src="), timeout=10_000)
    playground.wait_for_function(
        "() => { const g = document.querySelector('[data-testid=graph]');"
        " return g && g.dataset.state === 'ready' && Number(g.dataset.runCount || 0) >= 1; }",
        timeout=20_000,
    )
    expect(page.get_by_test_id("train-step")).to_have_text("2")  # that step was taken here too
    for name in ("W1", "b1", "h1", "logits", "loss"):
        expect(playground.locator(f'[data-testid=graph] [data-node-name="{name}"]')).to_have_count(
            1
        )
    expect(playground.get_by_test_id("stdout")).to_contain_text("loss = ")
    expect(playground.get_by_test_id("error")).to_be_hidden()
    # the backward walk of that step plays in the playground
    playground.get_by_test_id("walk-first").click()
    playground.get_by_test_id("walk-next").click()
    expect(playground.get_by_test_id("walk-caption")).not_to_be_empty()
    playground.close()


def test_twenty_updates_a_second_for_2_16_16_2(page: Page) -> None:
    open_train(page, "#spu=1")
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 5)
    start, t0 = updates(page), time.monotonic()
    page.wait_for_timeout(2000)
    rate = (updates(page) - start) / (time.monotonic() - t0)
    page.get_by_test_id("train-play").click()
    print(f"train page: {rate:.1f} updates/s (2-16-16-2, 1 step per update)")
    assert rate >= 20, rate
