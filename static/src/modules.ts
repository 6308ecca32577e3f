/**
 * Modules collapse (TensorBoard's graph): the nodes one nn.Module call recorded (a Linear's
 * weight, bias and addmm) are drawn as one box named after the module (`model[0]`, `fc1`), which
 * expands on click and while the walk is inside it. This module turns a graph and the set of
 * expanded modules into the graph that is drawn. DOM-free.
 */
import { forwardOrder } from "./graphmodel";
import type { Graph, GraphEdge, GraphNode, ModuleInfo } from "./types";

/** What one box of the drawing stands for. */
export interface DisplayNode {
  /** The graph node's id, or `module:<id>` for a collapsed module. */
  id: string;
  /** The node whose value and gradient the box shows (a collapsed module: its output). */
  node: GraphNode;
  /** The graph nodes drawn as this box. */
  members: string[];
  /** The module a collapsed box stands for; for a lone node, the leaf module that recorded it. */
  module: ModuleInfo | null;
  collapsed: boolean;
  /** Parameters inside a collapsed module (weight, bias), for its box and details. */
  params: GraphNode[];
}

/** An edge of the drawing, remembering the graph edge it draws (flows are matched on it). */
export interface DisplayEdge {
  src: string;
  dst: string;
  arg: number | null;
  /** The graph edge: `src` is an input of `dst`. */
  graphSrc: string;
  graphDst: string;
}

/** An expanded module drawn as a frame around its members. */
export interface ModuleFrame {
  id: string;
  module: ModuleInfo;
  members: string[];
}

export interface DisplayGraph {
  nodes: DisplayNode[];
  edges: DisplayEdge[];
  frames: ModuleFrame[];
  /** Graph node id -> id of the box that draws it. */
  boxOf: Map<string, string>;
}

/** The id of a collapsed module's box. */
export function moduleBoxId(moduleId: string): string {
  return `module:${moduleId}`;
}

/** Modules by id; a node's `module` may name a module by id or (older servers) by name. */
function moduleIndex(graph: Graph): { byId: Map<string, ModuleInfo>; resolve: (ref: string | null | undefined) => ModuleInfo | null } {
  const byId = new Map<string, ModuleInfo>();
  const byName = new Map<string, ModuleInfo>();
  for (const m of graph.modules ?? []) {
    byId.set(m.id, m);
    byName.set(m.name, m);
  }
  const resolve = (ref: string | null | undefined): ModuleInfo | null => (ref ? (byId.get(ref) ?? byName.get(ref) ?? null) : null);
  return { byId, resolve };
}

/**
 * The leaf module (one with no sub-module) each node belongs to. A node recorded inside a leaf
 * module's call belongs to it; a parameter leaf with no module of its own belongs to the module
 * whose nodes are its only consumers (a Linear's weight and bias).
 */
export function leafModules(graph: Graph): Map<string, ModuleInfo> {
  const { byId, resolve } = moduleIndex(graph);
  const parents = new Set<string>();
  for (const m of byId.values()) if (m.parent) parents.add(m.parent);
  const owner = new Map<string, ModuleInfo>();
  for (const node of graph.nodes) {
    const m = resolve(node.module);
    if (m && !parents.has(m.id)) owner.set(node.id, m);
  }
  for (const node of graph.nodes) {
    if (owner.has(node.id) || !node.is_leaf || !node.requires_grad || node.module) continue;
    const consumers = graph.edges.filter((e) => e.src === node.id).map((e) => owner.get(e.dst));
    const first = consumers[0];
    if (first && consumers.every((m) => m === first)) owner.set(node.id, first);
  }
  return owner;
}

/** Modules that can collapse: leaf modules that recorded at least two nodes. */
export function collapsibleModules(graph: Graph): Map<string, { module: ModuleInfo; members: string[] }> {
  const groups = new Map<string, { module: ModuleInfo; members: string[] }>();
  for (const [nodeId, m] of leafModules(graph)) {
    const group = groups.get(m.id) ?? { module: m, members: [] };
    group.members.push(nodeId);
    groups.set(m.id, group);
  }
  for (const [id, group] of groups) if (group.members.length < 2) groups.delete(id);
  return groups;
}

/** The member whose value leaves the module: consumed outside it (or the root), latest computed. */
function outputOf(graph: Graph, members: string[]): string {
  const inside = new Set(members);
  const order = forwardOrder(graph);
  const leaving = members.filter((id) => id === graph.root || graph.edges.some((e) => e.src === id && !inside.has(e.dst)));
  const candidates = leaving.length ? leaving : members.filter((id) => !graph.nodes.find((n) => n.id === id)?.is_leaf);
  const pool = candidates.length ? candidates : members;
  return pool.reduce((best, id) => (order.indexOf(id) > order.indexOf(best) ? id : best));
}

