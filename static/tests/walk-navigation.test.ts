/** Where the walk opens and where a click on a node takes it. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openingPosition, positionForNode, positionsSendingTo, recordedStep } from "../src/walk/navigation";
import { fixture } from "./fixtures";

const graph = fixture("tiny_run.json").graph!;

test("a pass opens at its first backward step unless a link asks for another", () => {
  assert.equal(openingPosition(4, null), 1);
  assert.equal(openingPosition(0, null), 0);
  assert.equal(openingPosition(4, 3), 3);
  assert.equal(openingPosition(4, 9), 4);
  // the URL keeps every position but the opening one
  assert.equal(recordedStep(1, 4), null);
  assert.equal(recordedStep(4, 4), 4);
  assert.equal(recordedStep(0, 4), 0);
});

test("a click moves the walk to the step that sends the node its gradient", () => {
  // w (n0) receives from step 4 (w · x); the loss (n7) is the first step's own node
  assert.equal(positionForNode(graph, "n0", 1), 4);
  assert.equal(positionForNode(graph, "n7", 3), 1);
  // err (n6) receives twice from the same step: one position
  assert.deepEqual(positionsSendingTo(graph, "n6"), [1]);
  // x (n2) is a constant: nothing sends it a gradient, the walk stays
  assert.equal(positionForNode(graph, "n2", 2), null);
});

test("a node that receives from several steps: each click takes the next one", () => {
  const twice = {
    ...graph,
    walk: [
      { node: "a", grad_output: 1, formula: "", contributions: [{ to: "x", local: "1", grad: 1, accumulated_grad: 1 }] },
      { node: "b", grad_output: 1, formula: "", contributions: [{ to: "y", local: "1", grad: 1, accumulated_grad: 1 }] },
      { node: "c", grad_output: 1, formula: "", contributions: [{ to: "x", local: "1", grad: 1, accumulated_grad: 2 }] },
    ],
  };
  assert.equal(positionForNode(twice, "x", 0), 1);
  assert.equal(positionForNode(twice, "x", 1), 3);
  assert.equal(positionForNode(twice, "x", 3), 1);
  assert.equal(positionForNode(twice, "x", 2), 1);
});
