/**
 * The drawing's hierarchy (TensorBoard's graph): the nodes one nn.Module call recorded (a Linear's
 * weight, bias and addmm) collapse into one box named after the module (`model[0]`, `fc1`), and
 * repetition collapses too (graph/series.ts): an RNN cell called twenty times, a loop's iterations,
 * identical blocks, drawn as one box `cell ×20` that opens into its iterations `t = 0 … 19`. A
 * group opens on click and while the walk is inside it. This module turns a graph and the set of
 * open groups into the graph that is drawn. DOM-free.
 */
import { forwardOrder, nodeWord } from "./model";
import { findRuns, seriesTitle, type Unit } from "./series";
import type { Graph, GraphEdge, GraphNode, ModuleInfo } from "../api/types";
/** What a group is: a module call, a series of repetitions, one iteration of a series, or a part
 * of a level too long to read at once (consecutive steps, a range of iterations). */
export type GroupKind = "module" | "repeat" | "iteration" | "part";

/**
 * A series of more than `maxIterations` iterations, or any other level of more than `maxItems`
 * boxes (a long chain with nothing repeated), is cut into about `parts` consecutive parts.
 */
export const SEGMENT = { maxIterations: 40, maxItems: 150, parts: 20 };

/** A group of the hierarchy: collapses into one box, expands into a frame around its items. */
export interface Group {
  /** The module's id ("model[0]#3"), or "repeat:0" for a series, "repeat:0:t3" for an iteration. */
  id: string;
  /** The id of its box when collapsed, and of its frame when expanded. */
  boxId: string;
  kind: GroupKind;
  /** Its box's title: "model[0]", "cell ×20", "t = 3". */
  title: string;
  /** Its box's second row: "Linear module", "20 iterations, t = 0 … 19". */
  subtitle: string;
  /** A module call: the module (an iteration that is one module call keeps it too). */
  module: ModuleInfo | null;
  parent: Group | null;
  /** Direct contents, in forward order: subgroups and graph node ids. */
  items: (Group | string)[];
  /** Every graph node inside it, however deep. */
  members: string[];
  /** A series: how many iterations. */
  count: number | null;
  /** An iteration (or a module call that is one): its index t. */
  index: number | null;
}

/** The hierarchy of a graph: its groups, the top level, and where each node lies. */
export interface Hierarchy {
  groups: Map<string, Group>;
  top: (Group | string)[];
  /** The innermost group of each node inside one. */
  groupOf: Map<string, Group>;
  /** Nodes inside a series: the series and the index of their iteration. */
  iterationOf: Map<string, { series: Group; index: number }>;
  /** The leaf module call each node was recorded in (also one too small to collapse). */
  callOf: Map<string, ModuleInfo>;
}

/** What one box of the drawing stands for. */
export interface DisplayNode {
  /** The graph node's id, or the group's box id (`module:<id>`, `repeat:<k>`) for a collapsed group. */
  id: string;
  /** The node whose value and gradient the box shows (a collapsed group: its output). */
  node: GraphNode;
  /** The graph nodes drawn as this box. */
  members: string[];
  /** The module a collapsed box stands for; for a lone node, the leaf module that recorded it. */
  module: ModuleInfo | null;
  /** The group a collapsed box stands for (null for a lone node). */
  group: Group | null;
  collapsed: boolean;
  /** Parameters inside a collapsed group (weight, bias), for its box and details. */
  params: GraphNode[];
  /** The frame (an expanded group's box id) the box is drawn in. */
  parent: string | null;
  /** A lone node inside an open series: its iteration ("t = 3"). */
  iteration: number | null;
}

/** An edge of the drawing, remembering the graph edge it draws (flows are matched on it). */
export interface DisplayEdge {
  src: string;
  dst: string;
  arg: number | null;
  /** The graph edge: `src` is an input of `dst`. */
  graphSrc: string;
  graphDst: string;
  /** Into or out of a collapsed group, every graph edge between the same two boxes is drawn
   * as this one: their `src→dst` keys (null for an edge that draws one graph edge). */
  merged: Set<string> | null;
}

