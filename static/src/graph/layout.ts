/**
 * Layered layout of the graph with dagre, run in a Web Worker so a big graph never blocks the
 * page (tinygrad VIZ's dagre worker). The request and result are plain data. The worker lays the
 * graph out in each direction asked for and keeps the one that reads best in the pane
 * (`chooseLayout`): a deep graph goes bottom to top, and a tall pane never gets one thin row.
 */
import { LAYOUT } from "../common/config";

/** Inputs at the bottom and the loss on top (docs/architecture.md, "The pages"), or inputs on the left. */
export type RankDir = "BT" | "LR";

/**
 * A direction, and whether an operation's leaf inputs (a layer's weight and bias) are stacked
 * one rank apart instead of side by side: narrower and taller, for a tall pane.
 */
export type Arrangement = RankDir | "BT-stacked";

export interface LayoutRequest {
  /** Boxes with their measured sizes; `parent` is the expanded module frame around a node. */
  nodes: { id: string; width: number; height: number; parent: string | null }[];
  /** Edges; `label` is the room the gradient drawn on the edge needs (reserved left to right). */
  edges: {
    src: string;
    dst: string;
    label: { width: number; height: number } | null;
    /** False for an edge the layout leaves out (a weight feeding every iteration: its long edges
     * would each make a chain of dagre's dummy nodes); it is drawn straight between its boxes. */
    laidOut?: boolean;
  }[];
  /** Frames of expanded groups, each with the width its title needs and the frame it lies in. */
  frames: { id: string; labelWidth: number; parent: string | null }[];
  /** Arrangements to try; the first wins ties. */
  directions: Arrangement[];
  /** The pane the graph is shown in (CSS pixels). */
  pane: { width: number; height: number };
  options: typeof LAYOUT;
}

export interface Point {
  x: number;
  y: number;
}

export interface Box extends Point {
  /** x, y are the centre. */
  width: number;
  height: number;
}

export interface LayoutResult {
  rankdir: RankDir;
  arrangement: Arrangement;
  nodes: Record<string, Box>;
  frames: Record<string, Box>;
  /** Polyline of each edge, in request order. */
  edges: Point[][];
  /** Centre of each edge's label box where the layout reserved one (left to right only). */
  labels: (Box | null)[];
  width: number;
  height: number;
  /** How long the worker took to make it (ms), for the benchmark. */
  workerMs?: number;
}

/** The scale at which a `width` x `height` drawing fits the pane. */
export function fitScale(size: { width: number; height: number }, pane: { width: number; height: number }, padding = 0): number {
  if (size.width <= 0 || size.height <= 0) return Infinity;
  return Math.min((pane.width - 2 * padding) / size.width, (pane.height - 2 * padding) / size.height);
}

/**
 * The candidate that shows the graph biggest in the pane (the highest scale at which it fits);
 * the earlier candidate wins ties within 5 %, so the choice does not flicker between runs.
 */
export function chooseLayout<T extends { width: number; height: number }>(candidates: T[], pane: { width: number; height: number }): T {
  let best = candidates[0];
  if (!best) throw new Error("no layout to choose from");
  for (const candidate of candidates.slice(1)) {
    if (fitScale(candidate, pane) > 1.05 * fitScale(best, pane)) best = candidate;
  }
  return best;
}

/** The layout worker bundle's file name, content-hashed: set by esbuild.config.mjs. */
declare const LAYOUT_WORKER_URL: string;

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, (result: LayoutResult) => void>();

function getWorker(): Worker {
  if (!worker) {
    // Resolved next to this bundle, so the page works from any mount point.
    worker = new Worker(new URL(LAYOUT_WORKER_URL, import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<{ id: number; result: LayoutResult }>) => {
      const resolve = pending.get(event.data.id);
      pending.delete(event.data.id);
      resolve?.(event.data.result);
    };
  }
  return worker;
}

/**
 * Layouts already made, by request: running a program again, or showing another pass of the same
 * graph, asks for the same layout (the same boxes, edges and pane), which dagre then made again in
 * three arrangements (~30 ms of a small graph's ~60 ms from Run to drawn, on a slow machine). The
 * `size` most recently used are kept; each caller gets its own copy.
 */
export class LayoutMemo {
  private readonly entries = new Map<string, LayoutResult>();

  constructor(private readonly size = 16) {}

  /** The layout made for `key`, if it is kept. */
  get(key: string): LayoutResult | undefined {
    const kept = this.entries.get(key);
    if (kept === undefined) return undefined;
    this.entries.delete(key); // the most recently used last: evicted last
    this.entries.set(key, kept);
    return structuredClone(kept);
  }

  set(key: string, result: LayoutResult): void {
    this.entries.delete(key);
    this.entries.set(key, structuredClone(result));
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.size) break;
      this.entries.delete(oldest);
    }
  }
}

const made = new LayoutMemo();

/** Lay a request out in the worker (or give back the layout made for the same request). */
export function layoutGraph(request: LayoutRequest): Promise<LayoutResult> {
  const key = JSON.stringify(request);
  const known = made.get(key);
  if (known) return Promise.resolve(known);
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, (result) => {
      made.set(key, result);
      resolve(result);
    });
    getWorker().postMessage({ id, request });
  });
}
