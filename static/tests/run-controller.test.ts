/** Stop and runs that replace each other; the run stream read from chunks cut anywhere. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { RunController } from "../src/run/controller";
import { handleStreamEvent, LineSplitter, readRunStream, RunRefusedError, StreamCutError } from "../src/api/run-stream";
import { BusyError } from "../src/api/retry-after";

/** A transport whose runs the test ends one by one; aborting one rejects it as fetch does. */
function transport() {
  const sent: string[] = [];
  const aborted: string[] = [];
  const runs: { request: string; resolve: (v: string) => void; reject: (e: unknown) => void; print: (t: string) => void }[] = [];
  const send = (request: string, signal: AbortSignal, output: (text: string, ms: number) => void) =>
    new Promise<string>((resolve, reject) => {
      sent.push(request);
      signal.addEventListener("abort", () => {
        aborted.push(request);
        reject(new DOMException("aborted", "AbortError"));
      });
      runs.push({ request, resolve, reject, print: (t) => output(t, 1) });
    });
  return { sent, aborted, runs, send };
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 0));

function controller(t: ReturnType<typeof transport>, log: string[], extra: Partial<ConstructorParameters<typeof RunController<string, string>>[0]> = {}) {
  return new RunController<string, string>({
    send: t.send,
    onStart: (r) => log.push(`start ${r}`),
    onOutput: (text, _ms, r) => log.push(`out ${r} ${text}`),
    onResult: (res, r) => log.push(`result ${r} ${res}`),
    onError: (e, r) => log.push(`error ${r} ${String(e)}`),
    onStopped: (r) => log.push(`stopped ${r}`),
    ...extra,
  });
}

test("a new run ends the one in flight instead of waiting behind it", async () => {
  const t = transport();
  const log: string[] = [];
  const runs = controller(t, log);
  runs.submit("loop");
  t.runs[0]?.print("tick");
  runs.submit("fix");
  assert.deepEqual(t.sent, ["loop", "fix"]);
  assert.deepEqual(t.aborted, ["loop"]);
  t.runs[0]?.print("late"); // an old run's output is not shown
  t.runs[1]?.resolve("ok");
  await tick();
  assert.deepEqual(log, ["start loop", "out loop tick", "start fix", "result fix ok"]);
  assert.ok(!runs.running);
});

test("Stop aborts the run in flight; its answer never arrives and Stop says so once", async () => {
  const t = transport();
  const log: string[] = [];
  const runs = controller(t, log);
  runs.submit("loop");
  assert.ok(runs.running);
  assert.ok(runs.stop());
  assert.ok(!runs.running);
  assert.ok(!runs.stop()); // nothing left to stop
  await tick();
  assert.deepEqual(t.aborted, ["loop"]);
  assert.deepEqual(log, ["start loop", "stopped loop"]);
  runs.submit("next");
  t.runs[1]?.resolve("ok");
  await tick();
  assert.deepEqual(log.slice(2), ["start next", "result next ok"]);
});

test("errors other than busy are reported; a busy answer is waited out, then the latest request goes", async () => {
  const t = transport();
  const log: string[] = [];
  const busy: number[] = [];
  let wake: () => void = () => {};
  const runs = controller(t, log, {
    onBusy: (s) => busy.push(s),
    random: () => 0,
    sleep: () => new Promise<void>((resolve) => (wake = resolve)),
  });
  runs.submit("a");
  t.runs[0]?.reject(new BusyError(503, 2));
  await tick();
  assert.deepEqual(busy, [2]);
  runs.submit("b"); // waits with the countdown instead of hitting the busy server now
  assert.deepEqual(t.sent, ["a"]);
  wake();
  await tick();
  wake();
  await tick();
  assert.deepEqual(busy, [2, 1, 0]);
  assert.deepEqual(t.sent, ["a", "b"]);
  t.runs[1]?.reject(new Error("broken"));
  await tick();
  assert.deepEqual(log.slice(-1), ["error b Error: broken"]);
});

test("Stop also ends a wait for a busy server", async () => {
  const t = transport();
  const log: string[] = [];
  let wake: () => void = () => {};
  const runs = controller(t, log, { random: () => 0, sleep: () => new Promise<void>((resolve) => (wake = resolve)) });
  runs.submit("a");
  t.runs[0]?.reject(new BusyError(503, 1));
  await tick();
  assert.ok(runs.running);
  assert.ok(runs.stop());
  wake();
  await tick();
  assert.deepEqual(t.sent, ["a"]);
  assert.deepEqual(log, ["start a", "stopped a"]);
});

/** A byte stream that delivers `text` in pieces cut at `cuts`. */
function chunked(text: string, cuts: number[]): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  const bounds = [0, ...cuts, bytes.length];
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (i >= bounds.length - 1) controller.close();
      else {
        controller.enqueue(bytes.slice(bounds[i], bounds[i + 1]));
        i += 1;
      }
    },
  });
}