/** An expanded group drawn as a frame around its items. */
export interface ModuleFrame {
  id: string;
  group: Group;
  /** The module of a module call's frame. */
  module: ModuleInfo | null;
  members: string[];
  /** The frame it is drawn in. */
  parent: string | null;
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

/** The module call a node names: by its call's id (`module_id`), else by id or name (older servers). */
function moduleIndex(graph: Graph): { byId: Map<string, ModuleInfo>; callOf: (node: GraphNode) => ModuleInfo | null } {
  const byId = new Map<string, ModuleInfo>();
  const byName = new Map<string, ModuleInfo>();
  for (const m of graph.modules ?? []) {
    byId.set(m.id, m);
    if (!byName.has(m.name)) byName.set(m.name, m);
  }
  const resolve = (ref: unknown): ModuleInfo | null => (typeof ref === "string" && ref ? (byId.get(ref) ?? byName.get(ref) ?? null) : null);
  return { byId, callOf: (node) => resolve(node["module_id"]) ?? resolve(node.module) };
}

/**
 * The leaf module call (one with no sub-module) each node belongs to. A node recorded inside a
 * leaf module's call belongs to it; a parameter leaf with no module of its own belongs to the
 * module whose nodes are its only consumers (a Linear's weight and bias).
 */
export function leafModules(graph: Graph): Map<string, ModuleInfo> {
  const { byId, callOf } = moduleIndex(graph);
  const parents = new Set<string>();
  for (const m of byId.values()) if (m.parent) parents.add(m.parent);
  const owner = new Map<string, ModuleInfo>();
  for (const node of graph.nodes) {
    const m = callOf(node);
    if (m && !parents.has(m.id)) owner.set(node.id, m);
  }
  const consumers = consumersOf(graph);
  for (const node of graph.nodes) {
    if (owner.has(node.id) || !node.is_leaf || !node.requires_grad || node.module) continue;
    const users = (consumers.get(node.id) ?? []).map((id) => owner.get(id));
    const first = users[0];
    if (first && users.every((m) => m === first)) owner.set(node.id, first);
  }
  return owner;
}

function consumersOf(graph: Graph): Map<string, string[]> {
  const consumers = new Map<string, string[]>();
  for (const e of graph.edges) {
    const list = consumers.get(e.src);
    if (list) list.push(e.dst);
    else consumers.set(e.src, [e.dst]);
  }
  return consumers;
}

const hierarchies = new WeakMap<Graph, Hierarchy>();

/** The hierarchy of `graph` (made once per graph object). */
export function hierarchyOf(graph: Graph): Hierarchy {
  let made = hierarchies.get(graph);
  if (!made) {
    made = buildHierarchy(graph);
    hierarchies.set(graph, made);
  }
  return made;
}

function newGroup(fields: Pick<Group, "id" | "boxId" | "kind" | "title" | "subtitle" | "module" | "parent">): Group {
  return { ...fields, items: [], members: [], count: null, index: null };
}

function buildHierarchy(graph: Graph): Hierarchy {
  const order = forwardOrder(graph);
  const byNode = new Map(graph.nodes.map((n) => [n.id, n]));
  const consumers = consumersOf(graph);
  const owners = leafModules(graph);
  const callOf = new Map<string, ModuleInfo>();
  for (const node of graph.nodes) {
    const m = owners.get(node.id);
    if (m && !node.is_leaf) callOf.set(node.id, m);
  }
  // The forward sequence of units: consecutive operations of one module call form one unit.
  const unitNodes: string[][] = [];
  const units: Unit[] = [];
  const unitCall: (ModuleInfo | null)[] = [];
  for (const id of order) {
    const node = byNode.get(id);
    if (!node || node.is_leaf) continue;
    const call = callOf.get(id) ?? null;
    const last = unitNodes.length - 1;
    if (call && unitCall[last] === call) {
      unitNodes[last]?.push(id);
      const unit = units[last];
      if (unit) unit.signature += `,${node.op ?? ""}`;
      continue;
    }
    unitNodes.push([id]);
    unitCall.push(call);
    units.push(
      call
        ? { signature: `M|${call.name}|${call.type}|${node.op ?? ""}`, moduleName: call.name }
        : { signature: `N|${node.op ?? node.grad_fn ?? ""}|${node.module ?? ""}`, moduleName: null },
    );
  }
  const groups = new Map<string, Group>();
  const groupOf = new Map<string, Group>();
  const iterationOf = new Map<string, { series: Group; index: number }>();
  const top: (Group | string)[] = [];
  // Module call groups, inside their iteration when they are in one.
  const callGroup = (call: ModuleInfo, parent: Group | null): Group => {
    let group = groups.get(call.id);
    if (!group) {
      group = newGroup({ id: call.id, boxId: moduleBoxId(call.id), kind: "module", title: call.name, subtitle: `${call.type} module`, module: call, parent });
      groups.set(call.id, group);
      (parent ? parent.items : top).push(group);
    }
    return group;
  };
  const place = (unit: number, parent: Group | null): void => {
    const call = unitCall[unit] ?? null;
    for (const id of unitNodes[unit] ?? []) {
      if (call) {
        const group = callGroup(call, parent);
        group.items.push(id);
        groupOf.set(id, group);
      } else {
        (parent ? parent.items : top).push(id);
        if (parent) groupOf.set(id, parent);
      }
    }
  };
  // A run of lone operations is a loop when each repetition reads the one before it.
  const unitOf = new Map<string, number>();
  unitNodes.forEach((ids, u) => ids.forEach((id) => unitOf.set(id, u)));
  const inputs = new Map<string, string[]>();
  for (const e of graph.edges) {
    const list = inputs.get(e.dst);
    if (list) list.push(e.src);
    else inputs.set(e.dst, [e.src]);
  }
  const chained = (run: { start: number; period: number; count: number }): boolean => {
    for (let k = 1; k < run.count; k++) {
      const from = run.start + (k - 1) * run.period;
      const to = from + run.period;
      const reads = (u: number): boolean =>
        (unitNodes[u] ?? []).some((id) => (inputs.get(id) ?? []).some((src) => {
          const v = unitOf.get(src);
          return v !== undefined && v >= from && v < to;
        }));
      let found = false;
      for (let u = to; u < to + run.period && !found; u++) found = reads(u);
      if (!found) return false;
    }
    return true;
  };
  const runs = findRuns(units, chained);
  let next = 0;
  runs.forEach((run, k) => {
    for (; next < run.start; next++) place(next, null);
    const lastUnit = unitNodes[run.start + run.period - 1] ?? [];
    const output = byNode.get(lastUnit[lastUnit.length - 1] ?? "");
    const title = seriesTitle(units, run, output ? nodeWord(output) : "…");
    const series = newGroup({
      id: `repeat:${k}`,
      boxId: `repeat:${k}`,
      kind: "repeat",
      title: `${title} ×${run.count}`,
      subtitle: `${run.count} iterations, t = 0 … ${run.count - 1}`,
      module: null,
      parent: null,
    });
    series.count = run.count;
    groups.set(series.id, series);
    top.push(series);
    for (let t = 0; t < run.count; t++) {
      const id = `repeat:${k}:t${t}`;
      const iteration = newGroup({ id, boxId: id, kind: "iteration", title: `t = ${t}`, subtitle: `iteration ${t + 1} of ${run.count}`, module: null, parent: series });
      iteration.index = t;
      groups.set(id, iteration);
      series.items.push(iteration);
      for (let u = 0; u < run.period; u++) {
        const unit = run.start + t * run.period + u;
        place(unit, iteration);
        for (const nodeId of unitNodes[unit] ?? []) iterationOf.set(nodeId, { series, index: t });
      }
    }
    next = run.start + run.period * run.count;
  });
  for (; next < unitNodes.length; next++) place(next, null);
  // Leaves join the innermost group around all their consumers (a module only takes its own
  // parameters: an input fed to a layer stays outside it).
  const depthOf = (g: Group | null): number => (g ? 1 + depthOf(g.parent) : 0);
  const common = (a: Group | null, b: Group | null): Group | null => {
    let x = a;
    let y = b;
    while (depthOf(x) > depthOf(y)) x = x?.parent ?? null;
    while (depthOf(y) > depthOf(x)) y = y?.parent ?? null;
    while (x !== y) {
      x = x?.parent ?? null;
      y = y?.parent ?? null;
    }
    return x;
  };
  const leafItems: { id: string; group: Group | null }[] = [];
  for (const id of order) {
    const node = byNode.get(id);
    if (!node?.is_leaf) continue;
    const users = consumers.get(id) ?? [];
    let group: Group | null = users.length ? (groupOf.get(users[0] ?? "") ?? null) : null;
    for (const user of users.slice(1)) group = common(group, groupOf.get(user) ?? null);
    const own = owners.get(id);
    while (group && group.kind === "module" && !(node.requires_grad && (!own || own.id === group.id))) group = group.parent;
    leafItems.push({ id, group });
  }
  for (const { id, group } of leafItems) {
    if (group) {
      group.items.unshift(id);
      groupOf.set(id, group);
      const it = group.kind === "iteration" ? group.index : null;
      if (it !== null && group.parent) iterationOf.set(id, { series: group.parent, index: it });
    } else top.unshift(id);
  }
  // A module call of one node is no group (a ReLU); an iteration that is one module call is
  // that call, titled with its index; an iteration of one node is that node.
  const simplify = (items: (Group | string)[], parent: Group | null): (Group | string)[] =>
    items.flatMap((item): (Group | string)[] => {
      if (typeof item === "string") return [item];
      item.items = simplify(item.items, item);
      const nodesIn = item.items.filter((i) => typeof i === "string").length + item.items.filter((i) => typeof i !== "string").length * 2;
      if (item.kind === "module" && nodesIn < 2) return dissolve(item, parent);
      if (item.kind === "iteration" && item.items.length === 1) {
        const only = item.items[0];
        groups.delete(item.id);
        if (typeof only === "string") {
          if (parent) groupOf.set(only, parent);
          return [only];
        }
        only.parent = parent;
        only.index = item.index;
        only.title = `${only.title} · t = ${item.index}`;
        return [only];
      }
      return [item];
    });
  const dissolve = (group: Group, parent: Group | null): (Group | string)[] => {
    groups.delete(group.id);
    for (const item of group.items) {
      if (typeof item === "string") {
        if (parent) groupOf.set(item, parent);
        else groupOf.delete(item);
      } else item.parent = parent;
    }
    return group.items;
  };
  const rankOf = new Map(order.map((id, i) => [id, i]));
  const firstRank = (item: Group | string): number =>
    typeof item === "string" ? (rankOf.get(item) ?? 0) : Math.min(...item.items.map(firstRank), Number.MAX_SAFE_INTEGER);
  const wordOf = (item: Group | string): string => {
    if (typeof item !== "string") return item.title;
    const n = byNode.get(item);
    return n ? nodeWord(n) : item;
  };
  // A level with more items than a view can read is cut into consecutive parts (recursively),
  // each a group: an unstructured chain of a thousand ops opens as a few dozen boxes, and a
  // series of 800 iterations as ranges of them (t = 0 … 39).
  const chunk = (items: (Group | string)[], parent: Group | null): (Group | string)[] => {
    for (const item of items) if (typeof item !== "string") item.items = chunk(item.items, item);
    if (items.length <= (parent?.kind === "repeat" ? SEGMENT.maxIterations : SEGMENT.maxItems)) return items;
    const sorted = [...items].sort((a, b) => firstRank(a) - firstRank(b));
    const size = Math.ceil(sorted.length / SEGMENT.parts);
    const parts: (Group | string)[] = [];
    for (let start = 0; start < sorted.length; start += size) {
      const slice = sorted.slice(start, start + size);
      const id = `part:${parent?.id ?? "top"}:${start}`;
      const computed = slice.filter((item) => typeof item !== "string" || !byNode.get(item)?.is_leaf);
      const last = computed[computed.length - 1] ?? slice[slice.length - 1];
      const indices = slice.flatMap((item) => (typeof item !== "string" && item.index !== null ? [item.index] : []));
      const title =
        parent?.kind === "repeat" && indices.length
          ? `t = ${Math.min(...indices)} … ${Math.max(...indices)}`
          : `${computed.length} steps → ${last ? wordOf(last) : "…"}`;
      const part = newGroup({ id, boxId: id, kind: "part", title, subtitle: `part ${parts.length + 1} of ${Math.ceil(sorted.length / size)}`, module: null, parent });
      groups.set(id, part);
      for (const item of slice) {
        if (typeof item === "string") groupOf.set(item, part);
        else item.parent = part;
      }
      part.items = chunk(slice, part);
      parts.push(part);
    }
    return parts;
  };
  const simplified = chunk(simplify(top, null), null);
  const fill = (group: Group): string[] => {
    group.members = group.items.flatMap((i) => (typeof i === "string" ? [i] : fill(i)));
    return group.members;
  };
  for (const item of simplified) if (typeof item !== "string") fill(item);
  const allCalls = new Map<string, ModuleInfo>();
  for (const [id, m] of owners) allCalls.set(id, m);
  return { groups, top: simplified, groupOf, iterationOf, callOf: allCalls };
}

/** Modules that can collapse: module calls that recorded at least two nodes. */
export function collapsibleModules(graph: Graph): Map<string, { module: ModuleInfo; members: string[] }> {
  const found = new Map<string, { module: ModuleInfo; members: string[] }>();
  for (const group of hierarchyOf(graph).groups.values()) if (group.module && group.kind === "module") found.set(group.id, { module: group.module, members: group.members });
  return found;
}

/** The groups around node `id`, innermost first. */
export function groupsAround(graph: Graph, id: string): Group[] {
  const around: Group[] = [];
  for (let g = hierarchyOf(graph).groupOf.get(id) ?? null; g; g = g.parent) around.push(g);
  return around;
}

/** The member whose value leaves the group: consumed outside it (or the root), latest computed. */
function outputOf(graph: Graph, members: string[], consumers: Map<string, string[]>, rank: Map<string, number>, leaf: (id: string) => boolean): string {
  const inside = new Set(members);
  const leaving = members.filter((id) => id === graph.root || (consumers.get(id) ?? []).some((dst) => !inside.has(dst)));
  const candidates = leaving.length ? leaving : members.filter((id) => !leaf(id));
  const pool = candidates.length ? candidates : members;
  return pool.reduce((best, id) => ((rank.get(id) ?? 0) > (rank.get(best) ?? 0) ? id : best));
}

/** The `data-group-kind` of a group's box and frame: a module call, a part of a long level, or
 * repetition (a series and its iterations). */
export function groupKindAttr(group: Group): "module" | "repeat" | "part" {
  return group.kind === "module" ? "module" : group.kind === "part" ? "part" : "repeat";
}

/** The drawing of `graph` with the groups in `expanded` open and every other one shut. */
export function displayGraph(graph: Graph, expanded: ReadonlySet<string>): DisplayGraph {
  const h = hierarchyOf(graph);
  const byNode = new Map(graph.nodes.map((n) => [n.id, n]));
  const consumers = consumersOf(graph);
  const rank = new Map(forwardOrder(graph).map((id, i) => [id, i]));
  const leaf = (id: string): boolean => byNode.get(id)?.is_leaf ?? false;
  const boxOf = new Map<string, string>();
  const nodes: DisplayNode[] = [];
  const frames: ModuleFrame[] = [];
  const emit = (items: (Group | string)[], parent: string | null, open: boolean): void => {
    for (const item of items) {
      if (typeof item === "string") {
        const node = byNode.get(item);
        if (!node) continue;
        boxOf.set(item, item);
        const iteration = open ? (h.iterationOf.get(item)?.index ?? null) : null;
        nodes.push({ id: item, node, members: [item], module: h.callOf.get(item) ?? null, group: null, collapsed: false, params: [], parent, iteration });
      } else if (!expanded.has(item.id)) {
        const output = byNode.get(outputOf(graph, item.members, consumers, rank, leaf));
        if (!output) continue;
        for (const member of item.members) boxOf.set(member, item.boxId);
        nodes.push({
          id: item.boxId,
          node: output,
          members: [...item.members],
          module: item.module,
          group: item,
          collapsed: true,
          params: item.members.map((m) => byNode.get(m)).filter((n): n is GraphNode => n !== undefined && n.is_leaf && n.requires_grad),
          parent,
          iteration: null,
        });
      } else {
        frames.push({ id: item.boxId, group: item, module: item.module, members: item.members, parent });
        emit(item.items, item.boxId, open || item.kind === "repeat");
      }
    }
  };
  emit(h.top, null, false);
  const edges: DisplayEdge[] = [];
  const between = new Map<string, DisplayEdge>();
  for (const edge of graph.edges as GraphEdge[]) {
    const src = boxOf.get(edge.src);
    const dst = boxOf.get(edge.dst);
    if (!src || !dst || src === dst) continue;
    const grouped = src !== edge.src || dst !== edge.dst;
    const key = `${src}\u0000${dst}`;
    const known = grouped ? between.get(key) : undefined;
    if (known) {
      known.merged?.add(`${edge.src}→${edge.dst}`);
      continue;
    }
    const drawn: DisplayEdge = { src, dst, arg: edge.arg, graphSrc: edge.src, graphDst: edge.dst, merged: grouped ? new Set([`${edge.src}→${edge.dst}`]) : null };
    if (grouped) between.set(key, drawn);
    edges.push(drawn);
  }
  return { nodes, edges, frames, boxOf };
}

/** The innermost group a walk step's node lies in (null when none). */
export function stepModule(graph: Graph, position: number): string | null {
  const step = graph.walk[position - 1];
  if (!step) return null;
  return hierarchyOf(graph).groupOf.get(step.node)?.id ?? null;
}

/** The iteration of a series that node `id` lies in ("cell ×20", t = 17), null outside any. */
export function iterationOf(graph: Graph, id: string | null): { series: string; index: number; count: number } | null {
  const found = id ? hierarchyOf(graph).iterationOf.get(id) : undefined;
  return found ? { series: found.series.title, index: found.index, count: found.series.count ?? 0 } : null;
}

/**
 * Stepping over a module: from walk position `position`, the position after the run of steps
 * that belong to the same collapsible module as the next step (just the next step when it belongs
 * to none). `direction` -1 steps back over the run that ends at `position`.
 */
export function stepOverTarget(graph: Graph, position: number, direction: 1 | -1): { position: number; from: number; module: string | null } {
  const total = graph.walk.length;
  if (direction === 1) {
    if (position >= total) return { position: total, from: total - 1, module: null };
    const module = stepModule(graph, position + 1);
    let end = position + 1;
    while (module && end < total && stepModule(graph, end + 1) === module) end++;
    return { position: end, from: position, module };
  }
  if (position <= 0) return { position: 0, from: 0, module: null };
  // Back: undo the run that ends here, then show the run before it as one step too.
  const here = stepModule(graph, position);
  let start = position;
  while (here && start > 1 && stepModule(graph, start - 1) === here) start--;
  const target = start - 1;
  if (target <= 0) return { position: 0, from: 0, module: null };
  const before = stepModule(graph, target);
  let from = target - 1;
  while (before && from > 0 && stepModule(graph, from) === before) from--;
  return { position: target, from, module: before };
}

/**
 * The drawn edge each flow travels back along (-1 for a flow inside a collapsed module): the edge
 * from the receiver into the sender, on the same argument when the server says which.
 */
export function matchFlowEdges(display: DisplayGraph, flows: { from: string; to: string; arg: number | null }[]): number[] {
  const index = edgesByGraphEdge(display);
  const used = new Set<number>();
  return flows.map((flow) => {
    const found = (index.get(`${flow.to}→${flow.from}`) ?? []).find((i) => {
      const e = display.edges[i];
      if (!e) return false;
      return e.merged !== null || (!used.has(i) && (flow.arg === null || e.arg === null || e.arg === flow.arg));
    });
    if (found === undefined) return -1;
    if (!display.edges[found]?.merged) used.add(found);
    return found;
  });
}

const edgeIndexes = new WeakMap<DisplayGraph, Map<string, number[]>>();

/** The drawn edges by the graph edge (`src→dst`) they draw, made once per drawing. */
function edgesByGraphEdge(display: DisplayGraph): Map<string, number[]> {
  let index = edgeIndexes.get(display);
  if (!index) {
    index = new Map();
    display.edges.forEach((e, i) => {
      for (const key of e.merged ?? [`${e.graphSrc}→${e.graphDst}`]) {
        const list = index?.get(key);
        if (list) list.push(i);
        else index?.set(key, [i]);
      }
    });
    edgeIndexes.set(display, index);
  }
  return index;
}
