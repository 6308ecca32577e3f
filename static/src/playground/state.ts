/**
 * The playground's shareable state: one row per setting in the table below (the shared
 * machinery, codecs and store are common/url-state.ts, which the train page uses too). A new
 * URL-saved control is one row here and one control. DOM-free.
 */
import { DEVICE } from "../common/config";
import { decodeHash, encodeHash, flag, int, intOrNull, matching, type Codec, text, type StateTable, UrlStore } from "../common/url-state";

/** A free variable's current value and whether it is a leaf that requires grad. */
export interface BindingState {
  value: number;
  requires_grad: boolean;
}

export interface AppState {
  /** The program or expression in the editor. */
  source: string;
  /** Free variables of the program and their values. */
  bindings: Record<string, BindingState>;
  /** Where the program runs: "cpu" or "cuda" (sent with each run). */
  device: string;
  /** Seed sent with each run. */
  seed: number;
  /** Walk position: 0 = forward done, k = after walk step k; null = the end of the walk. */
  step: number | null;
  /** Which recorded backward pass is shown; null = the last. */
  pass: number | null;
  /** Compare the program's own Value graphs with PyTorch (graph/pytorch-compare.ts). */
  compare: boolean;
  /** Practice mode: the learner computes each gradient of the walk (practice/panel.ts). */
  practice: boolean;
}

/** Bindings as `w:0.5:g,x:2` (g = requires_grad): short enough to read in a link. */
const bindings: Codec<Record<string, BindingState>> = {
  encode: (v) => {
    const parts = Object.entries(v).map(([name, b]) => `${name}:${b.value}${b.requires_grad ? ":g" : ""}`);
    return parts.length ? parts.join(",") : null;
  },
  decode: (t) => {
    const out: Record<string, BindingState> = {};
    for (const part of t.split(",")) {
      const [name, value, flag] = part.split(":");
      const number = Number(value);
      if (!name || !/^[A-Za-z_]\w*$/.test(name) || value === undefined || !Number.isFinite(number)) continue;
      out[name] = { value: number, requires_grad: flag === "g" };
    }
    return out;
  },
};

/** One row per shareable setting. */
const TABLE: StateTable<AppState> = {
  source: { param: "src", codec: text },
  bindings: { param: "b", codec: bindings },
  device: { param: "device", codec: matching(DEVICE.pattern) },
  seed: { param: "seed", codec: int() },
  step: { param: "step", codec: intOrNull },
  pass: { param: "pass", codec: intOrNull },
  compare: { param: "cmp", codec: flag },
  practice: { param: "practice", codec: flag },
};

/** Parse a hash (`#src=...&step=2`) on top of `defaults`. A link without a program is no
 * link (the defaults stay); a link with one and no bindings means "none". */
export function decodeState(hash: string, defaults: AppState): AppState {
  if (!new URLSearchParams(hash.replace(/^#/, "")).has("src")) {
    return { ...defaults, bindings: { ...defaults.bindings } };
  }
  return decodeHash(TABLE, hash, { ...defaults, bindings: {} });
}

/** The hash for `state` (without the leading '#'). */
export function encodeState(state: AppState): string {
  return encodeHash(TABLE, state);
}

/** The playground's store: the state, written to the URL as it changes. */
export class Store extends UrlStore<AppState> {
  constructor(initial: AppState) {
    super(initial, encodeState);
  }
}
