/**
 * The train page's shareable settings as a declarative table serialised to the URL hash (like
 * the playground's state.ts): one row per setting. A new URL-saved control is one row here and
 * one control in main.ts. DOM-free apart from `location` and `history`.
 */
import { DEVICE } from "../config";
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

type Codec<T> = { encode: (value: T) => string; decode: (text: string) => T | undefined };

const num = (min: number, max: number): Codec<number> => ({
  encode: (v) => String(v),
  decode: (t) => {
    const v = Number(t);
    return t !== "" && Number.isFinite(v) && v >= min && v <= max ? v : undefined;
  },
});
const int = (min: number, max: number): Codec<number> => ({
  encode: (v) => String(v),
  decode: (t) => (/^\d+$/.test(t) && Number(t) >= min && Number(t) <= max ? Number(t) : undefined),
});
const oneOf = <T extends string>(...values: T[]): Codec<T> => ({
  encode: (v) => v,
  decode: (t) => (values as string[]).includes(t) ? (t as T) : undefined,
});
const device: Codec<string> = { encode: (v) => v, decode: (t) => (DEVICE.pattern.test(t) ? t : undefined) };
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

interface Row<K extends keyof TrainSettings> {
  param: string;
  codec: Codec<TrainSettings[K]>;
}

/** One row per shareable setting. */
const TABLE: { [K in keyof TrainSettings]: Row<K> } = {
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
  device: { param: "device", codec: device },
};

type AnyRow = [keyof TrainSettings, Row<keyof TrainSettings>];
const rows = (): AnyRow[] => Object.entries(TABLE) as AnyRow[];

/** Settings from a hash (`#data=xor&lr=0.1`) on top of the defaults. */
export function decodeSettings(hash: string): TrainSettings {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const out: Record<string, unknown> = { ...DEFAULTS, hidden: [...DEFAULTS.hidden], points: [] };
  for (const [key, row] of rows()) {
    const raw = params.get(row.param);
    if (raw === null) continue;
    const value = row.codec.decode(raw);
    if (value !== undefined) out[key] = value;
  }
  return out as unknown as TrainSettings;
}

/** The hash for `settings` (without '#'); settings equal to the default are left out. */
export function encodeSettings(settings: TrainSettings): string {
  const params = new URLSearchParams();
  for (const [key, row] of rows()) {
    const encoded = row.codec.encode(settings[key] as never);
    if (encoded !== row.codec.encode(DEFAULTS[key] as never)) params.set(row.param, encoded);
  }
  return params.toString();
}

/** Holds the settings; `set` writes the URL (replace) and notifies with the changed keys. */
export class SettingsStore {
  private current: TrainSettings;
  private readonly listeners: ((s: TrainSettings, changed: Set<keyof TrainSettings>) => void)[] = [];

  constructor(initial: TrainSettings) {
    this.current = initial;
  }

  get settings(): TrainSettings {
    return this.current;
  }

  subscribe(listener: (s: TrainSettings, changed: Set<keyof TrainSettings>) => void): void {
    this.listeners.push(listener);
  }

  set(patch: Partial<TrainSettings>): void {
    const changed = new Set<keyof TrainSettings>();
    for (const key of Object.keys(patch) as (keyof TrainSettings)[]) {
      if (JSON.stringify(patch[key]) !== JSON.stringify(this.current[key])) changed.add(key);
    }
    if (!changed.size) return;
    this.current = { ...this.current, ...patch };
    const url = new URL(window.location.href);
    url.hash = encodeSettings(this.current);
    if (url.toString() !== window.location.href) window.history.replaceState(null, "", url.toString());
    for (const listener of this.listeners) listener(this.current, changed);
  }
}
