/** The player steps through a recorded sequence; a stale timer never moves a newer one. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Player } from "../src/walk/player";

test("steps are clamped to the walk and reported", () => {
  const player = new Player(10);
  const seen: number[] = [];
  player.onChange = (p) => seen.push(p);
  player.load(3, 3);
  player.next();
  player.prev();
  player.first();
  player.prev();
  player.last();
  assert.deepEqual(seen, [3, 2, 0, 3]);
});

test("play runs to the end and stops; loading a new walk cancels the old timer", async () => {
  const player = new Player(5);
  const seen: [number, boolean][] = [];
  player.onChange = (p, playing) => seen.push([p, playing]);
  player.load(2, 0);
  player.play();
  // Two 5 ms steps: wait for the stop (up to 2 s: a loaded machine runs timers late).
  for (let waited = 0; player.playing && waited < 2000; waited += 10) await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(player.current, 2);
  assert.ok(!player.playing);
  assert.deepEqual(seen[seen.length - 1], [2, false]);
  player.load(5, 0);
  player.play();
  player.load(1, 0); // the old walk's pending tick must not move this one
  await new Promise((resolve) => setTimeout(resolve, 30));
  assert.equal(player.current, 0);
});

test("the last position can be held longer before playing stops", async () => {
  const player = new Player(10, 4);
  const stops: number[] = [];
  const started = Date.now();
  player.load(1, 0);
  player.onChange = (_position, playing) => {
    if (!playing) stops.push(Date.now() - started);
  };
  player.play();
  await new Promise((resolve) => setTimeout(resolve, 120));
  // Step 1 at once, then it holds for 4 x 10 ms before stopping.
  assert.equal(stops.length, 1);
  assert.ok((stops[0] ?? 0) >= 38, String(stops[0]));
});
