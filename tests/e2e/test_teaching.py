"""Walks and errors that teach (issue 15): errors keep the graph, passes say which they are,
modules collapse and the walk steps over them, the page backs off politely when the server is
busy, keys work anywhere but the editor, and the page passes axe-core with no CSP violation."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, WebSocketRoute, expect

from tests.e2e import contracts
from tests.e2e.programs import BACKWARD_TWICE, NAME_ERROR, TINY, accumulating_passes, program_url
from tests.e2e.test_playground import wait_ready

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]

#: 210 backward passes; the API keeps the first ones and the last.
LOOP_210 = accumulating_passes(210)


def test_forward_error_keeps_the_recorded_graph(page: Page) -> None:
    body = contracts.with_forward_error_graph(contracts.run_program(page, contracts.FORWARD_ERROR))
    contracts.serve(page, body)
    page.goto(program_url(contracts.FORWARD_ERROR))
    graph = wait_ready(page)
    error = page.get_by_test_id("error")
    expect(error).to_contain_text("line 4")
    expect(page.get_by_test_id("error-traceback")).to_contain_text('File "<program>", line 4')
    # Every recorded node is drawn, on screen; the failing op is marked with its operands' shapes.
    pane = graph.bounding_box()
    assert pane
    for node in body["graph"]["nodes"]:
        box = graph.locator(f'[data-node-id="{node["id"]}"]').bounding_box()
        assert box, node["id"]
        assert pane["x"] <= box["x"] and box["x"] + box["width"] <= pane["x"] + pane["width"]
        assert pane["y"] <= box["y"] and box["y"] + box["height"] <= pane["y"] + pane["height"]
    failed = graph.locator("[data-error-node=true]")
    expect(failed).to_have_class(re.compile(r"\bkind-error\b"))
    expect(failed).to_contain_text("error here")
    expect(failed).to_contain_text("operands (3, 2), (3, 2)")
    expect(page.get_by_test_id("error-node")).to_contain_text("x @ w")
    expect(page.get_by_test_id("walk-caption")).to_contain_text("stopped before backward()")
    # The editor marks line 4 from the error's column.
    expect(page.locator(".cm-error-line")).to_contain_text("y = x @ w")
    expect(page.locator("[data-testid=error-col]")).to_have_text(re.compile(r"^x"))


def test_autograd_error_after_a_good_pass_keeps_that_pass_to_replay(page: Page) -> None:
    failed = contracts.run_program(page, BACKWARD_TWICE)
    if not failed["passes"]:
        # The run API is to keep the pass that succeeded; until it does, add it (same program,
        # stopped before the second backward).
        first = contracts.run_program(page, BACKWARD_TWICE.rsplit("z.backward()", 1)[0])
        failed["passes"] = [{**first["graph"], "pass_index": 0}]
        failed["passes_total"] = 1
    contracts.serve(page, failed)
    page.goto(program_url(BACKWARD_TWICE))
    wait_ready(page)
    picker = page.get_by_test_id("pass-select")
    expect(picker).to_be_visible()
    expect(picker.locator("option")).to_have_text(["pass 1 of 1", "where it failed"])
    # Shown first: where it failed, the freed node marked, nothing to walk.
    expect(page.locator("[data-testid=graph] [data-error-node=true]")).to_have_count(1)
    expect(page.get_by_test_id("walk-position")).to_have_text("0 / 0")
    picker.select_option("0")
    expect(page).to_have_url(re.compile(r"pass=0"))
    expect(page.locator("[data-testid=graph] [data-error-node=true]")).to_have_count(0)
    expect(page.get_by_test_id("walk-position")).not_to_have_text("0 / 0")
    page.get_by_test_id("walk-last").click()  # the pass opens at its first step: to its end
    expect(page.locator('[data-testid=graph] [data-node-name="x"]')).to_contain_text("grad [2, 4]")


def test_passes_say_their_index_and_how_many_were_kept(page: Page) -> None:
    contracts.serve(page, contracts.with_passes_total(contracts.run_program(page, LOOP_210)))
    page.goto(program_url(LOOP_210))
    wait_ready(page)
    picker = page.get_by_test_id("pass-select")
    options = picker.locator("option")
    expect(options.first).to_have_text(re.compile(r"^pass 1 of 210 \(\d+ kept\)$"))
    expect(options.last).to_have_text(re.compile(r"^pass 210 of 210 \(\d+ kept\)$"))
    expect(picker).to_have_value("209")  # the last pass, by its index in the program
    page.get_by_test_id("walk-last").click()  # the pass opens at its first step: to its end
    expect(page.locator('[data-testid=graph] [data-node-name="w"]')).to_contain_text("grad 3780")


def test_result_of_a_last_expression_is_shown(page: Page) -> None:
    source = "import torch\nx = torch.tensor(2.0, requires_grad=True)\nx * x + 1\n"
    body = contracts.run_program(page, source)
    body.setdefault("result", None)
    body["result"] = body["result"] or "tensor(5., grad_fn=<AddBackward0>)"
    contracts.serve(page, body)
    page.goto(program_url(source))
    wait_ready(page)
    expect(page.get_by_test_id("result")).to_be_visible()
    expect(page.get_by_test_id("result")).to_contain_text(body["result"])


def test_modules_collapse_expand_and_the_walk_steps_over_them(page: Page) -> None:
    contracts.serve(page, contracts.with_mlp_modules(contracts.run_program(page, contracts.MLP)))
    page.goto(program_url(contracts.MLP))
    graph = wait_ready(page)
    modules = graph.locator("[data-module-id]")
    expect(modules).to_have_count(3)
    expect(graph.locator('[data-module-id="model[0]"]')).to_contain_text("model[0]")
    expect(graph.locator('[data-node-name="model.0.weight"]')).to_have_count(0)
    # A click (or Enter) opens a module: its weight and bias come back inside a frame; a click on
    # the frame's title shuts it. (model[0] is below the fold at the legible size, which Fit
    # keeps: the click is sent to the box where it is.)
    graph.locator('[data-module-id="model[0]"]').dispatch_event("click")
    expect(graph.locator('[data-node-name="model.0.weight"]')).to_have_count(1)
    expect(graph.locator(".module-frame")).to_contain_text("model[0] · Linear")
    graph.locator('[data-frame-module="model[0]"]').dispatch_event("click")
    expect(graph.locator('[data-node-name="model.0.weight"]')).to_have_count(0)
    graph.locator('[data-module-id="model[2]"]').focus()
    page.keyboard.press("Enter")
    expect(graph.locator('[data-node-name="model.2.weight"]')).to_have_count(1)
    page.keyboard.press("m")  # every module shut again (one was open)
    expect(graph.locator("[data-module-id]")).to_have_count(3)
    # Stepping into model[4] opens it while the walk is inside, and shuts it after.
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("walk-over")).to_be_visible()
    page.keyboard.press("ArrowRight")
    expect(graph.locator('[data-node-name="model.4.weight"]')).to_have_count(1)
    expect(graph.locator("[data-walk-active=true]")).to_have_count(1)
    expect(graph.locator('[data-node-name="model.4.weight"]')).to_have_class(
        re.compile("receiving")
    )
    page.keyboard.press("ArrowRight")
    expect(graph.locator('[data-node-name="model.4.weight"]')).to_have_count(0)
    # Step over: the shut module is one step, its box the active one.
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("Shift+ArrowRight")
    active = graph.locator("[data-walk-active=true]")
    expect(active).to_have_attribute("data-module-id", "model[4]")
    expect(graph.locator('[data-node-name="model.4.weight"]')).to_have_count(0)
    expect(page.get_by_test_id("walk-contributions")).to_contain_text("model.4.weight.grad")
    page.keyboard.press("Shift+ArrowLeft")
    expect(page.get_by_test_id("walk-position")).to_have_text(re.compile(r"^1 / "))


def test_busy_server_is_waited_out_calmly_and_the_program_kept(page: Page) -> None:
    answered: list[int] = []

    def busy_once(socket: WebSocketRoute) -> None:
        if not answered:
            answered.append(503)
            # three seconds of "busy", as a saturated server closes a run's socket: the checks
            # below see it on a loaded machine too
            socket.close(code=1013, reason='{"retry_after": 3, "status": 503}')
        else:
            answered.append(200)
            socket.connect_to_server()

    page.route_web_socket("**/api/v1/run/live", busy_once)
    page.goto(program_url(TINY))
    status = page.get_by_test_id("run-status")
    busy = page.locator("[data-testid=run-status][data-state=busy]")  # the state and its words
    expect(busy).to_have_text(re.compile(r"busy: retrying in \d s"))  # seen together
    expect(page.get_by_test_id("error")).to_be_hidden()
    expect(page.get_by_test_id("editor")).to_contain_text("loss = err * err")
    wait_ready(page)
    expect(status).to_have_text(re.compile(r"^Ran on cpu"))
    assert answered == [503, 200]
    page.get_by_test_id("walk-last").click()  # the walk opens at its first step: to its end
    expect(page.locator('[data-testid=graph] [data-node-name="w"]')).to_contain_text("−24")


def test_a_newer_run_replaces_the_one_in_flight(page: Page) -> None:
    """Issue 20 (it was "one in flight, the latest waits"): a run asked for while one is in
    flight ends it (its socket is closed, which stops its program on the server) and is sent
    at once; only the latest run's answer is drawn."""
    page.goto(program_url(TINY))
    wait_ready(page)
    held: list[tuple[WebSocketRoute, str]] = []
    closed: list[int] = []

    def hold(socket: WebSocketRoute) -> None:
        number = len(held)
        socket.on_message(lambda message: held.append((socket, str(message))))
        socket.on_close(lambda code, reason: closed.append(number))

    page.route_web_socket("**/api/v1/run/live", hold)
    page.get_by_test_id("run").click()
    page.wait_for_function("() => document.querySelector('[data-testid=stop]').hidden === false")
    page.wait_for_timeout(300)
    assert len(held) == 1
    for seed in ("1", "2", "3"):
        page.evaluate(
            f"() => {{ location.hash = location.hash.replace(/seed=\\d+/, 'seed={seed}'); }}"
        )
        page.wait_for_timeout(100)
    page.wait_for_timeout(300)
    # Each new run was sent at once and ended (closed) the one before it.
    runs = [json.loads(message) for _, message in held]
    assert [r["request"].get("seed", 0) for r in runs] == [0, 1, 2, 3], runs
    assert sorted(closed) == [0, 1, 2], closed
    socket, message = held[-1]
    socket.connect_to_server().send(message)
    wait_ready(page, runs=2)
    expect(page.get_by_test_id("run-status")).to_have_text(re.compile(r"^Ran on cpu"))


