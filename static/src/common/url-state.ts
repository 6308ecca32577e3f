/**
 * Shareable state as a declarative table serialised to the URL hash (tensorflow/playground's
 * state.ts), shared by both pages: each page declares its state type, one row per setting
 * (the hash parameter and its codec), and gets decode / encode and a store that writes the URL
 * and notifies. A new URL-saved control is one row and one control.
 * DOM-free apart from reading/writing `location` and `history` in the store.
 */

/** How one setting is written in the hash: `encode` null leaves the parameter out. */
export interface Codec<T> {
  encode: (value: T) => string | null;
  /** The value, or undefined when the text is not a valid one (the default stays). */
  decode: (text: string) => T | undefined;
}

/** One row per shareable setting: its hash parameter and codec. */
export type StateTable<S> = { [K in keyof S]: { param: string; codec: Codec<S[K]> } };

// ---- codecs ---------------------------------------------------------------------------------

export const text: Codec<string> = { encode: (v) => v, decode: (t) => t };

/** An integer in [min, max]. */
export const int = (min = -Infinity, max = Infinity): Codec<number> => ({
  encode: (v) => String(v),
  decode: (t) => (/^-?\d+$/.test(t) && Number(t) >= min && Number(t) <= max ? Number(t) : undefined),
});

/** An integer, or null (left out of the hash). */
export const intOrNull: Codec<number | null> = {
  encode: (v) => (v === null ? null : String(v)),
  decode: (t) => (/^-?\d+$/.test(t) ? Number(t) : undefined),
};

/** A setting that is off unless the link says `1`. */
export const flag: Codec<boolean> = { encode: (v) => (v ? "1" : null), decode: (t) => t === "1" };

/** A finite number in [min, max]. */
export const num = (min = -Infinity, max = Infinity): Codec<number> => ({
  encode: (v) => String(v),
  decode: (t) => {
    const v = Number(t);
    return t !== "" && Number.isFinite(v) && v >= min && v <= max ? v : undefined;
  },
});

/** One of a fixed set of words. */
export const oneOf = <T extends string>(...values: T[]): Codec<T> => ({
  encode: (v) => v,
  decode: (t) => ((values as string[]).includes(t) ? (t as T) : undefined),
});

/** A text matching `pattern` (a device name: cpu, cuda, cuda:1). */
export const matching = (pattern: RegExp): Codec<string> => ({
  encode: (v) => v,
  decode: (t) => (pattern.test(t) ? t : undefined),
});

// ---- the table ------------------------------------------------------------------------------

type Rows<S> = [keyof S & string, { param: string; codec: Codec<S[keyof S]> }][];
const rows = <S>(table: StateTable<S>): Rows<S> => Object.entries(table) as Rows<S>;

/** `hash` (`#src=...&step=2`) decoded on top of `defaults`: a missing or invalid parameter
 * keeps its default. */
export function decodeHash<S extends object>(table: StateTable<S>, hash: string, defaults: S): S {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const out = structuredClone(defaults) as Record<string, unknown>;
  for (const [key, row] of rows(table)) {
    const raw = params.get(row.param);
    if (raw === null) continue;
    const value = row.codec.decode(raw);
    if (value !== undefined) out[key] = value;
  }
  return out as S;
}

/** The hash for `state` (without '#'); with `defaults`, settings equal to them are left out. */
export function encodeHash<S extends object>(table: StateTable<S>, state: S, defaults?: S): string {
  const params = new URLSearchParams();
  for (const [key, row] of rows(table)) {
    const encoded = row.codec.encode(state[key]);
    if (encoded === null) continue;
    if (defaults !== undefined && encoded === row.codec.encode(defaults[key])) continue;
    params.set(row.param, encoded);
  }
  return params.toString();
}

type Listener<S> = (state: S, changed: Set<keyof S>) => void;

/** Holds the state; `set` merges a patch, writes the URL (push or replace) and notifies the
 * listeners with the keys that changed. */
export class UrlStore<S extends object> {
  private current: S;
  private readonly listeners: Listener<S>[] = [];

  constructor(
    initial: S,
    private readonly encode: (state: S) => string,
  ) {
    this.current = initial;
  }

  get state(): S {
    return this.current;
  }

  subscribe(listener: Listener<S>): void {
    this.listeners.push(listener);
  }

  /** Merge `patch`, write the URL, then notify. `history: "push"` adds a back-button entry. */
  set(patch: Partial<S>, history: "push" | "replace" | "none" = "replace"): void {
    const changed = new Set<keyof S>();
    for (const key of Object.keys(patch) as (keyof S)[]) {
      if (JSON.stringify(patch[key]) !== JSON.stringify(this.current[key])) changed.add(key);
    }
    this.current = { ...this.current, ...patch };
    if (history !== "none") this.writeUrl(history);
    if (changed.size) for (const listener of this.listeners) listener(this.current, changed);
  }

  /** The full link to this state. */
  link(): string {
    const url = new URL(window.location.href);
    url.hash = this.encode(this.current);
    return url.toString();
  }

  writeUrl(mode: "push" | "replace"): void {
    const url = this.link();
    if (url === window.location.href) return;
    if (mode === "push") window.history.pushState(null, "", url);
    else window.history.replaceState(null, "", url);
  }
}
