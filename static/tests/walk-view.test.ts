/** The walk view's decisions (walk/navigation.ts): which pass is shown, what is open, where the view looks. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collapsibleModules, stepModule } from "../src/graph/modules";
import type { Graph, RunResponse } from "../src/api/types";
import {
  choosePass,
  errorNodeIn,
  expansionAt,
  expansionKey,
  failedNode,
  focusNode,
  modulesAround,
  openingFocus,
  stepOverOffer,
  toggledAll,
  viewsOf,
} from "../src/walk/navigation";
import { fixture } from "./fixtures";

const tinyRun = fixture("tiny_run.json");
const tiny = tinyRun.graph!;
const mlp = fixture("mlp_modules_run.json").graph!;

/** A pass of the tiny graph numbered `index` (a copy: the views are told apart by identity). */
const pass = (index: number): Graph => ({ ...tiny, pass_index: index });

test("the pass picker offers each kept pass, and the graph a failed call left after them", () => {
  const passes = [pass(0), pass(1), pass(6)];
  const ok: RunResponse = { ...tinyRun, ok: true, passes, graph: passes[2]! };
  assert.deepEqual(viewsOf(ok), passes);
  const failedGraph: Graph = { ...tiny, pass_index: null };
  const failed: RunResponse = { ...tinyRun, ok: false, passes, graph: failedGraph, error: { type: "RuntimeError", message: "m", line: 3, col: 1, node: "n5" } };
  const choice = choosePass(failed, null);
  assert.equal(choice.views.length, 4);
  assert.deepEqual(choice.keys, [0, 1, 6, -1]); // passes by their index in the program, the failure by -1
  assert.equal(choice.failedLast, true);
  assert.equal(choice.graph, failedGraph); // nothing asked: the last
  assert.equal(choosePass(failed, 6).graph, passes[2]);
  assert.equal(choosePass(failed, -1).graph, failedGraph);
  assert.equal(choosePass(failed, 4).index, 3); // a pass not kept: the last
  // A failure before any backward: its graph alone; no response: nothing.
  assert.deepEqual(viewsOf({ ...failed, passes: [] }), [failedGraph]);
  assert.equal(choosePass({ ...failed, passes: [] }, null).failedLast, false);
  assert.deepEqual(choosePass(null, null), { views: [], keys: [], index: -1, failedLast: false, graph: null });
});

test("the error's node is marked in the graph it happened in, and fails the walk bar in any pass", () => {
  const passes = [pass(0)];
  const failedGraph: Graph = { ...tiny };
  const failed: RunResponse = { ...tinyRun, ok: false, passes, graph: failedGraph, error: { type: "RuntimeError", message: "m", line: 3, col: 1, node: "n5" } };
  assert.equal(errorNodeIn(failed, failedGraph), "n5");
  assert.equal(errorNodeIn(failed, passes[0]!), null); // another pass: not marked there
  assert.equal(failedNode(failed, passes[0]!)?.id, "n5");
  assert.equal(failedNode(tinyRun, tiny), undefined);
});

test("the module the walk is inside opens, unless a step over it is shown", () => {
  const modules = collapsibleModules(mlp);
  assert.ok(modules.size > 0);
  const inside = mlp.walk.findIndex((_, i) => stepModule(mlp, i + 1) !== null) + 1;
  assert.ok(inside > 0);
  const module = stepModule(mlp, inside)!;
  assert.ok(expansionAt(mlp, new Set(), inside, null).has(module));
  assert.equal(expansionAt(mlp, new Set(), inside, inside - 1).size, 0); // stepping over: shut
  assert.equal(expansionAt(mlp, new Set(), 0, null).size, 0); // before the walk
  assert.equal(expansionAt(mlp, new Set(), mlp.walk.length, null).size, 0); // at its end: the whole graph
  assert.deepEqual([...expansionAt(mlp, new Set(["x"]), 0, null)], ["x"]); // the user's stay open
  assert.equal(expansionKey(new Set(["b", "a"])), expansionKey(["a", "b"]));
  assert.notEqual(expansionKey(["a"]), expansionKey(["a", "b"]));
});

test("m opens every module, or shuts them all; a clicked node keeps its module open", () => {
  const all = toggledAll(mlp, new Set());
  assert.deepEqual([...all].sort(), [...collapsibleModules(mlp).keys()].sort());
  assert.equal(toggledAll(mlp, new Set(["model[0]"])).size, 0);
  const [id, group] = [...collapsibleModules(mlp)][0]!;
  assert.ok(modulesAround(mlp, group.members[0]!).includes(id));
  assert.deepEqual(modulesAround(tiny, "n0"), []);
});

test("step over is offered, with the module's name, only before a shut module's steps", () => {
  for (let position = 0; position < mlp.walk.length; position++) {
    const next = stepModule(mlp, position + 1);
    const offer = stepOverOffer(mlp, position, new Set());
    assert.equal(offer.offer, next !== null, `position ${position}`);
    if (next) {
      assert.equal(offer.name, mlp.modules!.find((m) => m.id === next)!.name);
      assert.equal(stepOverOffer(mlp, position, new Set([next])).offer, false); // open: no step over
    }
  }
  assert.deepEqual(stepOverOffer(tiny, 1, new Set()), { offer: false, name: null });
  assert.deepEqual(stepOverOffer(null, 0, new Set()), { offer: false, name: null });
});

test("the view opens around the current step, else the error's node, else the root", () => {
  assert.equal(openingFocus(tiny, 2, null), tiny.walk[1]!.node);
  assert.equal(openingFocus(tiny, tiny.walk.length, null), tiny.root); // the end: from the top
  assert.equal(openingFocus(tiny, 0, "n3"), "n3");
  const frame = { position: 2, total: 4, active: "n6" };
  assert.equal(focusNode(tiny, frame, false, null), "n6"); // inside the walk
  const end = { position: 4, total: 4, active: "n4" };
  assert.equal(focusNode(tiny, end, false, null), tiny.root); // a pass opened at its end
  assert.equal(focusNode(tiny, end, true, null), "n4"); // the user walked there
  assert.equal(focusNode(tiny, { position: 0, total: 4, active: null }, true, "n5"), "n5");
  assert.equal(focusNode(null, null, false, null), null);
});