def test_keys_work_anywhere_but_the_editor_and_are_listed(page: Page) -> None:
    page.goto(program_url(TINY))
    wait_ready(page)
    position = page.get_by_test_id("walk-position")
    _, total = position.inner_text().split(" / ")
    # Focus on the page, not the graph: the arrows still walk.
    page.get_by_test_id("walk-caption").click()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(position).to_have_text(f"1 / {total}")
    # In the editor, keys type: no step, no presentation mode.
    page.get_by_test_id("editor").click()
    page.keyboard.press("ArrowRight")
    page.keyboard.type("p")
    expect(position).to_have_text(f"1 / {total}")
    expect(page.locator("body")).not_to_have_class(re.compile("presenting"))
    page.keyboard.press("Control+z")
    # ? lists them.
    page.get_by_test_id("walk-caption").click()
    page.keyboard.press("?")
    dialog = page.get_by_test_id("shortcuts")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("Shift + →")
    expect(dialog).to_contain_text("step over a collapsed module")
    page.keyboard.press("Escape")
    expect(dialog).to_be_hidden()


def test_nodes_are_reachable_and_announced_by_keyboard(page: Page) -> None:
    page.goto(program_url(TINY))
    graph = wait_ready(page)
    graph.focus()
    page.keyboard.press("Tab")
    focused = page.locator("[data-testid=graph] [data-node-id]:focus")
    expect(focused).to_have_count(1)
    label = focused.get_attribute("aria-label") or ""
    assert "value" in label and "grad" in label, label
    first = focused.get_attribute("data-node-id")
    page.keyboard.press("ArrowDown")
    expect(page.locator("[data-testid=graph] [data-node-id]:focus")).not_to_have_attribute(
        "data-node-id", first or ""
    )
    page.keyboard.press("Enter")
    expect(page.get_by_test_id("details")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_test_id("details")).to_be_hidden()
    # The walk is announced: the caption is a live region whose text names the step and node.
    expect(page.get_by_test_id("walk-caption")).to_have_attribute("aria-live", "polite")
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    expect(page.get_by_test_id("walk-caption")).to_contain_text("Step 1 of")
    w = graph.locator('[data-node-name="w"]')
    page.keyboard.press("End")
    expect(w).to_have_attribute("aria-label", re.compile(r"grad −24"))


