/**
 * The shareable state as a declarative table serialised to the URL hash (tensorflow/playground's
 * state.ts): one row per setting. A new URL-saved control is one row here and one control.
 * DOM-free apart from reading/writing `location` and `history`.
 */
import { DEVICE } from "./config";

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
  /** Compare the program's own Value graphs with PyTorch (compare.ts). */
  compare: boolean;
}

type Codec<T> = { encode: (value: T) => string | null; decode: (text: string) => T | undefined };

const text: Codec<string> = { encode: (v) => v, decode: (t) => t };
const intOrNull: Codec<number | null> = {
  encode: (v) => (v === null ? null : String(v)),
  decode: (t) => (/^-?\d+$/.test(t) ? Number(t) : undefined),
};
const device: Codec<string> = { encode: (v) => v, decode: (t) => (DEVICE.pattern.test(t) ? t : undefined) };
const flag: Codec<boolean> = { encode: (v) => (v ? "1" : null), decode: (t) => t === "1" };
const int: Codec<number> = { encode: (v) => String(v), decode: (t) => (/^-?\d+$/.test(t) ? Number(t) : undefined) };

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

interface Row<K extends keyof AppState> {
  key: K;
  /** Name of the parameter in the URL hash. */
  param: string;
  codec: Codec<AppState[K]>;
}

/** One row per shareable setting. */
const TABLE: { [K in keyof AppState]: Row<K> } = {
  source: { key: "source", param: "src", codec: text },
  bindings: { key: "bindings", param: "b", codec: bindings },
  device: { key: "device", param: "device", codec: device },
  seed: { key: "seed", param: "seed", codec: int },
  step: { key: "step", param: "step", codec: intOrNull },
  pass: { key: "pass", param: "pass", codec: intOrNull },
  compare: { key: "compare", param: "cmp", codec: flag },
};

/** Parse a hash (`#src=...&step=2`) on top of `defaults`. */
export function decodeState(hash: string, defaults: AppState): AppState {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const state: AppState = { ...defaults, bindings: { ...defaults.bindings } };
  if (!params.has("src")) return state;
  for (const row of Object.values(TABLE) as Row<keyof AppState>[]) {
    const raw = params.get(row.param);
    if (raw === null) {
      // A link that carries a program but no bindings / step means "none" / "the end".
      if (row.key === "bindings") state.bindings = {};
      continue;
    }
    const value = row.codec.decode(raw);
    if (value !== undefined) (state as unknown as Record<string, unknown>)[row.key] = value;
  }
  return state;
}

/** The hash for `state` (without the leading '#'). */
export function encodeState(state: AppState): string {
  const params = new URLSearchParams();
  for (const row of Object.values(TABLE) as Row<keyof AppState>[]) {
    const encoded = row.codec.encode(state[row.key] as never);
    if (encoded !== null) params.set(row.param, encoded);
  }
  return params.toString();
}

type Listener = (state: AppState, changed: Set<keyof AppState>) => void;

/** Holds the state; `set` notifies listeners and writes the URL (push or replace). */
export class Store {
  private current: AppState;
  private readonly listeners: Listener[] = [];

  constructor(initial: AppState) {
    this.current = initial;
  }

  get state(): AppState {
    return this.current;
  }

  subscribe(listener: Listener): void {
    this.listeners.push(listener);
  }

  /** Merge `patch`, write the URL, then notify. `history: "push"` adds a back-button entry. */
  set(patch: Partial<AppState>, history: "push" | "replace" | "none" = "replace"): void {
    const changed = new Set<keyof AppState>();
    for (const key of Object.keys(patch) as (keyof AppState)[]) {
      if (JSON.stringify(patch[key]) !== JSON.stringify(this.current[key])) changed.add(key);
    }
    this.current = { ...this.current, ...patch };
    if (history !== "none") this.writeUrl(history);
    if (changed.size) for (const listener of this.listeners) listener(this.current, changed);
  }

  /** The full link to this state. */
  link(): string {
    const url = new URL(window.location.href);
    url.hash = encodeState(this.current);
    return url.toString();
  }

  writeUrl(mode: "push" | "replace"): void {
    const url = this.link();
    if (url === window.location.href) return;
    if (mode === "push") window.history.pushState(null, "", url);
    else window.history.replaceState(null, "", url);
  }
}
