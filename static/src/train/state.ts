/**
 * The train page's shareable settings: one row per setting in the table below (the shared
 * machinery, codecs and store are ../common/url-state.ts, as for the playground). A new URL-saved
 * control is one row here and one control in main.ts. DOM-free.
 */
import { DEVICE } from "../common/config";
import { decodeHash, encodeHash, int, matching, num, oneOf, type Codec, type StateTable, UrlStore } from "../common/url-state";
import type { Activation, DatasetName, OptimizerName, Point } from "./types";

export interface TrainSettings {
  /** A generated dataset, or "points" for the user's points alone. */
  dataset: DatasetName | "points";
  classes: number;
  samples: number;
  noise: number;
  split: number;
  dataSeed: number;
  points: Point[];
  hidden: number[];
  activation: Activation;
  optimizer: OptimizerName;
  lr: number;
  batch: number;
  seed: number;
  /** Training steps per server call (per screen update) while playing. */
  speed: number;
  /** Where the model trains: "cpu" or "cuda". */
  device: string;
}

export const DEFAULTS: TrainSettings = {
  dataset: "moons",
  classes: 2,
  samples: 200,
  noise: 0.1,
  split: 0.3,
  dataSeed: 0,
  points: [],
  hidden: [16, 16],
  activation: "tanh",
  optimizer: "adam",
  lr: 0.03,
  batch: 32,
  seed: 0,
  speed: 5,
  device: DEVICE.fallback,
};

/** Hidden widths as `16,16`; `0` means no hidden layer (logistic regression). */
const widths: Codec<number[]> = {
  encode: (v) => (v.length ? v.join(",") : "0"),
  decode: (t) => {
    if (t === "0") return [];
    const parts = t.split(",").map(Number);
    return parts.length <= 8 && parts.every((w) => Number.isInteger(w) && w >= 1 && w <= 256) ? parts : undefined;
  },
};
/** Points as `x:y:label;...` with 3 decimals: short enough for a link. */
const points: Codec<Point[]> = {
  encode: (v) => v.map(([x, y, l]) => `${x.toFixed(3)}:${y.toFixed(3)}:${l}`).join(";"),
  decode: (t) => {
    const out: Point[] = [];
    for (const part of t.split(";")) {
      const [x, y, l] = part.split(":").map(Number);
      if ([x, y, l].every(Number.isFinite) && Number.isInteger(l) && l! >= 0 && l! < 8) out.push([x!, y!, l!]);
    }
    return out;
  },
};

/** One row per shareable setting. */
const TABLE: StateTable<TrainSettings> = {
  dataset: { param: "data", codec: oneOf("moons", "circles", "xor", "linear", "spiral", "blobs", "points") },
  classes: { param: "classes", codec: int(2, 8) },
  samples: { param: "n", codec: int(4, 5000) },
  noise: { param: "noise", codec: num(0, 1) },
  split: { param: "split", codec: num(0, 0.9) },
  dataSeed: { param: "dseed", codec: int(0, 2 ** 32 - 1) },
  points: { param: "pts", codec: points },
  hidden: { param: "hidden", codec: widths },
  activation: { param: "act", codec: oneOf("tanh", "relu", "sigmoid") },
  optimizer: { param: "opt", codec: oneOf("sgd", "momentum", "adam") },
  lr: { param: "lr", codec: num(1e-7, 10) },
  batch: { param: "batch", codec: int(1, 7000) },
  seed: { param: "seed", codec: int(0, 2 ** 32 - 1) },
  speed: { param: "spu", codec: int(1, 100) },
  device: { param: "device", codec: matching(DEVICE.pattern) },
};

/** Settings from a hash (`#data=xor&lr=0.1`) on top of the defaults. */
export function decodeSettings(hash: string): TrainSettings {
  return decodeHash(TABLE, hash, DEFAULTS);
}

/** The hash for `settings` (without '#'); settings equal to the default are left out. */
export function encodeSettings(settings: TrainSettings): string {
  return encodeHash(TABLE, settings, DEFAULTS);
}

/** The train page's store: its settings, written to the URL (replace) as they change. */
export class SettingsStore extends UrlStore<TrainSettings> {
  constructor(initial: TrainSettings) {
    super(initial, encodeSettings);
  }

  get settings(): TrainSettings {
    return this.state;
  }
}