def axe_violations(page: Page) -> list[dict[str, Any]]:
    """Run axe-core (from node_modules) on the page and return its violations."""
    source = (ROOT / "node_modules" / "axe-core" / "axe.min.js").read_text(encoding="utf-8")
    page.add_script_tag(content=source)
    result: list[dict[str, Any]] = page.evaluate(
        "async () => (await axe.run(document)).violations.map((v) => ({ id: v.id, help: v.help,"
        " nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) }))"
    )
    return result


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_nothing_on_the_playground(browser: Browser, base_url: str, theme: str) -> None:
    """Zero axe-core violations on /, in both themes, walking and presented. axe is test code that
    sets inline styles itself, so it runs in a context that bypasses the CSP (the page's own CSP
    cleanliness is checked by every other test)."""
    context = browser.new_context(base_url=base_url, bypass_csp=True, color_scheme=theme)  # type: ignore[arg-type]
    page = context.new_page()
    try:
        page.goto(program_url(TINY, step="1"))
        wait_ready(page)
        assert axe_violations(page) == []
        page.locator('[data-testid=graph] [data-node-name="err"]').dispatch_event("click")
        expect(page.get_by_test_id("details")).to_be_visible()
        assert axe_violations(page) == []
        page.keyboard.press("Escape")
        page.keyboard.press("?")
        assert axe_violations(page) == []
        page.keyboard.press("Escape")
        page.keyboard.press("p")
        assert axe_violations(page) == []
        page.keyboard.press("Escape")
        page.goto(program_url(NAME_ERROR))
        wait_ready(page, runs=2)
        expect(page.get_by_test_id("error")).to_be_visible()
        assert axe_violations(page) == []
    finally:
        context.close()


