/** One run in flight, the latest waiting one wins, busy servers are waited out politely. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { BusyError, parseRetryAfter, retryDelayS, Runner } from "../src/runner";

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

test("requests made while one is in flight coalesce: the latest is sent next", async () => {
  const t = transport();
  const results: string[] = [];
  const runner = new Runner<string, string>({ send: t.send, onResult: (r) => results.push(r), onError: (e) => assert.fail(String(e)), onBusy: () => {} });
  runner.submit("a");
  runner.submit("b");
  runner.submit("c");
  assert.deepEqual(t.sent, ["a"]);
  assert.ok(runner.pending);
  t.waiting.shift()?.resolve("A");
  await tick();
  assert.deepEqual(t.sent, ["a", "c"]);
  t.waiting.shift()?.resolve("C");
  await tick();
  assert.deepEqual(results, ["A", "C"]);
  assert.ok(!runner.busy && !runner.pending);
});

test("a busy answer is retried after Retry-After plus jitter, counting down, with the latest request", async () => {
  const t = transport();
  const slept: number[] = [];
  const busy: number[] = [];
  const results: string[] = [];
  const runner = new Runner<string, string>({
    send: t.send,
    onResult: (r) => results.push(r),
    onError: (e) => assert.fail(String(e)),
    onBusy: (s) => busy.push(s),
    sleep: async (ms) => {
      slept.push(ms);
    },
    random: () => 0.5,
  });
  runner.submit("a");
  runner.submit("b");
  t.waiting.shift()?.reject(new BusyError(503, 2));
  for (let i = 0; i < 10; i++) await tick();
  // 2 s x (1 + 0.3 x 0.5) = 2.3 s, in steps of at most a second.
  assert.deepEqual(slept.map(Math.round), [1000, 1000, 300]);
  assert.deepEqual(busy, [3, 2, 1, 0]);
  assert.deepEqual(t.sent, ["a", "b"]);
  t.waiting.shift()?.resolve("B");
  await tick();
  assert.deepEqual(results, ["B"]);
});

test("other failures are reported and the queue goes on", async () => {
  const t = transport();
  const errors: unknown[] = [];
  const runner = new Runner<string, string>({ send: t.send, onResult: () => {}, onError: (e) => errors.push(e), onBusy: () => {} });
  runner.submit("a");
  t.waiting.shift()?.reject(new Error("offline"));
  await tick();
  assert.equal(errors.length, 1);
  runner.submit("b");
  assert.deepEqual(t.sent, ["a", "b"]);
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
