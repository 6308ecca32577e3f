/**
 * Where the gradient flowing back along an edge is written, so that it never covers a node: in a
 * top-to-bottom layout every rank gap is a band across the drawing with no node in it (dagre
 * spaces ranks by their tallest box), so a label placed on its edge inside such a band clears
 * every box; labels sharing a band are pushed apart sideways. (A left-to-right layout reserves
 * label room in dagre itself instead: its gaps are too narrow for text.) DOM-free.
 */
import type { Box, Point } from "./layout";

/** A horizontal band with no node in it: top < y < bottom. */
export interface Band {
  top: number;
  bottom: number;
}

/** The node-free bands between the vertical extents of `boxes` (centre-based boxes). */
export function freeBands(boxes: Box[]): Band[] {
  const spans = boxes.map((b) => [b.y - b.height / 2, b.y + b.height / 2] as const).sort((a, b) => a[0] - b[0]);
  const bands: Band[] = [];
  let bottom = -Infinity;
  for (const [top, end] of spans) {
    if (top > bottom && bottom > -Infinity) bands.push({ top: bottom, bottom: top });
    bottom = Math.max(bottom, end);
  }
  return bands;
}

/** The x where a polyline crosses height `y` (null when it does not). */
export function crossingX(points: Point[], y: number): number | null {
  for (let i = 0; i + 1 < points.length; i++) {
    const p = points[i];
    const q = points[i + 1];
    if (!p || !q) continue;
    if ((p.y - y) * (q.y - y) > 0) continue;
    if (p.y === q.y) return (p.x + q.x) / 2;
    return p.x + ((y - p.y) / (q.y - p.y)) * (q.x - p.x);
  }
  return null;
}

/**
 * The centre of an edge's label of height `height`: on the edge, in the free band nearest its
 * `near` end (the receiver of the gradient) that the edge crosses and that is tall enough.
 */
export function bandSlot(points: Point[], bands: Band[], height: number, near: Point): Point | null {
  const ys = points.map((p) => p.y);
  const lo = Math.min(...ys);
  const hi = Math.max(...ys);
  const usable = bands
    .filter((b) => b.bottom - b.top >= height + 2 && b.top >= lo - 1 && b.bottom <= hi + 1)
    .sort((a, b) => Math.abs((a.top + a.bottom) / 2 - near.y) - Math.abs((b.top + b.bottom) / 2 - near.y));
  for (const band of usable) {
    const y = (band.top + band.bottom) / 2;
    const x = crossingX(points, y);
    if (x !== null) return { x, y };
  }
  return null;
}

/**
 * Push labels on the same row apart so none overlaps another (`gap` between them); returns the
 * new centre x of each, in input order. Labels are `{x, y, width}` with centre coordinates.
 */
export function spreadApart(labels: { x: number; y: number; width: number }[], gap = 4): number[] {
  const xs = labels.map((l) => l.x);
  const rows = new Map<number, number[]>();
  labels.forEach((l, i) => {
    const key = Math.round(l.y);
    rows.set(key, [...(rows.get(key) ?? []), i]);
  });
  for (const members of rows.values()) {
    members.sort((a, b) => (xs[a] ?? 0) - (xs[b] ?? 0));
    // Sweep right, then centre the cluster back on its original mean so it stays on its edges.
    for (let k = 1; k < members.length; k++) {
      const prev = members[k - 1] ?? 0;
      const cur = members[k] ?? 0;
      const min = (xs[prev] ?? 0) + ((labels[prev]?.width ?? 0) + (labels[cur]?.width ?? 0)) / 2 + gap;
      if ((xs[cur] ?? 0) < min) xs[cur] = min;
    }
    const before = members.reduce((s, i) => s + (labels[i]?.x ?? 0), 0) / members.length;
    const after = members.reduce((s, i) => s + (xs[i] ?? 0), 0) / members.length;
    for (const i of members) xs[i] = (xs[i] ?? 0) - (after - before);
  }
  return xs;
}