const STREAM = [
  { event: "start", elapsed_ms: 0 },
  { event: "stdout", elapsed_ms: 3, text: "héllo\n" },
  { event: "progress", elapsed_ms: 500 },
  { event: "stdout", elapsed_ms: 700, text: "wörld\n" },
  { event: "result", elapsed_ms: 710, response: { ok: true, stdout: "héllo\nwörld\n" } },
]
  .map((e) => JSON.stringify(e))
  .join("\n");

test("the run stream is read the same however its bytes are cut (multi-byte characters too)", async () => {
  const length = new TextEncoder().encode(STREAM).length;
  for (let cut = 1; cut < length; cut += 7) {
    const out: string[] = [];
    const seen: number[] = [];
    const response = await readRunStream<{ stdout: string }>(chunked(STREAM, [cut, Math.min(length, cut + 3)]), {
      onOutput: (text) => out.push(text),
      onProgress: (ms) => seen.push(ms),
    });
    assert.equal(response.stdout, "héllo\nwörld\n");
    assert.deepEqual(out, ["héllo\n", "wörld\n"]);
    assert.deepEqual(seen, [0, 3, 500, 700, 710]);
  }
});

test("a stream cut before its result, or a busy event, is an error the controller understands", async () => {
  await assert.rejects(readRunStream(chunked('{"event":"start","elapsed_ms":0}\n', []), {}), StreamCutError);
  await assert.rejects(readRunStream(chunked('{"event":"busy","elapsed_ms":1,"retry_after_s":3}\n', []), {}), (e: unknown) => e instanceof BusyError && e.retryAfterS === 3);
});

test("lines split across chunks are joined; blank lines are skipped", () => {
  const lines = new LineSplitter();
  assert.deepEqual(lines.push('{"a":'), []);
  assert.deepEqual(lines.push('1}\n\n{"b"'), ['{"a":1}']);
  assert.deepEqual(lines.push(":2}"), []);
  assert.deepEqual(lines.end(), ['{"b":2}']);
});

/** A transport that can stop its runs softly: a soft stop is recorded, the answer still comes. */
function softTransport() {
  const base = transport();
  const softStops: string[] = [];
  const send = (request: string, signal: AbortSignal, output: (text: string, ms: number) => void, stoppable: (stop: () => void) => void) => {
    const running = base.send(request, signal, output);
    stoppable(() => softStops.push(request));
    return running;
  };
  return { ...base, softStops, send };
}

test("Stop asks a softly stoppable run to stop, and its answer (what it recorded) still comes", async () => {
  const t = softTransport();
  const log: string[] = [];
  const runs = controller(t as unknown as ReturnType<typeof transport>, log, { send: t.send, onStopping: (r) => log.push(`stopping ${r}`) });
  runs.submit("train");
  assert.ok(runs.stop());
  assert.deepEqual(t.softStops, ["train"]);
  assert.deepEqual(t.aborted, []); // not aborted: the answer is wanted
  assert.ok(runs.running && runs.stopping);
  t.runs[0]?.print("step 9"); // what it prints while stopping is still shown
  t.runs[0]?.resolve("kept 10 passes");
  await tick();
  assert.deepEqual(log, ["start train", "stopping train", "out train step 9", "result train kept 10 passes"]);
  assert.ok(!runs.running && !runs.stopping);
});

test("a second Stop while a run stops softly ends it at once, and no answer is shown", async () => {
  const t = softTransport();
  const log: string[] = [];
  const runs = controller(t as unknown as ReturnType<typeof transport>, log, { send: t.send, onStopping: (r) => log.push(`stopping ${r}`) });
  runs.submit("stuck");
  runs.stop();
  assert.ok(runs.stop());
  assert.deepEqual(t.aborted, ["stuck"]);
  t.runs[0]?.resolve("too late");
  await tick();
  assert.deepEqual(log, ["start stuck", "stopping stuck", "stopped stuck"]);
  assert.ok(!runs.running);
  // The next run starts afresh: its Stop is soft again.
  runs.submit("next");
  runs.stop();
  assert.deepEqual(t.softStops, ["stuck", "next"]);
});

test("a socket's events: stopping is told, invalid is a refusal, result is the answer", () => {
  const told: string[] = [];
  const handlers = { onStopping: () => told.push("stopping"), onOutput: (text: string) => told.push(text) };
  assert.equal(handleStreamEvent({ event: "stdout", elapsed_ms: 1, text: "hi" }, handlers), undefined);
  assert.equal(handleStreamEvent({ event: "stopping", elapsed_ms: 2 }, handlers), undefined);
  assert.deepEqual(told, ["hi", "stopping"]);
  assert.throws(() => handleStreamEvent({ event: "invalid", elapsed_ms: 0, detail: [{ loc: ["source"] }] }, handlers), RunRefusedError);
  assert.throws(() => handleStreamEvent({ event: "busy", elapsed_ms: 0, retry_after_s: 2 }, handlers), BusyError);
  const response = { ok: true } as unknown as NonNullable<Parameters<typeof handleStreamEvent>[0]["response"]>;
  assert.equal(handleStreamEvent({ event: "result", elapsed_ms: 3, response }, handlers), response);
});
