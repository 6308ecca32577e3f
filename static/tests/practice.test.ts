/** The page checks a typed gradient exactly as the server's practice module does. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { diagnose, matches, type PracticeAsk, significantDigits, splitTyped } from "../src/practice/answers";

interface Case {
  ask: PracticeAsk;
  typed: string[];
  expected: string;
}

const cases = JSON.parse(readFileSync("tests/unit/practice_cases.json", "utf8")) as Case[];

test("every typed answer of the shared table gets the server's diagnosis", () => {
  assert.ok(cases.length > 20);
  for (const c of cases) assert.equal(diagnose(c.typed, c.ask), c.expected, JSON.stringify(c.typed));
});

test("a typed number counts as far as its digits go", () => {
  assert.equal(significantDigits("-0.00963"), 3);
  assert.equal(significantDigits("−12"), 2);
  assert.equal(significantDigits("0.004000"), 4);
  assert.ok(matches("-0.00963", -0.009627));
  assert.ok(!matches("-0.0096", -0.009627));
  assert.ok(matches("−12", -12));
  assert.ok(!matches("1_000", 1000)); // only plain numbers
  assert.ok(!matches("", 0));
});

test("typed numbers are split on spaces, commas and brackets", () => {
  assert.deepEqual(splitTyped("[[1, -2], [0.5 3]]"), ["1", "-2", "0.5", "3"]);
  assert.deepEqual(splitTyped(" −12 "), ["−12"]);
});
