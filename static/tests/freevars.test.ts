/** An expression's inputs: its unknown names, never a function it calls or a known name. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { freeVariables, isExpression, KNOWN_NAMES } from "../src/freevars";

test("the table's functions, torch, F and nn are known: only the other names are inputs", () => {
  assert.deepEqual(freeVariables("tanh(w*x + b)"), ["w", "x", "b"]);
  assert.deepEqual(freeVariables("exp(-x)*sin(x)"), ["x"]);
  assert.deepEqual(freeVariables("relu(x) + sigmoid(y)"), ["x", "y"]);
  assert.deepEqual(freeVariables("log(x) + sqrt(y)"), ["x", "y"]);
  assert.deepEqual(freeVariables("torch.tanh(w*x + b)"), ["w", "x", "b"]);
  assert.deepEqual(freeVariables("F.relu(x) + nn.functional.gelu(y)"), ["x", "y"]);
  assert.ok(KNOWN_NAMES.includes("tanh") && KNOWN_NAMES.includes("torch"));
});

test("a name called is a function, not a number to slide", () => {
  assert.deepEqual(freeVariables("myfn(x) * y"), ["x", "y"]);
  assert.deepEqual(freeVariables("abs(x - y) + max(x, y)"), ["x", "y"]);
  assert.ok(isExpression("tanh(w*x + b)"));
  assert.ok(!isExpression("y = tanh(x)"));
});
