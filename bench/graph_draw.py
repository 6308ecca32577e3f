"""Run → first draw in the browser: the playground page in Debian's Chromium (headless, driven by
Playwright) against the real app on a loopback port, for passes of about 1,000 and 5,000 nodes.

Each round pastes the program, presses Run and waits until the graph is drawn (the page's
``data-state="ready"`` with a new ``data-run-count``) and painted (the next animation frame). The
page reports its drawing's phases on the graph SVG: ``data-build-ms`` (the hierarchy, the boxes
and their text), ``data-layout-ms`` (dagre, in the layout worker), ``data-place-ms`` (the boxes
put where the layout says) and ``data-render-ms`` (the whole draw of the pass). The table gives
medians: Run → painted (server included), Run → answer (the run status's "Ran … in N ms": the
server, the transfer and decoding), and the page's layout and draw times apart. Targets: ≤ 1 s for ~1,000 nodes, ≤ 3 s
for ~5,000. Then 40 steps of the backward walk (→) on the same pass: the median time a step takes
to show (≤ 150 ms) and the longest main-thread task meanwhile (≤ 200 ms).
``python -m bench.graph_draw`` or ``python -m bench --only draw``.
"""

from __future__ import annotations

import statistics
import sys
from typing import Any

from tests.e2e import test_big_graphs as big_graphs

#: A tanh RNN unrolled by hand: each iteration records 6 nodes (the select, 2 matmuls, 2 adds, tanh).
RNN_LOOP = """\
import torch
torch.manual_seed({seed})
Wx = torch.randn(3, 8, requires_grad=True)
Wh = torch.randn(8, 8, requires_grad=True) * 0.3
b = torch.zeros(8, requires_grad=True)
xs = torch.randn({steps}, 3)
h = torch.zeros(8)
for t in range({steps}):
    h = torch.tanh(xs[t] @ Wx + h @ Wh + b)
loss = (h ** 2).sum()
loss.backward()
"""

#: A chain of operations picked at random: no repetition to collapse (the unstructured case).
RANDOM_CHAIN = """\
import random
import torch
random.seed({seed})
x = torch.tensor(0.5, requires_grad=True)
h = x
for i in range({steps}):
    op = random.choice([torch.sin, torch.cos, torch.tanh, torch.sigmoid])
    h = op(h) * (1 + i % 3)
h.backward()
"""


def _seeded(source: str) -> str:
    """A program of the browser tests with its seed left for each round to fill in."""
    return source.replace("torch.manual_seed(0)", "torch.manual_seed({seed})")


#: (title, program, target seconds for Run → painted); each round fills in its own ``{seed}``, so
#: its numbers, box sizes and layout are new (the page keeps layouts it made: layout.ts). The
#: issue's three lesson-sized graphs first (tests/e2e/test_big_graphs.py checks how they look).
CASES: list[tuple[str, str, float]] = [
    ("MLP + 20-step RNNCell", _seeded(big_graphs.MLP_RNN), 1.0),
    ("tanh RNN unrolled 30 steps", _seeded(big_graphs.MANUAL_RNN), 1.0),
    ("LeNet-style CNN, forward and backward", _seeded(big_graphs.LENET), 1.0),
    ("tanh RNN, 170 steps (~1,000 nodes)", RNN_LOOP.replace("{steps}", "170"), 1.0),
    ("tanh RNN, 830 steps (~5,000 nodes)", RNN_LOOP.replace("{steps}", "830"), 3.0),
    (
        "random op chain, 330 steps (~1,000 nodes, nothing repeats)",
        RANDOM_CHAIN.replace("{steps}", "330"),
        1.0,
    ),
]

#: Clicks Run and resolves, after the next paint following the new drawing, with the times.
_RUN_AND_TIME = """
async (runs) => {
  const svg = document.querySelector('[data-testid=graph]');
  const started = performance.now();
  document.querySelector('[data-testid=run]').click();
  await new Promise((resolve) => {
    const check = () => {
      if (svg.dataset.state === 'ready' && Number(svg.dataset.runCount || 0) > runs) resolve(null);
      else requestAnimationFrame(check);
    };
    check();
  });
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
  const d = svg.dataset;
  const answered = /in (\\d+) ms/.exec(document.querySelector('[data-testid=run-status]').textContent);
  return {
    total_ms: performance.now() - started,
    server_ms: answered ? Number(answered[1]) : NaN,
    build_ms: Number(d.buildMs), layout_ms: Number(d.layoutMs), place_ms: Number(d.placeMs),
    render_ms: Number(d.renderMs), worker_ms: Number(d.layoutWorkerMs), nodes: Number(d.nodeCount), boxes: Number(d.boxCount),
    runs: Number(d.runCount),
  };
}
"""


