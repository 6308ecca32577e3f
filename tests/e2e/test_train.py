"""The train page end to end: the real app, the real train API, Debian's chromium."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, WebSocket, expect

from server.training import live

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


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


@dataclass
class Traffic:
    """What the page said to the train API: live connections, their messages, and any HTTP
    answer of 400 or more."""

    sockets: list[WebSocket] = field(default_factory=list)
    sent: list[dict[str, Any]] = field(default_factory=list)
    received: list[dict[str, Any]] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)

    def requests(self) -> list[dict[str, Any]]:
        """The TrainRequests the page sent (in `start` and `change` messages)."""
        return [m["request"] for m in self.sent if "request" in m]

    def updates(self) -> list[dict[str, Any]]:
        return [m for m in self.received if m["type"] == "update"]


def record_train_traffic(page: Page, keep_received: bool = False) -> Traffic:
    """Watch the page's live connections (and refused HTTP requests) from now on."""
    traffic = Traffic()

    def on_socket(ws: WebSocket) -> None:
        if "/api/v1/train/live" not in ws.url:
            return
        traffic.sockets.append(ws)
        ws.on("framesent", lambda payload: traffic.sent.append(json.loads(payload)))
        if keep_received:
            ws.on("framereceived", lambda payload: traffic.received.append(json.loads(payload)))

    page.on("websocket", on_socket)
    page.on(
        "response",
        lambda r: traffic.refused.append(f"{r.status} {r.url}") if r.status >= 400 else None,
    )
    return traffic


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


@pytest.mark.slow  # a rate: measured where the machine is quiet (make test-slow), not in CI
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


# ---- playing for long over one connection (issue 12) ------------------------------------------

#: Updates a second the page kept up before it moved to one connection, measured on this
#: project's 2-core machine (2-16-16-2, 5 steps an update): 54-59 (median 57) when quiet,
#: ~23 with every core busy (new and old interleaved then: 26 and 23). The long run (slow-
#: marked: make test-slow, on a quiet machine) asserts the issue's ~40. The CI version shares
#: a 2-core machine with the rest of the suite, so it asserts what does not depend on the
#: machine's speed: the run never stops or stalls, over one connection, with no refusal.
LONG_RUN_UPDATES_PER_S: float | None = 40
CI_RUN_UPDATES_PER_S: float | None = None


def play_for(page: Page, seconds: float, min_rate: float | None) -> None:
    """Play the default model for ``seconds`` over one connection: the run never stops or
    stalls, nothing is refused, and (when given) updates keep coming at ``min_rate`` a second
    at least."""
    traffic = record_train_traffic(page)
    open_train(page)
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 10)
    start, t0 = updates(page), time.monotonic()
    last_step, last_change = step_count(page), t0
    while (now := time.monotonic()) - t0 < seconds:
        page.wait_for_timeout(1000)
        step = step_count(page)
        if step > last_step:
            last_step, last_change = step, time.monotonic()
        assert time.monotonic() - last_change < 5, f"stalled at step {step}"
        expect(page.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "true")
        expect(page.get_by_test_id("train-error")).to_be_hidden()
        expect(page.get_by_test_id("train-link")).to_be_hidden()
    rate = (updates(page) - start) / (now - t0)
    page.get_by_test_id("train-play").click()
    print(f"train page: {rate:.1f} updates/s for {seconds:.0f} s, step {last_step}")
    assert len(traffic.sockets) == 1, "one connection for the whole run"
    assert traffic.refused == []
    if min_rate is not None:
        assert rate >= min_rate, rate


def test_plays_30_seconds_over_one_connection_without_a_refusal(page: Page) -> None:
    play_for(page, 30, CI_RUN_UPDATES_PER_S)


@pytest.mark.slow
def test_plays_5_minutes_over_one_connection_without_a_refusal(page: Page) -> None:
    play_for(page, 300, LONG_RUN_UPDATES_PER_S)


def test_step_and_reset_while_playing_go_over_the_same_connection(page: Page) -> None:
    traffic = record_train_traffic(page)
    open_train(page)
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 30)
    page.get_by_test_id("train-step-once").click()  # pauses, then exactly one step
    expect(page.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "false")
    page.wait_for_timeout(400)  # updates in flight at the pause land
    before = step_count(page)
    page.get_by_test_id("train-step-once").click()
    expect(page.get_by_test_id("train-step")).to_have_text(str(before + 1))
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, before + 20)
    page.get_by_test_id("train-reset").click()  # a fresh run, still playing
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=train-step]').textContent) < 30"
    )
    expect(page.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "true")
    wait_step_at_least(page, 30)
    page.get_by_test_id("train-play").click()
    assert len(traffic.sockets) == 1
    kinds = [m["type"] for m in traffic.sent]
    assert kinds[0] == "start" and kinds.count("start") == 2  # the page's, then the reset's
    assert {"play", "pause", "step", "ack"} <= set(kinds)
    assert traffic.refused == []


