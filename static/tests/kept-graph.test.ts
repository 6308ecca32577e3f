/** Graphs kept when a run fails before recording one; stale when the program changes; the splitter's bounds. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { GraphKeeper, hasGraph } from "../src/playground/kept-graph";
import { clampShare } from "../src/playground/splitter";
import type { RunResponse } from "../src/api/types";
import { fixture } from "./fixtures";

const good = fixture("tiny_run.json");
const failed = (type: string, line: number | null): RunResponse => ({
  ...good,
  ok: false,
  graph: null,
  passes: [],
  error: { type, message: "…", line, col: null },
});
const noGraph: RunResponse = { ...good, ok: true, graph: null, passes: [], error: null };

test("a failure before any graph keeps the last good one, and says why", () => {
  const keeper = new GraphKeeper();
  assert.equal(keeper.accept(good, "tiny"), good);
  assert.equal(keeper.note("tiny"), null);
  assert.equal(keeper.accept(failed("SyntaxError", 3), "tiny("), null);
  assert.equal(keeper.shown, good);
  assert.deepEqual(keeper.note("tiny("), { kind: "kept", text: "Last good run: the latest run stopped with SyntaxError (line 3)." });
  // A program that records no graph (NumPy only) keeps it too.
  assert.equal(keeper.accept(noGraph, "import numpy"), null);
  assert.equal(keeper.note("import numpy")?.kind, "kept");
  assert.match(keeper.note("import numpy")?.text ?? "", /recorded no graph/);
  // The next good run replaces it, unmarked.
  assert.equal(keeper.accept(good, "tiny"), good);
  assert.equal(keeper.note("tiny"), null);
});

test("Stop keeps the graph, marked; with nothing to keep there is no note", () => {
  const keeper = new GraphKeeper();
  keeper.stopped();
  assert.equal(keeper.note(""), null);
  const timeout = failed("TimeoutError", 2);
  assert.equal(keeper.accept(timeout, "loop"), timeout); // nothing to keep: the failure is shown
  assert.equal(keeper.note("loop"), null);
  keeper.accept(good, "tiny");
  keeper.stopped();
  assert.deepEqual(keeper.note("tiny"), { kind: "kept", text: "Last good run: the latest run was stopped." });
});

test("an edited program marks the graph stale until it runs again", () => {
  const keeper = new GraphKeeper();
  keeper.accept(good, "a = 1");
  assert.equal(keeper.note("a = 2")?.kind, "stale");
  assert.equal(keeper.note("a = 1"), null);
});

test("a graph left by a failed call is a graph: it is drawn, not kept", () => {
  const keeper = new GraphKeeper();
  keeper.accept(good, "tiny");
  const forwardError: RunResponse = { ...failed("RuntimeError", 4), graph: good.graph };
  assert.ok(hasGraph(forwardError));
  assert.equal(keeper.accept(forwardError, "tiny2"), forwardError);
  assert.equal(keeper.note("tiny2"), null);
});

test("the splitter stays within its shares and leaves both panes their minimum width", () => {
  assert.equal(clampShare(0.05, 1600), 0.2);
  assert.equal(clampShare(0.95, 1600), 0.7);
  assert.ok(Math.abs(clampShare(0.2, 1000) - 0.26) < 1e-12); // 260 px of 1000
  assert.ok(Math.abs(clampShare(0.7, 1000) - 0.68) < 1e-12); // leaves the graph 320 px
  assert.equal(clampShare(0.5, 0), 0.5);
});
