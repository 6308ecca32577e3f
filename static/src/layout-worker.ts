/** Web Worker: runs dagre on a LayoutRequest and posts back a LayoutResult. */
import dagre from "@dagrejs/dagre";
import type { LayoutRequest, LayoutResult, Point } from "./layout";

function layout(request: LayoutRequest): LayoutResult {
  const g = new dagre.graphlib.Graph({ multigraph: true });
  g.setGraph({ ...request.options });
  g.setDefaultEdgeLabel(() => ({}));
  for (const node of request.nodes) g.setNode(node.id, { width: node.width, height: node.height });
  request.edges.forEach((edge, index) => {
    if (g.hasNode(edge.src) && g.hasNode(edge.dst)) g.setEdge(edge.src, edge.dst, {}, String(index));
  });
  dagre.layout(g);
  const nodes: LayoutResult["nodes"] = {};
  for (const id of g.nodes()) {
    const n = g.node(id);
    nodes[id] = { x: n.x ?? 0, y: n.y ?? 0, width: n.width ?? 0, height: n.height ?? 0 };
  }
  const edges: Point[][] = request.edges.map((edge, index) => {
    const label = g.edge({ v: edge.src, w: edge.dst, name: String(index) }) as { points?: Point[] } | undefined;
    return label?.points?.map((p) => ({ x: p.x, y: p.y })) ?? [];
  });
  const graph = g.graph();
  return { nodes, edges, width: graph.width ?? 0, height: graph.height ?? 0 };
}

self.onmessage = (event: MessageEvent<{ id: number; request: LayoutRequest }>) => {
  const result = layout(event.data.request);
  (self as unknown as { postMessage: (message: unknown) => void }).postMessage({ id: event.data.id, result });
};