def _replay(page: Page, request: dict[str, Any], steps: int) -> dict[str, Any]:
    """The state after ``steps`` steps from scratch through POST /api/v1/train."""
    state = None
    while steps:
        chunk = min(steps, 1000)
        r = page.request.post(
            "/api/v1/train", data={**request, "steps": chunk, "state": state, "grid": 2}
        )
        assert r.ok, r.text()
        state, steps = r.json()["state"], steps - chunk
    assert state is not None
    return state


def test_a_dropped_connection_resumes_exactly_where_the_run_was(
    page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server closes each connection after its first update past one second (as it does
    after 30 minutes, so that long sessions spread over replicas): the page reconnects and
    resumes from the state it holds, and the run is the same run, bit for bit."""
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(lifetime_s=1.0))
    traffic = record_train_traffic(page, keep_received=True)
    open_train(page)
    page.get_by_test_id("train-play").click()
    page.wait_for_timeout(5000)
    page.get_by_test_id("train-play").click()
    page.wait_for_timeout(500)
    assert len(traffic.sockets) >= 3, len(traffic.sockets)
    starts = [m for m in traffic.sent if m["type"] == "start"]
    assert len(starts) == len(traffic.sockets)
    assert all(s["request"]["state"] for s in starts[1:])  # each resumed from a state
    steps = [u["response"]["state"]["step"] for u in traffic.updates()]
    last = traffic.updates()[-1]["response"]["state"]
    assert step_count(page) == last["step"] == max(steps)
    request = {k: v for k, v in starts[0]["request"].items() if k != "state"}
    assert _replay(page, request, last["step"]) == last
    expect(page.get_by_test_id("train-error")).to_be_hidden()


def test_a_busy_server_gets_a_calm_retry_and_the_run_is_kept(
    page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Connections live 2 s here (as they do 30 minutes in production): the page reconnects...
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(lifetime_s=2))
    open_train(page)
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 50)
    # ... and from now on the server refuses new live runs (1013, retry after 2 s).
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(lifetime_s=2, max_runs=0, retry_after_s=2))
    notice = page.get_by_test_id("train-link")
    expect(notice).to_be_visible(timeout=10_000)
    expect(notice).to_contain_text("busy")
    expect(notice).to_contain_text(re.compile(r"retrying in \d+ s"))
    expect(notice).to_contain_text("kept")
    expect(page.get_by_test_id("train-rate")).to_have_text("waiting for the server")
    assert notice.evaluate("n => getComputedStyle(n).color") != page.get_by_test_id(
        "train-error"
    ).evaluate("n => getComputedStyle(n).color")  # calm: not the error's colours
    held = step_count(page)
    assert held >= 50  # nothing lost
    expect(page.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "true")
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits())
    expect(notice).to_be_hidden(timeout=10_000)  # retried after 2-3 s
    wait_step_at_least(page, held + 20)
    page.get_by_test_id("train-play").click()


# ---- issue 15: stable layout, divergence, accessibility ---------------------------------------

BOXES = """() => [...document.querySelectorAll(
  '.train-bar, .train-bar button, .train-bar .stat, [data-testid=train-rate],'
  + ' [data-testid=boundary], [data-testid=loss-chart], [data-testid=acc-chart]')]
  .map(e => { const r = e.getBoundingClientRect();
              return [e.dataset.testid || e.className, r.x, r.y, r.width, r.height]; })"""


@pytest.mark.parametrize("size", [(1280, 800), (1024, 768)], ids=["1280x800", "1024x768"])
def test_play_and_pause_move_nothing(page: Page, size: tuple[int, int]) -> None:
    page.set_viewport_size({"width": size[0], "height": size[1]})
    open_train(page)
    before = page.evaluate(BOXES)
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 100)
    playing = page.evaluate(BOXES)
    page.get_by_test_id("train-play").click()
    page.wait_for_timeout(300)
    after = page.evaluate(BOXES)
    assert len(before) == 13  # the bar, 3 buttons, 5 stats, the rate, 3 plots
    assert before == playing == after


def test_a_diverging_loss_is_flagged_and_one_click_restarts_lower(page: Page) -> None:
    open_train(page, "#lr=10")
    warning = page.get_by_test_id("train-diverge")
    expect(warning).to_be_hidden()
    page.get_by_test_id("train-play").click()
    expect(warning).to_be_visible(timeout=10_000)
    expect(warning).to_contain_text("diverging")
    offer = page.get_by_test_id("train-lower-lr")
    expect(offer).to_have_text("Restart with learning rate 0.1")  # Adam's safe rate
    offer.click()
    expect(page.get_by_test_id("train-lr")).to_have_value("0.1")
    assert "lr=0.1" in page.url and "lr=10" not in page.url
    expect(warning).to_be_hidden()
    expect(page.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "true")
    wait_step_at_least(page, 50)
    page.get_by_test_id("train-play").click()


def test_a_workable_rate_gets_no_warning(page: Page) -> None:
    """Adam at 0.3 spikes once early on moons (0.7 -> 5), then learns: no alarm for that."""
    open_train(page, "#lr=0.3")
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 300)
    page.get_by_test_id("train-play").click()
    expect(page.get_by_test_id("train-diverge")).to_be_hidden()


@pytest.fixture(scope="module")
def axe_source() -> str:
    return (ROOT / "node_modules" / "axe-core" / "axe.min.js").read_text()


def axe_violations(page: Page, source: str) -> list[dict[str, Any]]:
    """axe-core's violations on the page (every rule axe runs by default)."""
    page.evaluate(source)  # through the DevTools protocol: the page's CSP does not apply
    found: list[dict[str, Any]] = page.evaluate(
        """async () => (await axe.run(document)).violations.map(v => ({
             id: v.id, impact: v.impact, help: v.help,
             nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5) }))"""
    )
    return found


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_nothing_on_train(page: Page, axe_source: str, theme: str) -> None:
    page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
    open_train(page, "#data=spiral&classes=3")
    assert axe_violations(page, axe_source) == []
    # and with the notices up: the divergence warning, an added point's class picker in use
    page.get_by_test_id("train-lr").select_option("10")
    page.get_by_test_id("train-play").click()
    expect(page.get_by_test_id("train-diverge")).to_be_visible(timeout=10_000)
    page.get_by_test_id("train-play").click()
    assert axe_violations(page, axe_source) == []


def test_no_csp_violation_while_using_the_page(page: Page) -> None:
    page.add_init_script(
        "window.__csp = []; document.addEventListener('securitypolicyviolation',"
        " e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));"
    )
    open_train(page)
    page.get_by_test_id("train-point-class-1").click()
    page.get_by_test_id("boundary").click(position={"x": 40, "y": 40})
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 20)
    page.get_by_test_id("train-step-once").click()
    page.get_by_test_id("theme").click()
    page.get_by_test_id("train-lr").select_option("10")
    page.get_by_test_id("train-play").click()
    expect(page.get_by_test_id("train-diverge")).to_be_visible(timeout=10_000)
    page.get_by_test_id("train-play").click()
    assert page.evaluate("window.__csp") == []


