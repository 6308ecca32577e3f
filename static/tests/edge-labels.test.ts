/** Gradient labels go in node-free bands and never over one another. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { bandSlot, crossingX, freeBands, spreadApart } from "../src/graph/edge-labels";
import { chooseLayout, fitScale } from "../src/graph/layout";

test("bands are the gaps between the boxes' vertical extents", () => {
  const boxes = [
    { x: 0, y: 0, width: 10, height: 20 }, // -10..10
    { x: 50, y: 5, width: 10, height: 20 }, // -5..15
    { x: 0, y: 60, width: 10, height: 20 }, // 50..70
  ];
  assert.deepEqual(freeBands(boxes), [{ top: 15, bottom: 50 }]);
});

test("a label sits on its edge in the band nearest the receiver", () => {
  const points = [{ x: 0, y: 100 }, { x: 40, y: 0 }];
  assert.equal(crossingX(points, 50), 20);
  const bands = [{ top: 15, bottom: 45 }, { top: 60, bottom: 90 }];
  assert.deepEqual(bandSlot(points, bands, 20, { x: 0, y: 100 }), { x: 0 + (40 * (100 - 75)) / 100, y: 75 });
  // Too narrow a band is skipped.
  assert.deepEqual(bandSlot(points, [{ top: 15, bottom: 45 }, { top: 60, bottom: 70 }], 20, { x: 0, y: 100 }), { x: 28, y: 30 });
  assert.equal(bandSlot(points, [], 20, { x: 0, y: 100 }), null);
});

test("labels on one row are pushed apart", () => {
  const labels = [{ x: 0, y: 10, width: 40 }, { x: 5, y: 10, width: 40 }, { x: 200, y: 30, width: 40 }];
  const xs = spreadApart(labels, 4);
  assert.ok((xs[1] ?? 0) - (xs[0] ?? 0) >= 44);
  assert.equal(xs[2], 200);
});

test("the layout that shows the graph biggest in the pane wins; ties keep the first", () => {
  const tall = { width: 300, height: 900 };
  const wide = { width: 900, height: 300 };
  assert.equal(chooseLayout([tall, wide], { width: 800, height: 600 }), wide);
  assert.equal(chooseLayout([tall, wide], { width: 400, height: 1200 }), tall);
  assert.equal(chooseLayout([{ width: 100, height: 100 }, { width: 102, height: 100 }], { width: 500, height: 500 }).width, 100);
  assert.equal(fitScale({ width: 100, height: 50 }, { width: 200, height: 200 }), 2);
});
