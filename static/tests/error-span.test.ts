/** The characters an error marks in its line. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { errorSpan } from "../src/editor/error-span";
import { passLabel } from "../src/common/format";

test("the name at the column, or up to the end column when the server gives it", () => {
  assert.deepEqual(errorSpan("b = a * undefined_name", 9, null), [8, 22]);
  assert.deepEqual(errorSpan("y = x @ w", 5, 10), [4, 9]);
  assert.deepEqual(errorSpan("y = x @ w", 7, null), [6, 7]);
  assert.equal(errorSpan("y", 5, null), null);
});

test("passes are labelled with their index in the program and how many were kept", () => {
  assert.equal(passLabel(209, 210, 20), "pass 210 of 210 (20 kept)");
  assert.equal(passLabel(0, 3, 3), "pass 1 of 3");
});