/** The drawing of `graph` with the modules in `expanded` open and every other collapsible one shut. */
export function displayGraph(graph: Graph, expanded: ReadonlySet<string>): DisplayGraph {
  const groups = collapsibleModules(graph);
  const owners = leafModules(graph);
  const byNode = new Map(graph.nodes.map((n) => [n.id, n]));
  const boxOf = new Map<string, string>();
  const nodes: DisplayNode[] = [];
  const frames: ModuleFrame[] = [];
  const placed = new Set<string>();
  for (const node of graph.nodes) {
    if (placed.has(node.id)) continue;
    const owner = owners.get(node.id);
    const group = owner ? groups.get(owner.id) : undefined;
    if (group && !expanded.has(group.module.id)) {
      const output = byNode.get(outputOf(graph, group.members)) ?? node;
      const id = moduleBoxId(group.module.id);
      for (const member of group.members) {
        boxOf.set(member, id);
        placed.add(member);
      }
      nodes.push({
        id,
        node: output,
        members: [...group.members],
        module: group.module,
        collapsed: true,
        params: group.members.map((m) => byNode.get(m)).filter((n): n is GraphNode => n !== undefined && n.is_leaf && n.requires_grad),
      });
      continue;
    }
    boxOf.set(node.id, node.id);
    placed.add(node.id);
    nodes.push({ id: node.id, node, members: [node.id], module: owner ?? null, collapsed: false, params: [] });
  }
  for (const [id, group] of groups) if (expanded.has(id)) frames.push({ id: moduleBoxId(id), module: group.module, members: group.members });
  const edges: DisplayEdge[] = [];
  for (const edge of graph.edges as GraphEdge[]) {
    const src = boxOf.get(edge.src);
    const dst = boxOf.get(edge.dst);
    if (!src || !dst || src === dst) continue;
    edges.push({ src, dst, arg: edge.arg, graphSrc: edge.src, graphDst: edge.dst });
  }
  return { nodes, edges, frames, boxOf };
}

/** The collapsible module a walk step's node belongs to (null when none). */
export function stepModule(graph: Graph, position: number, groups = collapsibleModules(graph)): string | null {
  const step = graph.walk[position - 1];
  if (!step) return null;
  for (const [id, group] of groups) if (group.members.includes(step.node)) return id;
  return null;
}

/**
 * Stepping over a module: from walk position `position`, the position after the run of steps
 * that belong to the same collapsible module as the next step (just the next step when it belongs
 * to none). `direction` -1 steps back over the run that ends at `position`.
 */
export function stepOverTarget(graph: Graph, position: number, direction: 1 | -1): { position: number; from: number; module: string | null } {
  const groups = collapsibleModules(graph);
  const total = graph.walk.length;
  if (direction === 1) {
    if (position >= total) return { position: total, from: total - 1, module: null };
    const module = stepModule(graph, position + 1, groups);
    let end = position + 1;
    while (module && end < total && stepModule(graph, end + 1, groups) === module) end++;
    return { position: end, from: position, module };
  }
  if (position <= 0) return { position: 0, from: 0, module: null };
  // Back: undo the run that ends here, then show the run before it as one step too.
  const here = stepModule(graph, position, groups);
  let start = position;
  while (here && start > 1 && stepModule(graph, start - 1, groups) === here) start--;
  const target = start - 1;
  if (target <= 0) return { position: 0, from: 0, module: null };
  const before = stepModule(graph, target, groups);
  let from = target - 1;
  while (before && from > 0 && stepModule(graph, from, groups) === before) from--;
  return { position: target, from, module: before };
}

/**
 * The drawn edge each flow travels back along (-1 for a flow inside a collapsed module): the edge
 * from the receiver into the sender, on the same argument when the server says which.
 */
export function matchFlowEdges(display: DisplayGraph, flows: { from: string; to: string; arg: number | null }[]): number[] {
  const used = new Set<number>();
  return flows.map((flow) => {
    const index = display.edges.findIndex(
      (e, i) => !used.has(i) && e.graphSrc === flow.to && e.graphDst === flow.from && (flow.arg === null || e.arg === null || e.arg === flow.arg),
    );
    if (index >= 0) used.add(index);
    return index;
  });
}
