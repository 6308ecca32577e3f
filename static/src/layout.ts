/**
 * Layered layout of the graph with dagre, run in a Web Worker so a big graph never blocks the
 * page (tinygrad VIZ's dagre worker). The request and result are plain data.
 */
import { LAYOUT, NODE } from "./config";
import { nodeHeight } from "./graphmodel";
import type { Graph } from "./types";

export interface LayoutRequest {
  nodes: { id: string; width: number; height: number }[];
  edges: { src: string; dst: string; arg: number }[];
  options: typeof LAYOUT;
}

export interface Point {
  x: number;
  y: number;
}

export interface LayoutResult {
  /** Centre of each node. */
  nodes: Record<string, Point & { width: number; height: number }>;
  /** Polyline of each edge, in `edges` order. */
  edges: Point[][];
  width: number;
  height: number;
}

/** The plain-data request for `graph`. */
export function layoutRequest(graph: Graph): LayoutRequest {
  return {
    nodes: graph.nodes.map((n) => ({ id: n.id, width: NODE.width, height: nodeHeight(n) })),
    edges: graph.edges.map((e) => ({ src: e.src, dst: e.dst, arg: e.arg })),
    options: LAYOUT,
  };
}

let worker: Worker | null = null;
let nextId = 0;
const pending = new Map<number, (result: LayoutResult) => void>();

function getWorker(): Worker {
  if (!worker) {
    // Resolved next to this bundle, so the page works from any mount point.
    worker = new Worker(new URL("./layout-worker.js", import.meta.url), { type: "module" });
    worker.onmessage = (event: MessageEvent<{ id: number; result: LayoutResult }>) => {
      const resolve = pending.get(event.data.id);
      pending.delete(event.data.id);
      resolve?.(event.data.result);
    };
  }
  return worker;
}

/** Lay `graph` out in the worker. */
export function layoutGraph(graph: Graph): Promise<LayoutResult> {
  const id = nextId++;
  return new Promise((resolve) => {
    pending.set(id, resolve);
    getWorker().postMessage({ id, request: layoutRequest(graph) });
  });
}
