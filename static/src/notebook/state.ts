/**
 * The notebook page's shareable state: one row per setting (common/url-state.ts's table). A lesson
 * opened as it is travels as its id (`#lesson=autodiff-and-computation-graphs`); once edited,
 * or for an imported notebook, the cells themselves travel in the link (`nb`), compressed when
 * long (deflate, base64url), so a link reopens the same cells, the cell shown and its walk step.
 * DOM-free apart from the store's URL writes.
 */
import { decodeHash, encodeHash, flag, int, intOrNull, matching, type StateTable, text, UrlStore } from "../common/url-state";
import type { NotebookCell } from "../api/types";

export interface NotebookUrlState {
  /** A gallery lesson opened unedited: its id ("" when the link carries the cells). */
  lesson: string;
  /** The cells, packed (packCells); "" when the lesson id says them. */
  nb: string;
  seed: number;
  /** The code cell whose graph is shown (1-based); null: none. */
  cell: number | null;
  /** Walk position in that graph; null = the end. */
  step: number | null;
  /** Which backward pass of that cell is shown; null = the last. */
  pass: number | null;
  /** Practice mode: the learner computes each gradient of the shown cell's walk. */
  practice: boolean;
}

export const NOTEBOOK_DEFAULTS: NotebookUrlState = { lesson: "", nb: "", seed: 0, cell: null, step: null, pass: null, practice: false };

const TABLE: StateTable<NotebookUrlState> = {
  lesson: { param: "lesson", codec: { ...matching(/^[\w.-]{1,80}$/), encode: (v) => v || null } },
  nb: { param: "nb", codec: { ...text, encode: (v) => v || null } },
  seed: { param: "seed", codec: int(0, 2 ** 32 - 1) },
  cell: { param: "cell", codec: intOrNull },
  step: { param: "step", codec: intOrNull },
  pass: { param: "pass", codec: intOrNull },
  practice: { param: "practice", codec: flag },
};

export function decodeNotebookState(hash: string): NotebookUrlState {
  return decodeHash(TABLE, hash, NOTEBOOK_DEFAULTS);
}

export function encodeNotebookState(state: NotebookUrlState): string {
  return encodeHash(TABLE, state, NOTEBOOK_DEFAULTS);
}

export class NotebookStore extends UrlStore<NotebookUrlState> {
  constructor(initial: NotebookUrlState) {
    super(initial, encodeNotebookState);
  }
}

// ---- the cells in a link --------------------------------------------------------------------

/** Packed cells longer than this (bytes of JSON) are compressed. */
export const COMPRESS_FROM = 512;
/** The most a link's cells may unpack to: a link is no way to send a file-sized bomb. */
export const MAX_UNPACKED = 1 << 20;

/** A link's cells that cannot be read. */
export class PackError extends Error {}

function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64Url(text: string): Uint8Array {
  if (!/^[\w-]*$/.test(text)) throw new PackError("the link's cells are not base64url");
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

async function through(bytes: Uint8Array, stream: CompressionStream | DecompressionStream, limit: number): Promise<Uint8Array> {
  const writer = stream.writable.getWriter();
  void writer.write(bytes as Uint8Array<ArrayBuffer>).catch(() => undefined);
  void writer.close().catch(() => undefined);
  const reader = stream.readable.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > limit) {
      await reader.cancel();
      throw new PackError(`the link's cells unpack to more than ${limit.toLocaleString("en-US")} bytes`);
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

/** The cells as a link's `nb`: "j" + base64url(JSON), or "z" + base64url(deflate(JSON)). */
export async function packCells(cells: NotebookCell[]): Promise<string> {
  const json = new TextEncoder().encode(JSON.stringify(cells.map((c) => [c.kind === "code" ? "c" : "m", c.source])));
  if (json.length < COMPRESS_FROM) return `j${toBase64Url(json)}`;
  return `z${toBase64Url(await through(json, new CompressionStream("deflate-raw"), Infinity))}`;
}

/** A link's `nb` back to cells; PackError says what is wrong with it. */
export async function unpackCells(packed: string): Promise<NotebookCell[]> {
  const kind = packed[0];
  let bytes: Uint8Array;
  try {
    bytes = fromBase64Url(packed.slice(1));
  } catch (error) {
    throw error instanceof PackError ? error : new PackError("the link's cells are not base64url");
  }
  if (kind === "z") {
    try {
      bytes = await through(bytes, new DecompressionStream("deflate-raw"), MAX_UNPACKED);
    } catch (error) {
      throw error instanceof PackError ? error : new PackError("the link's cells are damaged (they do not decompress)");
    }
  } else if (kind !== "j") throw new PackError("the link's cells are in an unknown format");
  let data: unknown;
  try {
    data = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new PackError("the link's cells are damaged (not JSON)");
  }
  if (!Array.isArray(data)) throw new PackError("the link's cells are not a list");
  return data.map((item: unknown) => {
    if (!Array.isArray(item) || item.length !== 2 || (item[0] !== "c" && item[0] !== "m") || typeof item[1] !== "string") {
      throw new PackError("the link's cells are damaged (a cell is not [kind, source])");
    }
    return { kind: item[0] === "c" ? "code" : "markdown", source: item[1] } satisfies NotebookCell;
  });
}
