/** The URL codecs: every shareable setting round-trips; bad values fall back to defaults. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeState, encodeState, type AppState } from "../src/playground/state";

const DEFAULTS: AppState = { source: "x", bindings: { w: { value: 1, requires_grad: true } }, device: "cpu", seed: 0, step: null, pass: null, compare: false, practice: false };

test("state round-trips through the hash", () => {
  const state: AppState = {
    source: "import torch\nw = torch.tensor(0.5)",
    bindings: { w: { value: 0.5, requires_grad: true }, x: { value: -2, requires_grad: false } },
    device: "cuda:1",
    seed: 7,
    step: 3,
    pass: -1,
    compare: true,
    practice: true,
  };
  assert.deepEqual(decodeState(`#${encodeState(state)}`, DEFAULTS), state);
});

test("a link without a program keeps the defaults; bad values are ignored", () => {
  assert.deepEqual(decodeState("", DEFAULTS), DEFAULTS);
  const decoded = decodeState("#src=y&device=tpu&step=two&seed=3&b=w:1:g,1bad:2,z:nan", DEFAULTS);
  assert.equal(decoded.device, "cpu");
  assert.equal(decoded.step, null);
  assert.equal(decoded.seed, 3);
  assert.deepEqual(decoded.bindings, { w: { value: 1, requires_grad: true } });
});
