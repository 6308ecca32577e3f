"""Graph text is readable in every state: each text of a faded node (a constant, a node the
walk has not reached, a node the forward replay has not computed) has at least WCAG AA's 4.5:1
contrast against what is actually behind it (its box's fill and the pane, with every opacity
applied, from computed styles), in the light and dark themes and in presentation mode."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Browser, Page

from tests.e2e.programs import TINY, program_url
from tests.e2e.test_playground import wait_ready
from tests.e2e.test_teaching import axe_violations

pytestmark = pytest.mark.e2e

#: WCAG 2.x AA for normal text (node text is 12–13 px)
AA = 4.5

#: The contrast of each text of each faded node, as the browser paints it: the text's fill over
#: its box's fill over the first opaque background behind the SVG, every opacity (the element's
#: and its ancestors', `fill-opacity`) multiplied in.
MEASURE = """() => {
  const rgba = (css) => {
    const m = css.match(/rgba?\\(([^)]+)\\)/);
    if (!m) return null;
    const p = m[1].split(/[ ,/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const alpha = (el, prop) => {
    let a = Number(getComputedStyle(el)[prop] || 1);
    for (let e = el; e && e.tagName.toLowerCase() !== 'svg'; e = e.parentElement) {
      a *= Number(getComputedStyle(e).opacity);
    }
    return a;
  };
  const over = (top, a, below) => top.slice(0, 3).map((c, i) => c * a + below[i] * (1 - a));
  const lum = (rgb) => {
    const l = rgb.map((v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; });
    return 0.2126 * l[0] + 0.7152 * l[1] + 0.0722 * l[2];
  };
  const ratio = (a, b) => { const [h, l] = [lum(a), lum(b)].sort((x, y) => y - x); return (h + 0.05) / (l + 0.05); };
  const svg = document.querySelector('[data-testid=graph]');
  let page = [255, 255, 255];
  for (let e = svg; e; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c && c[3] > 0) { page = c.slice(0, 3); break; }
  }
  const out = [];
  for (const node of svg.querySelectorAll('.node')) {
    const faded = Number(getComputedStyle(node).opacity) < 1
      || [...node.querySelectorAll('.node-box')].some((b) => alpha(b, 'fillOpacity') < 1);
    if (!faded) continue;
    const box = node.querySelector('.node-box');
    const boxFill = rgba(getComputedStyle(box).fill) || [0, 0, 0, 0];
    const behind = over(boxFill, boxFill[3] * alpha(box, 'fillOpacity'), page);
    for (const text of node.querySelectorAll('text')) {
      if (text.closest('.node-badge, .error-tag, .compare-tag') || !text.textContent.trim()) continue;
      const fill = rgba(getComputedStyle(text).fill);
      const shown = over(fill, fill[3] * alpha(text, 'fillOpacity'), behind);
      out.push({ node: node.dataset.nodeName || node.dataset.nodeId, text: text.textContent,
                 ratio: Math.round(ratio(shown, behind) * 100) / 100 });
    }
  }
  return out;
}"""


def faded_text(page: Page) -> list[dict[str, Any]]:
    return page.evaluate(MEASURE)  # type: ignore[no-any-return]


def too_faint(page: Page) -> list[dict[str, Any]]:
    return [t for t in faded_text(page) if t["ratio"] < AA]


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_faded_nodes_text_has_aa_contrast(browser: Browser, base_url: str, theme: str) -> None:
    context = browser.new_context(base_url=base_url, color_scheme=theme)  # type: ignore[arg-type]
    page = context.new_page()
    try:
        page.goto(program_url(TINY, step="1"))  # early in the walk: most nodes not reached
        wait_ready(page)
        measured = faded_text(page)
        # the constant 2 and the nodes the walk has not reached yet are faded and measured
        assert len({t["node"] for t in measured}) >= 4, measured
        assert too_faint(page) == [], measured
        page.get_by_test_id("forward-play").click()  # the forward replay: pending nodes wait
        page.wait_for_selector('[data-testid=graph] .node[data-forward="pending"]')
        assert too_faint(page) == [], faded_text(page)
        page.keyboard.press("Escape")
        page.goto(program_url(TINY, step="1"))
        wait_ready(page)
        page.keyboard.press("p")  # presentation mode
        page.wait_for_selector("body.presenting")
        assert faded_text(page) and too_faint(page) == [], faded_text(page)
    finally:
        context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_axe_finds_nothing_on_the_train_page(browser: Browser, base_url: str, theme: str) -> None:
    """/train too (the playground's and the notebook's are in test_teaching and test_notebook);
    axe sets inline styles itself, so its context bypasses the CSP."""
    context = browser.new_context(base_url=base_url, bypass_csp=True, color_scheme=theme)  # type: ignore[arg-type]
    page = context.new_page()
    try:
        page.goto("/train")
        page.wait_for_function(
            "() => document.querySelector('[data-testid=boundary]').dataset.updates"
        )
        assert axe_violations(page) == []
    finally:
        context.close()
