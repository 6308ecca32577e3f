/** The walk replayed from the recorded steps: one source of truth for every view. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { accumulationMarks, formulaLines, gradOwner, gradRowText, nodeRows, walkFrame } from "../src/graph/model";
import type { Graph } from "../src/api/types";
import { fixture } from "./fixtures";

const tiny = fixture("tiny_run.json").graph as Graph;

test("the walk's frames replay the recorded gradients, step by step", () => {
  const marks = accumulationMarks(tiny);
  const start = walkFrame(tiny, 0, marks);
  assert.equal(start.active, null);
  assert.equal(start.grads.size, 0);
  const first = walkFrame(tiny, 1, marks);
  assert.equal(first.active, "n7");
  assert.deepEqual(first.flows.map((f) => [f.to, f.grad, f.accumulated]), [["n6", -6, -6], ["n6", -6, -12]]);
  assert.equal(first.grads.get("n6"), -12);
  const end = walkFrame(tiny, tiny.walk.length, marks);
  assert.equal(end.grads.get("n0"), -24); // w
  assert.equal(end.grads.get("n1"), -12); // b
  assert.ok(end.done.has("n4"));
});

test("+= marks a receipt onto a gradient already there, and only that", () => {
  const marks = accumulationMarks(tiny);
  // err gets −6 twice from loss = err · err: the first is "=", the second "+=".
  assert.deepEqual(marks[0], [false, true]);
  assert.ok(marks.slice(1).every((step) => step.every((m) => !m)));
  // A leaf holding an earlier pass's gradient accumulates even on its first receipt this walk.
  const later: Graph = structuredClone(tiny);
  const last = later.walk[later.walk.length - 1]?.contributions[0];
  assert.ok(last);
  last.accumulated_grad = -48;
  const marks2 = accumulationMarks(later);
  assert.equal(marks2[marks2.length - 1]?.[0], true);
});

test("a step taken over several walk steps shows all their flows and lines", () => {
  const marks = accumulationMarks(tiny);
  const frame = walkFrame(tiny, 3, marks, 1);
  assert.deepEqual(frame.steps.map((s) => s.node), ["n6", "n5"]);
  assert.deepEqual(frame.flows.map((f) => f.to), ["n5", "n4", "n1"]);
  assert.deepEqual(frame.formulaLines, ["∂L/∂s = 1 · ∂L/∂err = 1 · (−12) = −12", "∂L/∂p = 1 · ∂L/∂s = −12; ∂L/∂b = 1 · ∂L/∂s = −12"]);
});

test("caption lines carry the page's number format", () => {
  const lines = formulaLines({ node: "n", grad_output: 1, contributions: [], formula: "∂L/∂w = 5.810e-04\n∂L/∂b += 1  → -36.70" });
  assert.deepEqual(lines, ["∂L/∂w = 5.81e−4", "∂L/∂b += 1  → −36.7"]);
});

test("node rows: names, labels from the source, failed operations", () => {
  const w = tiny.nodes[0];
  assert.ok(w);
  assert.deepEqual(nodeRows(w, tiny.root), { title: "w", subtitle: "leaf, requires grad", value: "= 0.5", note: null });
  const failed = { ...w, id: "e", name: null, label: "x @ w", op: "matmul", kind: "error" as const, operand_shapes: [[3, 2], [3, 2]] };
  const rows = nodeRows(failed, null);
  assert.equal(rows.title, "x @ w");
  assert.equal(rows.subtitle, "matmul failed here");
  assert.equal(rows.note, "operands (3, 2), (3, 2)");
  assert.equal(gradRowText(failed, undefined), "grad None");
  assert.equal(gradRowText(w, undefined), "grad ·");
  assert.equal(gradRowText(w, undefined, false), "grad None");
  assert.equal(gradRowText(w, -24), "grad −24");
});

test(".grad follows a name, an expression is bracketed first", () => {
  assert.equal(gradOwner("w"), "w");
  assert.equal(gradOwner("model.0.weight"), "model.0.weight");
  assert.equal(gradOwner("model[0](X)"), "model[0](X)");
  assert.equal(gradOwner("err * err"), "(err * err)");
  assert.equal(gradOwner("(w · x) + b"), "((w · x) + b)");
});
