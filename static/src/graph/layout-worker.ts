/** Web Worker: runs dagre on a LayoutRequest in each direction asked for and posts back the best. */
import dagre from "@dagrejs/dagre";
import { chooseLayout, type Arrangement, type Box, type LayoutRequest, type LayoutResult, type Point } from "./layout";

function layout(request: LayoutRequest, arrangement: Arrangement): LayoutResult {
  const rankdir = arrangement === "LR" ? "LR" : "BT";
  const compound = request.frames.length > 0;
  const g = new dagre.graphlib.Graph({ multigraph: true, compound });
  const { labelHeight: _labelHeight, bigGraph: _bigGraph, ...options } = request.options;
  g.setGraph({ ...options, rankdir });
  g.setDefaultEdgeLabel(() => ({}));
  for (const frame of request.frames) g.setNode(frame.id, {});
  for (const frame of request.frames) if (frame.parent && g.hasNode(frame.parent)) g.setParent(frame.id, frame.parent);
  for (const node of request.nodes) {
    g.setNode(node.id, { width: node.width, height: node.height });
    if (node.parent && g.hasNode(node.parent)) g.setParent(node.id, node.parent);
  }
  // Stacked: the k-th leaf input of a node sits k ranks below it instead of beside the others.
  const hasInput = new Set(request.edges.map((e) => e.dst));
  const leafCount = new Map<string, number>();
  request.edges.forEach((edge, index) => {
    if (!g.hasNode(edge.src) || !g.hasNode(edge.dst) || edge.laidOut === false) return;
    let minlen = 1;
    if (arrangement === "BT-stacked" && !hasInput.has(edge.src)) {
      minlen = 1 + (leafCount.get(edge.dst) ?? 0);
      leafCount.set(edge.dst, minlen);
    }
    // Left to right, rank gaps are too narrow for a label: dagre reserves room for it. Bottom to
    // top, labels go in the node-free bands between ranks (graph/edge-labels.ts) and cost no room.
    const label = edge.label && rankdir === "LR" ? { width: edge.label.width, height: edge.label.height, labelpos: "c" } : {};
    g.setEdge(edge.src, edge.dst, { ...label, minlen }, String(index));
  });
  dagre.layout(g);
  const box = (id: string): Box => {
    const n = g.node(id);
    return { x: n.x ?? 0, y: n.y ?? 0, width: n.width ?? 0, height: n.height ?? 0 };
  };
  const nodes: LayoutResult["nodes"] = {};
  for (const node of request.nodes) if (g.hasNode(node.id)) nodes[node.id] = box(node.id);
  const frames: LayoutResult["frames"] = {};
  for (const frame of request.frames) if (g.hasNode(frame.id)) frames[frame.id] = box(frame.id);
  const edges: Point[][] = [];
  const labels: (Box | null)[] = [];
  request.edges.forEach((edge, index) => {
    const e = g.edge({ v: edge.src, w: edge.dst, name: String(index) }) as { points?: Point[]; x?: number; y?: number } | undefined;
    edges.push(e?.points?.map((p) => ({ x: p.x, y: p.y })) ?? []);
    labels.push(edge.label && rankdir === "LR" && e?.x !== undefined && e.y !== undefined ? { x: e.x, y: e.y, ...edge.label } : null);
  });
  const graph = g.graph();
  return { rankdir, arrangement, nodes, frames, edges, labels, width: graph.width ?? 0, height: graph.height ?? 0 };
}

self.onmessage = (event: MessageEvent<{ id: number; request: LayoutRequest }>) => {
  const { request } = event.data;
  const started = performance.now();
  const results = request.directions.map((arrangement) => layout(request, arrangement));
  const result = { ...chooseLayout(results, request.pane), workerMs: performance.now() - started };
  (self as unknown as { postMessage: (message: unknown) => void }).postMessage({ id: event.data.id, result });
};
