/** The divergence watch trips on every path a diverging run takes, and not on a workable one. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { DIVERGENCE, DivergenceWatch } from "../src/train/divergence";

/** Feed losses; the row at which it tripped and how, or null. */
function feed(watch: DivergenceWatch, losses: number[]): { row: number; verdict: string } | null {
  for (let i = 0; i < losses.length; i++) {
    const verdict = watch.observe(losses[i] ?? 0);
    if (verdict) return { row: i, verdict };
  }
  return null;
}

/** A loss swinging between 3 and 49 (the circles at learning rate 10). */
const swinging = (n: number): number[] => Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 49 : i % 3 === 1 ? 3 : 17));

test("a rate set mid-run, first seen at a peak: the swinging loss trips within a window", () => {
  const watch = new DivergenceWatch();
  feed(watch, [0.69, 0.5, 0.3, 0.2]);
  watch.reset(); // the rate changed: the watch starts over, and the first loss it sees is 49
  const tripped = feed(watch, swinging(200));
  assert.ok(tripped, "never warned");
  assert.equal(tripped.verdict, "thrashing");
  assert.ok(tripped.row < DIVERGENCE.window, `warned only at row ${tripped.row}`);
});

test("a rate too high from the first step grows tenfold and trips at once", () => {
  const watch = new DivergenceWatch();
  assert.deepEqual(feed(watch, [0.69, 0.6, 8.7, 18]), { row: 2, verdict: "growing" });
});

test("a workable rate's single spike, and ordinary learning, never trip", () => {
  const spike = new DivergenceWatch();
  const learning = Array.from({ length: 300 }, (_, i) => 0.7 * Math.exp(-i / 60) + 0.02);
  assert.equal(feed(spike, [0.7, 5, 2.5, 1.2, 0.6, ...learning]), null);
  const three = new DivergenceWatch();
  three.classes = 3; // guessing scores ln 3 = 1.1: a slow start at 1.6 is no alarm
  assert.equal(feed(three, [...Array(40).fill(1.6), ...learning]), null);
});

test("NaN weights trip at once", () => {
  const watch = new DivergenceWatch();
  assert.deepEqual(feed(watch, [0.69, Number.NaN]), { row: 1, verdict: "nan" });
});
