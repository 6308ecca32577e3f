/** Compare with PyTorch, as the page words it: the summary and the Value nodes' subtitles. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compareSummary, isValueGraph } from "../src/graph/pytorch-compare";
import { nodeRows } from "../src/graph/model";
import type { Graph } from "../src/api/types";
import { fixture } from "./fixtures";

const broken = fixture("value_broken_compare.json").graph as Graph;
const tiny = fixture("tiny_run.json").graph as Graph;

test("a Value graph says so; a tensor graph does not", () => {
  assert.equal(isValueGraph(broken), true);
  assert.equal(isValueGraph(tiny), false);
  assert.equal(isValueGraph(null), false);
});

test("the summary names the node that differs, with both gradients", () => {
  const text = compareSummary(broken);
  assert.ok(text?.startsWith("PyTorch's rules agree on 9 of 10 nodes; 1 differs: err (yours −6, PyTorch's −12)"), text ?? "null");
  assert.equal(compareSummary(tiny), null); // never compared
  assert.equal(compareSummary({ ...broken, compare: { skipped: "out of time" } }), "Not compared with PyTorch: out of time.");
});

test("a Value node reads 'your Value' and the program's op", () => {
  const loss = broken.nodes.find((n) => n.name === "loss");
  const w = broken.nodes.find((n) => n.name === "w");
  assert.ok(loss && w);
  assert.equal(nodeRows(loss, broken.root).subtitle, "your Value · *");
  assert.equal(nodeRows(w, broken.root).subtitle, "your Value");
});
