/** Modules collapse into one box; the walk can take a collapsed module as one step. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { collapsibleModules, displayGraph, leafModules, matchFlowEdges, moduleBoxId, stepModule, stepOverTarget } from "../src/graph/modules";
import type { Graph } from "../src/api/types";
import { fixture } from "./fixtures";

const mlp = fixture("mlp_modules_run.json").graph as Graph;
const tiny = fixture("tiny_run.json").graph as Graph;

test("each Linear's weight, bias and addmm belong to it; a ReLU alone does not collapse", () => {
  const owners = leafModules(mlp);
  const byName = new Map(mlp.nodes.map((n) => [n.name ?? n.id, n.id]));
  assert.equal(owners.get(byName.get("model.0.weight") ?? "")?.id, "model[0]");
  assert.equal(owners.get(byName.get("model.4.bias") ?? "")?.id, "model[4]");
  assert.equal(owners.get(byName.get("X") ?? ""), undefined); // the input stays outside
  assert.deepEqual([...collapsibleModules(mlp).keys()].sort(), ["model[0]", "model[2]", "model[4]"]);
});

test("collapsed, the MLP is a short chain of module boxes; expanded, its nodes come back", () => {
  const shut = displayGraph(mlp, new Set());
  assert.equal(shut.nodes.length, mlp.nodes.length - 6); // 3 modules x (weight, bias, addmm) -> 3 boxes
  const box = shut.nodes.find((n) => n.id === moduleBoxId("model[0]"));
  assert.ok(box?.collapsed);
  assert.equal(box.node.op, "linear"); // the box shows the module's output
  assert.deepEqual(box.params.map((p) => p.name).sort(), ["model.0.bias", "model.0.weight"]);
  assert.ok(shut.edges.every((e) => e.src !== e.dst));
  const open = displayGraph(mlp, new Set(["model[0]"]));
  assert.equal(open.nodes.length, shut.nodes.length + 2);
  assert.deepEqual(open.frames.map((f) => f.module?.id), ["model[0]"]);
  // A graph without modules draws every node as itself.
  assert.equal(displayGraph(tiny, new Set()).nodes.length, tiny.nodes.length);
});

test("flows go back along the edge they came: the right argument, inside a module none", () => {
  const display = displayGraph(tiny, new Set());
  const step = tiny.walk[0];
  assert.ok(step);
  const flows = step.contributions.map((c) => ({ from: step.node, to: c.to, arg: c.arg ?? null }));
  const edges = matchFlowEdges(display, flows);
  assert.equal(new Set(edges).size, 2); // err · err: two distinct edges
  const shut = displayGraph(mlp, new Set());
  const inner = mlp.walk.find((s) => stepModule(mlp, mlp.walk.indexOf(s) + 1) === "model[4]");
  assert.ok(inner);
  const weight = inner.contributions.find((c) => mlp.nodes.find((n) => n.id === c.to)?.name === "model.4.weight");
  assert.ok(weight);
  assert.deepEqual(matchFlowEdges(shut, [{ from: inner.node, to: weight.to, arg: weight.arg ?? null }]), [-1]);
});

test("stepping over a module takes its run of steps as one, forward and back", () => {
  const total = mlp.walk.length;
  for (let position = 0; position < total; position++) {
    const over = stepOverTarget(mlp, position, 1);
    assert.ok(over.position > position && over.position <= total);
    assert.equal(over.from, position);
    if (over.module) for (let p = position + 1; p <= over.position; p++) assert.equal(stepModule(mlp, p), over.module);
    const back = stepOverTarget(mlp, over.position, -1);
    assert.ok(back.position <= position, `back from ${over.position} lands at ${back.position}, not past ${position}`);
  }
  assert.equal(stepOverTarget(tiny, 1, 1).position, 2); // no modules: one step
});
