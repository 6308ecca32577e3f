"""Measuring the drawn graph in the page: rendered text sizes, and what overlaps what."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import Page

#: Collects, in the page, every graph text's rendered font size (CSS px: its font size times the
#: screen scale) and bounding-box height, and the screen rectangles of node boxes, badges inside
#: them (+=, error here), gradient labels on edges and node texts.
MEASURE = """() => {
  const svg = document.querySelector('[data-testid=graph]');
  const rect = (el) => { const r = el.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; };
  const shown = (el) => getComputedStyle(el).display !== 'none' && el.textContent.trim() !== '';
  const texts = [...svg.querySelectorAll('[data-node-id] text, .flow-label text')].filter(shown);
  const owner = (el) => el.closest('[data-node-id]')?.dataset.nodeId ?? null;
  return {
    fontPx: texts.map((t) => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a),
    heights: texts.map((t) => t.getBoundingClientRect().height),
    boxes: [...svg.querySelectorAll('[data-node-id] > .node-box')].map((b) => [owner(b), rect(b)]),
    badges: [...svg.querySelectorAll('.node-badge, .error-tag')]
      .filter((b) => getComputedStyle(b).display !== 'none' && b.textContent.trim() !== '')
      .map((b) => [owner(b), rect(b.querySelector('rect'))]),
    labels: [...svg.querySelectorAll('.flow-label rect')].map(rect),
    nodeTexts: [...svg.querySelectorAll('[data-node-id] text')].filter(shown).map((t) => [owner(t), rect(t)]),
    pane: rect(svg),
  };
}"""

Rect = tuple[float, float, float, float]


def overlap(a: Rect, b: Rect, slack: float = 0.5) -> bool:
    """True when two rectangles share more than a hairline."""
    return min(a[2], b[2]) - max(a[0], b[0]) > slack and min(a[3], b[3]) - max(a[1], b[1]) > slack


def inside(inner: Rect, outer: Rect, slack: float = 1.0) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )


@dataclass
class Drawing:
    font_px: list[float]
    heights: list[float]
    boxes: list[tuple[str, Rect]]
    badges: list[tuple[str, Rect]]
    labels: list[Rect]
    node_texts: list[tuple[str, Rect]]
    pane: Rect

    @property
    def min_font_px(self) -> float:
        return min(self.font_px)

    def problems(self) -> list[str]:
        """Everything that overlaps or runs past its box, in words (empty when the drawing is clean)."""
        found: list[str] = []
        box_of = dict(self.boxes)
        for (a, ra), (b, rb) in itertools.combinations(self.boxes, 2):
            if overlap(ra, rb):
                found.append(f"boxes {a} and {b} overlap")
        for i, j in itertools.combinations(range(len(self.labels)), 2):
            if overlap(self.labels[i], self.labels[j]):
                found.append(f"edge labels {i} and {j} overlap")
        for i, label in enumerate(self.labels):
            found += [
                f"edge label {i} covers box {b}" for b, rb in self.boxes if overlap(label, rb)
            ]
        for owner, badge in self.badges:
            if not inside(badge, box_of[owner]):
                found.append(f"a badge of {owner} runs past its box")
            found += [
                f"a badge of {owner} covers box {b}"
                for b, rb in self.boxes
                if b != owner and overlap(badge, rb)
            ]
        for owner, text in self.node_texts:
            if not inside(text, box_of[owner]):
                found.append(f"text of {owner} runs past its box")
        return found


def measure(page: Page) -> Drawing:
    data: dict[str, Any] = page.evaluate(MEASURE)
    return Drawing(
        font_px=data["fontPx"],
        heights=data["heights"],
        boxes=[(o, tuple(r)) for o, r in data["boxes"]],
        badges=[(o, tuple(r)) for o, r in data["badges"]],
        labels=[tuple(r) for r in data["labels"]],
        node_texts=[(o, tuple(r)) for o, r in data["nodeTexts"]],
        pane=tuple(data["pane"]),
    )
