/** The shared URL-state table (both pages): codecs, defaults left out, bad values ignored. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeSettings, DEFAULTS, encodeSettings, type TrainSettings } from "../src/train/state";
import { decodeHash, encodeHash, int, num, oneOf, type StateTable } from "../src/common/url-state";

interface Demo {
  n: number;
  x: number;
  mode: "a" | "b";
}
const TABLE: StateTable<Demo> = {
  n: { param: "n", codec: int(0, 10) },
  x: { param: "x", codec: num(-1, 1) },
  mode: { param: "m", codec: oneOf("a", "b") },
};
const D: Demo = { n: 1, x: 0, mode: "a" };

test("a table round-trips, and values out of range or of the wrong kind keep the default", () => {
  const state: Demo = { n: 7, x: -0.5, mode: "b" };
  assert.deepEqual(decodeHash(TABLE, `#${encodeHash(TABLE, state)}`, D), state);
  assert.deepEqual(decodeHash(TABLE, "#n=11&x=nan&m=c", D), D);
  assert.deepEqual(decodeHash(TABLE, "#n=3.5&x=2", D), D);
});

test("with defaults, settings equal to them are left out of the hash", () => {
  assert.equal(encodeHash(TABLE, { ...D, n: 2 }, D), "n=2");
  assert.equal(encodeHash(TABLE, D, D), "");
});

test("the train page's settings round-trip through the same machinery", () => {
  const settings: TrainSettings = {
    ...DEFAULTS,
    dataset: "xor",
    hidden: [],
    points: [[0.5, -0.25, 1]],
    lr: 0.1,
    optimizer: "sgd",
  };
  assert.deepEqual(decodeSettings(`#${encodeSettings(settings)}`), settings);
  assert.equal(encodeSettings(DEFAULTS), "");
  const decoded = decodeSettings("#hidden=0,300&lr=99&data=points");
  assert.deepEqual(decoded.hidden, DEFAULTS.hidden);
  assert.equal(decoded.lr, DEFAULTS.lr);
  assert.equal(decoded.dataset, "points");
  assert.notEqual(decodeSettings("").hidden, DEFAULTS.hidden, "a copy, not the defaults' array");
});