def test_pasting_rich_text_into_the_editor_after_a_run_is_csp_clean(page: Page) -> None:
    """A paste of formatted text (from a web page) after a run: no CSP violation (the autouse
    fixture fails the test on any console error)."""
    page.goto(program_url(TINY))
    wait_ready(page)
    # Put formatted text on the clipboard from a page whose CSP allows inline styles (/docs).
    docs = page.context.new_page()
    docs.goto("/docs")
    docs.evaluate(
        """async () => {
          const html = '<span style="color:red;font-weight:bold">x</span> = <b style="margin:2px">3</b>';
          await navigator.clipboard.write([new ClipboardItem({
            'text/html': new Blob([html], { type: 'text/html' }),
            'text/plain': new Blob(['x = 3'], { type: 'text/plain' }) })]);
        }"""
    )
    docs.close()
    page.bring_to_front()
    editor = page.get_by_test_id("editor")
    editor.click()
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.press("Enter")
    page.keyboard.press("ControlOrMeta+v")
    expect(editor).to_contain_text("x = 3")
    page.get_by_test_id("run").click()
    wait_ready(page, runs=2)


def test_no_console_error_on_any_page(page: Page) -> None:
    """Each page loads and runs clean (the autouse fixture fails on any console error)."""
    sockets: list[str] = []
    page.on("websocket", lambda socket: sockets.append(socket.url))
    page.goto("/")
    wait_ready(page)
    page.goto("/train")
    page.wait_for_load_state("networkidle")
    page.goto("/docs")
    page.wait_for_load_state("networkidle")
    assert any(url.endswith("/api/v1/run/live") for url in sockets), sockets