def test_point_class_picker_is_a_radio_group(page: Page) -> None:
    open_train(page, "#data=spiral&classes=3")
    radios = page.get_by_role("radio")
    expect(radios).to_have_count(3)
    expect(page.get_by_role("radio", name="class 0")).to_be_checked()
    page.get_by_role("radio", name="class 0").focus()
    page.keyboard.press("ArrowRight")
    expect(page.get_by_role("radio", name="class 1")).to_be_checked()
    expect(page.get_by_role("heading", level=1)).to_have_count(1)


def test_plain_sgd_is_offered_a_tenth(page: Page) -> None:
    open_train(page, "#opt=sgd&lr=10")
    page.get_by_test_id("train-play").click()
    expect(page.get_by_test_id("train-lower-lr")).to_have_text(
        "Restart with learning rate 1", timeout=10_000
    )
    page.get_by_test_id("train-play").click()


def test_a_rate_limited_reconnect_waits_for_retry_after(
    page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A reconnect refused by the rate limit is accepted and closed with 1013 ("try again
    later") and the wait in its reason; the page waits it out, calmly, and resumes. No console
    error: the page can read the refusal, so nothing fails."""
    from server.app import create_app
    from tests.api.conftest import make_settings
    from tests.e2e.live_server import live_server

    # 6 a minute: the device list and a few connections, then one every 10 s.
    app = create_app(make_settings(rate_limit_per_minute=6, sandbox_workers=1))
    monkeypatch.setattr(live, "LIMITS", live.LiveLimits(lifetime_s=0.5))
    with live_server(app) as url:
        tab = page.context.new_page()
        errors: list[str] = []
        tab.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        tab.on("pageerror", lambda e: errors.append(f"exception: {e}"))
        closes: list[str] = []
        tab.on(
            "websocket",
            lambda ws: ws.on("close", lambda _ws: closes.append(ws.url)),
        )
        tab.goto(f"{url}/train")
        tab.get_by_test_id("train-play").click()
        notice = tab.get_by_test_id("train-link")
        expect(notice).to_contain_text("busy", timeout=20_000)
        told = int(notice.locator("span").inner_text())
        assert 5 <= told <= 16, told  # Retry-After ~10 s, plus up to half again
        held = step_count(tab)
        expect(notice).to_be_hidden(timeout=30_000)
        tab.wait_for_function(
            "n => Number(document.querySelector('[data-testid=train-step]').textContent) > n",
            arg=held,
            timeout=20_000,
        )
        expect(tab.get_by_test_id("train-play")).to_have_attribute("aria-pressed", "true")
        tab.get_by_test_id("train-play").click()
        tab.close()
    assert len(closes) >= 2  # the age limit's close, and the refused reconnect's
    assert errors == []


def test_a_point_added_while_playing_joins_the_run_at_the_next_update(page: Page) -> None:
    """The protocol's promise, not the machine's speed: a change takes effect at the next update
    the server computes once it has the change. The server runs at most ``window`` updates
    ahead of the page's acks, and reads the page's messages in order, so the update that brings
    the new point is at most ``window + 1`` updates after the acks the page had sent before
    its change; and it is the same run (no reset): its step is past the one shown at the click."""
    traffic = record_train_traffic(page, keep_received=True)
    open_train(page)
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 50)
    page.get_by_test_id("train-point-class-1").click()
    before_click = step_count(page)
    page.get_by_test_id("boundary").click(position={"x": 30, "y": 30})
    expect(page.get_by_test_id("train-point-count")).to_have_text("1 added")
    # The page acknowledges the change's update by showing its points (its `data`).
    page.wait_for_function(
        "() => Number(document.querySelector('[data-testid=boundary]').dataset.pointsStep) > 0"
    )
    joined_at = int(page.get_by_test_id("boundary").get_attribute("data-points-step") or 0)
    wait_step_at_least(page, joined_at + 5)  # and plays on from there
    page.get_by_test_id("train-play").click()
    assert len(traffic.sockets) == 1  # one connection: its acks and updates are one sequence
    sent = [m["type"] for m in traffic.sent]
    change_at = sent.index("change")
    assert sent.count("change") == 1
    acks_before_change = sent[:change_at].count("ack")
    change = traffic.sent[change_at]
    [point] = change["request"]["dataset"]["points"]
    assert point[2] == 1 and change["request"]["include_data"]
    # The update that brought the new data trained on it: its points include the new one.
    with_data = [u for u in traffic.updates() if u["response"]["data"]]
    assert len(with_data) == 2  # the page's first update, then the one after the click
    joined = with_data[1]
    assert point in joined["response"]["data"]["train"]
    assert joined["seq"] <= acks_before_change + live.LIMITS.window + 1, (
        joined["seq"],
        acks_before_change,
    )
    assert joined["response"]["state"]["step"] == joined_at > before_click


def test_a_server_error_mid_run_is_retried_at_once_and_the_run_goes_on(
    page: Page, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An update that fails on the server closes the connection (1011); the page reconnects
    at once, without a notice, and resumes from its last state."""
    execute = live.LiveRun.execute
    calls = {"n": 0}

    def flaky(self: live.LiveRun, job: live.Job, *rest: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 20:
            raise RuntimeError("a bug in an update")
        return execute(self, job, *rest)

    monkeypatch.setattr(live.LiveRun, "execute", flaky)
    traffic = record_train_traffic(page)
    open_train(page)
    page.get_by_test_id("train-play").click()
    wait_step_at_least(page, 200)
    page.get_by_test_id("train-play").click()
    assert calls["n"] > 20 and len(traffic.sockets) == 2
    expect(page.get_by_test_id("train-link")).to_be_hidden()
    expect(page.get_by_test_id("train-error")).to_be_hidden()
