/** Busy servers are waited out politely: Retry-After read, jitter added, the latest request sent. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RunController } from "../src/run/controller";
import { BusyError, parseRetryAfter, retryDelayS } from "../src/api/retry-after";

/** A transport whose answers the test releases one by one. */
function transport() {
  const sent: string[] = [];
  const waiting: { resolve: (v: string) => void; reject: (e: unknown) => void }[] = [];
  const send = (request: string) =>
    new Promise<string>((resolve, reject) => {
      sent.push(request);
      waiting.push({ resolve, reject });
    });
  return { sent, waiting, send };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

test("a busy answer is retried after Retry-After plus jitter, counting down", async () => {
  const t = transport();
  const slept: number[] = [];
  const busy: number[] = [];
  const results: string[] = [];
  const runs = new RunController<string, string>({
    send: t.send,
    onResult: (r) => results.push(r),
    onError: (e) => assert.fail(String(e)),
    onBusy: (s) => busy.push(s),
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => 0.5,
  });
  runs.submit("a");
  t.waiting.shift()?.reject(new BusyError(503, 2));
  for (let i = 0; i < 10; i++) await tick();
  // 2 s x (1 + 0.3 x 0.5) = 2.3 s, in steps of at most a second, then the request again.
  // (A request made during the wait replaces the waiting one: run-controller.test.ts.)
  assert.deepEqual(slept.map(Math.round), [1000, 1000, 300]);
  assert.deepEqual(busy, [3, 2, 1, 0]);
  assert.deepEqual(t.sent, ["a", "a"]);
  t.waiting.shift()?.resolve("A");
  await tick();
  assert.deepEqual(results, ["A"]);
  assert.ok(!runs.running);
});

test("Retry-After in seconds or as a date; a bounded wait", () => {
  assert.equal(parseRetryAfter("3"), 3);
  assert.equal(parseRetryAfter(null), null);
  assert.equal(parseRetryAfter("soon"), null);
  assert.equal(parseRetryAfter(new Date(10_000).toUTCString(), 4_000), 6);
  assert.equal(retryDelayS(null, () => 0), 2);
  assert.equal(retryDelayS(3600, () => 0), 60);
  assert.ok(retryDelayS(1, () => 1) <= 1.3 + 1e-9);
});