#: Presses → `steps` times; for each press, the time until the walk shows the next step (its
#: counter moved and the drawing is ready, the next frame painted), and the longest main-thread
#: task seen meanwhile (Long Tasks API).
_STEP_AND_TIME = """
async (steps) => {
  const svg = document.querySelector('[data-testid=graph]');
  const counter = document.querySelector('[data-testid=walk-position]');
  const longest = [0];
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) longest[0] = Math.max(longest[0], entry.duration);
  });
  observer.observe({ type: 'longtask' });
  svg.focus();
  const times = [];
  for (let i = 0; i < steps; i++) {
    const before = counter.textContent;
    const [at, total] = before.split('/').map((part) => Number(part.trim()));
    if (at >= total) break; // the walk's end: a pass shorter than `steps` (LeNet's)
    const started = performance.now();
    svg.dispatchEvent(new KeyboardEvent('keydown', { key: 'ArrowRight', bubbles: true }));
    await new Promise((resolve) => {
      const check = () => {
        if (counter.textContent !== before && svg.dataset.state === 'ready') resolve(null);
        else requestAnimationFrame(check);
      };
      check();
    });
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
    times.push(performance.now() - started);
  }
  await new Promise((resolve) => setTimeout(resolve, 50));
  observer.disconnect();
  return { times, longest_task_ms: longest[0] };
}
"""


def _paste(page: Any, source: str) -> None:
    """Replace the editor's text the way a paste does (tests/e2e/test_playground.py)."""
    editor = page.get_by_test_id("editor")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.press("Delete")
    page.keyboard.insert_text(source)


def measure(rounds: int = 5) -> list[dict[str, Any]]:
    """Medians of `rounds` runs of each case (after one warm-up run each)."""
    from playwright.sync_api import sync_playwright

    from tests.e2e.live_server import CHROMIUM_LAUNCH_ARGS, live_server

    rows: list[dict[str, Any]] = []
    with live_server() as url, sync_playwright() as playwright:
        browser = playwright.chromium.launch(**CHROMIUM_LAUNCH_ARGS)
        page = browser.new_page(viewport={"width": 1366, "height": 768})
        page.goto(url + "/")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=graph]').dataset.state === 'ready'"
        )
        for title, source, target in CASES:
            samples: list[dict[str, Any]] = []
            for round_index in range(rounds + 1):
                _paste(page, source.replace("{seed}", str(round_index)))
                runs = int(page.get_by_test_id("graph").get_attribute("data-run-count") or 0)
                sample = page.evaluate(_RUN_AND_TIME, runs)
                if round_index > 0:  # the first run warms the server's worker and the page up
                    samples.append(sample)
            med = {
                key: statistics.median(s[key] for s in samples)
                for key in (
                    "total_ms",
                    "server_ms",
                    "build_ms",
                    "layout_ms",
                    "worker_ms",
                    "place_ms",
                    "render_ms",
                )
            }
            # Then the walk: 40 steps from the opening one (into the loop's last iterations).
            page.get_by_test_id("graph").focus()
            page.keyboard.press("Home")
            page.keyboard.press("ArrowRight")
            stepping = page.evaluate(_STEP_AND_TIME, 40)
            med["step_ms"] = statistics.median(stepping["times"])
            med["step_max_ms"] = max(stepping["times"])
            med["longest_task_ms"] = stepping["longest_task_ms"]
            rows.append(
                {
                    "title": title,
                    "target_s": target,
                    "nodes": samples[-1]["nodes"],
                    "boxes": samples[-1]["boxes"],
                    **med,
                }
            )
        browser.close()
    return rows


def main() -> None:
    rows = measure()
    print(
        "| pass | nodes (boxes drawn) | Run → painted (target) | Run → answer | page: build | layout: wait (dagre in the worker) "
        "| place | page draw in all |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        mark = "✓" if r["total_ms"] <= 1000 * r["target_s"] else "✗"
        print(
            f"| {r['title']} | {r['nodes']} ({r['boxes']}) "
            f"| {r['total_ms']:.0f} ms (≤ {r['target_s']:.0f} s) {mark} | {r['server_ms']:.0f} ms "
            f"| {r['build_ms']:.0f} ms | {r['layout_ms']:.0f} ms ({r['worker_ms']:.0f} ms) "
            f"| {r['place_ms']:.0f} ms "
            f"| {r['render_ms']:.0f} ms |"
        )
    print()
    print(
        "| pass | → step, median (target ≤ 150 ms) | slowest step | longest main-thread task while stepping (≤ 200 ms) |"
    )
    print("|---|---|---|---|")
    for r in rows:
        mark = "✓" if r["step_ms"] <= 150 else "✗"
        task = "✓" if r["longest_task_ms"] <= 200 else "✗"
        print(
            f"| {r['title']} | {r['step_ms']:.0f} ms {mark} | {r['step_max_ms']:.0f} ms "
            f"| {r['longest_task_ms']:.0f} ms {task} |"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
