/** The layout memo: a request asked again gets the layout made for it, as a copy of its own. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { LayoutMemo, type LayoutResult } from "../src/graph/layout";

function result(width: number): LayoutResult {
  return {
    rankdir: "BT",
    arrangement: "BT",
    nodes: { n0: { x: 10, y: 20, width, height: 30 } },
    frames: {},
    edges: [[{ x: 0, y: 0 }, { x: 1, y: 1 }]],
    labels: [null],
    width,
    height: 30,
  };
}

test("a request asked again gets its layout, each caller its own copy", () => {
  const memo = new LayoutMemo();
  assert.equal(memo.get("a"), undefined);
  const made = result(40);
  memo.set("a", made);
  made.nodes.n0.x = 999; // the maker's object is not the kept one
  const first = memo.get("a");
  assert.deepEqual(first, result(40));
  if (!first) throw new Error("kept");
  first.nodes.n0.x = -1; // a caller that moves boxes does not move the kept ones
  first.edges[0].push({ x: 5, y: 5 });
  assert.deepEqual(memo.get("a"), result(40));
});

test("the least recently used layouts go first", () => {
  const memo = new LayoutMemo(2);
  memo.set("a", result(1));
  memo.set("b", result(2));
  assert.ok(memo.get("a")); // a is now more recent than b
  memo.set("c", result(3));
  assert.equal(memo.get("b"), undefined);
  assert.deepEqual(memo.get("a"), result(1));
  assert.deepEqual(memo.get("c"), result(3));
  memo.set("c", result(4)); // made again: replaced, not duplicated
  assert.deepEqual(memo.get("c"), result(4));
  assert.deepEqual(memo.get("a"), result(1));
});
