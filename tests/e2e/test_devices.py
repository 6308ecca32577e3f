"""The device selector on both pages: filled from /api/v1/devices, cuda disabled with its reason
when it is unavailable (this suite runs on CPU-only machines), saved in the URL, and the device
that ran shown after each run."""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.programs import program_url
from tests.e2e.test_playground import wait_ready
from tests.e2e.test_train import open_train, record_train_traffic

pytestmark = pytest.mark.e2e

PAGES = ["/", "/train"]


def server_devices(page: Page) -> dict[str, dict[str, object]]:
    """GET /api/v1/devices as the page's server answers it, keyed by name."""
    response = page.request.get("/api/v1/devices")
    assert response.ok
    return {d["name"]: d for d in response.json()}


def url_params(page: Page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).fragment)


def open_page(page: Page, path: str) -> None:
    if path == "/train":
        open_train(page)
    else:
        page.goto("/")
        wait_ready(page)


@pytest.mark.parametrize("path", PAGES)
def test_selector_lists_the_server_devices(page: Page, path: str) -> None:
    open_page(page, path)
    select = page.get_by_test_id("device")
    expect(select).to_be_visible()
    expect(page.get_by_label("Device")).to_have_count(1)
    devices = server_devices(page)
    expect(select.locator("option")).to_have_count(len(devices))
    expect(select).to_have_value("cpu")
    for name, info in devices.items():
        option = select.locator(f"option[value='{name}']")
        if info["available"]:
            expect(option).to_be_enabled()
        else:
            expect(option).to_be_disabled()


@pytest.mark.parametrize("path", PAGES)
def test_unavailable_cuda_is_disabled_in_a_learners_words(page: Page, path: str) -> None:
    open_page(page, path)
    cuda = server_devices(page)["cuda"]
    if cuda["available"]:
        pytest.skip("cuda is available here: nothing to disable")
    option = page.get_by_test_id("device").locator("option[value='cuda']")
    expect(option).to_be_disabled()
    expect(option).to_have_attribute("title", "GPU: not available on this server")
    note = page.get_by_test_id("device-note")
    expect(note).to_be_visible()
    expect(note).to_have_text("GPU: not available on this server")
    # The operator's install hint stays in the API's `reason`, never in front of a learner.
    reason = str(cuda["reason"])
    assert reason
    expect(page.locator("body")).not_to_contain_text(reason)


def test_playground_run_reports_cpu(page: Page) -> None:
    sent: list[dict[str, Any]] = []  # the run messages the page sends on its run sockets

    def opened(socket: Any) -> None:
        if socket.url.endswith("/api/v1/run/live"):
            socket.on(
                "framesent",
                lambda payload: (
                    sent.append(json.loads(payload)["request"])
                    if '"type":"run"' in str(payload)
                    else None
                ),
            )

    page.on("websocket", opened)
    page.goto("/")
    wait_ready(page)
    status = page.get_by_test_id("run-status")
    expect(status).to_have_text(re.compile(r"^Ran on cpu in \d+ ms$"))
    expect(status).to_have_attribute("data-device", "cpu")
    page.get_by_test_id("run").click()
    wait_ready(page, runs=2)
    assert sent and all(body.get("device") == "cpu" for body in sent), sent


def test_train_reports_cpu_and_sends_it(page: Page) -> None:
    traffic = record_train_traffic(page)  # the page trains over one live connection
    open_train(page)
    expect(page.get_by_test_id("train-device")).to_have_text("cpu")
    page.get_by_test_id("train-step-once").click()
    expect(page.get_by_test_id("train-step")).to_have_text("1")
    sent = traffic.requests()
    assert sent and all(body.get("device") == "cpu" for body in sent), sent


def test_playground_url_round_trip_device_cpu(page: Page) -> None:
    page.goto(program_url("(a*b)**2\n", b="a:2:g,b:3", device="cpu", seed="0"))
    wait_ready(page)
    expect(page.get_by_test_id("device")).to_have_value("cpu")
    expect(page.get_by_test_id("run-status")).to_contain_text("Ran on cpu")
    assert url_params(page)["device"] == ["cpu"]
    # The link the page writes reopens with the same device.
    link = page.url
    page.goto("about:blank")
    page.goto(link)
    wait_ready(page)
    expect(page.get_by_test_id("device")).to_have_value("cpu")
    assert url_params(page)["device"] == ["cpu"]


def test_train_url_round_trip_device_cpu(page: Page) -> None:
    open_train(page, "#data=xor&device=cpu")
    expect(page.get_by_test_id("device")).to_have_value("cpu")
    expect(page.get_by_test_id("train-device")).to_have_text("cpu")
    # cpu is the default, so the page's own link leaves it out and still means cpu.
    assert url_params(page).get("device", ["cpu"]) == ["cpu"]
    assert url_params(page)["data"] == ["xor"]


@pytest.mark.parametrize("path", PAGES)
def test_link_asking_for_unavailable_cuda_falls_back_to_cpu(page: Page, path: str) -> None:
    if server_devices(page)["cuda"]["available"]:
        pytest.skip("cuda is available here: no fallback")
    if path == "/train":
        open_train(page, "#device=cuda")
        expect(page.get_by_test_id("train-device")).to_have_text("cpu")
        assert "device" not in url_params(page)
    else:
        page.goto(program_url("x*x + 3*x\n", b="x:2:g", device="cuda"))
        wait_ready(page)
        expect(page.get_by_test_id("run-status")).to_contain_text("Ran on cpu")
        assert url_params(page)["device"] == ["cpu"]
    expect(page.get_by_test_id("device")).to_have_value("cpu")
    expect(page.get_by_test_id("device-note")).to_contain_text(
        "This link asked for cuda, which is unavailable here: using cpu."
    )
    expect(page.get_by_test_id("device-note")).to_have_class(re.compile(r"\bwarn\b"))


def test_selector_is_keyboard_reachable(page: Page) -> None:
    page.goto("/")
    wait_ready(page)
    select = page.get_by_test_id("device")
    page.get_by_test_id("run").focus()
    page.keyboard.press("Tab")
    expect(select).to_be_focused()
    # Arrow keys never land on the disabled cuda option.
    page.keyboard.press("ArrowDown")
    expect(select).to_have_value("cpu")
    assert select.get_attribute("aria-describedby") == "device-note"
