/** An expression's inputs: its unknown names, never a function it calls or a known name. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BINDING } from "../src/common/config";
import { freeVariables, isExpression, KNOWN_NAMES, startingValues } from "../src/playground/freevars";

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

test("new inputs start at distinct values, none that another input holds", () => {
  const start = (names: string[], bound: Record<string, number> = {}) => startingValues(names, bound, BINDING.defaults, BINDING.defaultValue);
  assert.deepEqual(start(freeVariables("(a+b)*(a-b)")), { a: 2, b: 3 });
  assert.deepEqual(start(["a", "b", "c"], { a: 3 }), { b: 2, c: 0.5 });
  const many = Object.values(start(["a", "b", "c", "d", "e", "f", "g", "h"]));
  assert.equal(new Set(many).size, many.length);
  assert.ok(!many.includes(0) && !many.includes(1));
  // no two defaults cancel in a sum or a difference
  for (const x of many) for (const y of many) if (x !== y) assert.ok(x + y !== 0 && x - y !== 0);
});

test("no name the server knows without an import is ever an input", () => {
  for (const known of KNOWN_NAMES) assert.deepEqual(freeVariables(`${known} + x`), ["x"], known);
});
