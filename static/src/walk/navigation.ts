/**
 * The walk view's decisions, DOM-free (walk/view.ts draws them): which of a response's graphs the
 * pass picker shows, where a pass opens (its first backward step, the loss's own, not its end, away
 * from the view), where a click on a node moves the walk (to the step that sends that node its
 * gradient), which modules are open at a position, what "step over" offers, and which node the
 * view centres on.
 */
import { groupsAround, hierarchyOf, stepModule } from "../graph/modules";
import type { Graph, GraphNode } from "../api/types";

/** What a run answers that the walk view replays (the playground's and the notebook's). */
export interface Replayable {
  ok: boolean;
  graph: Graph | null;
  passes: Graph[];
  passes_total?: number | null;
  error: { node?: string | null; type?: string } | null;
}

/** The learner stopped the run (Stop): nothing failed, its last pass is where it stopped. */
export function stoppedByLearner(response: Replayable | null): boolean {
  return response?.error?.type === "KeyboardInterrupt";
}

/** The graphs a response offers to replay: each kept pass, then the graph a failed call left. */
export function viewsOf(response: Replayable | null): Graph[] {
  if (!response) return [];
  const passes = response.passes ?? [];
  if (!response.graph) return passes;
  if (passes.length === 0) return [response.graph];
  return response.ok || stoppedByLearner(response) ? passes : [...passes, response.graph];
}

/** The pass picker's choice: its graphs, their keys, the one shown. */
export interface PassChoice {
  views: Graph[];
  /** A pass is known by its index in the program; the graph a failed call left, by -1. */
  keys: number[];
  index: number;
  /** The last view is the graph a failed call left (after the passes before it). */
  failedLast: boolean;
  graph: Graph | null;
}

/** The pass keyed `wanted` (a link's, the picker's), else the last one. */
export function choosePass(response: Replayable | null, wanted: number | null): PassChoice {
  const views = viewsOf(response);
  const failedLast = response !== null && !response.ok && !stoppedByLearner(response) && views.length > 1;
  const keys = views.map((g, i) => (failedLast && i === views.length - 1 ? -1 : (g.pass_index ?? i)));
  const found = wanted === null ? -1 : keys.indexOf(wanted);
  const index = found >= 0 ? found : views.length - 1;
  return { views, keys, index, failedLast, graph: views[index] ?? null };
}

/** The node of `graph` the response's error names (only in the graph the error happened in). */
export function errorNodeIn(response: Replayable | null, graph: Graph | null): string | null {
  if (!graph || !response?.error?.node || graph !== response.graph) return null;
  return response.error.node;
}

/** The node of `graph` (any pass shown) that the response's error names. */
export function failedNode(response: Replayable | null, graph: Graph | null): GraphNode | undefined {
  const id = response?.error?.node;
  return id ? graph?.nodes.find((n) => n.id === id) : undefined;
}

/**
 * The groups open at walk position `position`: the ones the user opened, and every group the walk
 * is inside (a series, its iteration, the module call in it), unless a step over a shut group is
 * being shown (`overFrom`): then the groups around it, not it.
 */
export function expansionAt(graph: Graph, expanded: ReadonlySet<string>, position: number, overFrom: number | null): Set<string> {
  const open = new Set(expanded);
  const step = graph.walk[position - 1];
  if (step && position > 0 && position < graph.walk.length) {
    const around = groupsAround(graph, step.node);
    for (const group of overFrom === null ? around : around.slice(1)) open.add(group.id);
  }
  return open;
}

/** A set of open modules as one comparable string (a drawing is redone when it changes). */
export function expansionKey(expansion: Iterable<string>): string {
  return [...expansion].sort().join("\n");
}

/** `m`: every group open (modules and series), or none when any is. */
export function toggledAll(graph: Graph, expanded: ReadonlySet<string>): Set<string> {
  return expanded.size > 0 ? new Set() : new Set(hierarchyOf(graph).groups.keys());
}

/** The groups drawn around node `node` (a click on it keeps them open). */
export function modulesAround(graph: Graph, node: string): string[] {
  return groupsAround(graph, node).map((group) => group.id);
}

/** "Step over" is offered while the next step is inside a group that is shut (named here). */
export function stepOverOffer(graph: Graph | null, position: number, expanded: ReadonlySet<string>): { offer: boolean; name: string | null } {
  const next = graph ? stepModule(graph, position + 1) : null;
  const group = next && graph ? hierarchyOf(graph).groups.get(next) : undefined;
  return { offer: next !== null && !expanded.has(next), name: group?.title ?? null };
}

/** The node a freshly drawn graph opens around: the step's (inside the walk), the error's, the root. */
export function openingFocus(graph: Graph, position: number, errorNode: string | null): string | null {
  const active = position > 0 && position < graph.walk.length ? (graph.walk[position - 1]?.node ?? null) : null;
  return active ?? errorNode ?? graph.root;
}

/**
 * The node the view centres on when the graph does not fit: the active step's once the user
 * moves the walk (or while the walk is inside the pass); else the error's node or the root (the
 * end of the walk is shown from the top, not from its last step).
 */
export function focusNode(
  graph: Graph | null,
  frame: { position: number; total: number; active: string | null } | null,
  walkMoved: boolean,
  errorNode: string | null,
): string | null {
  const active = frame && (walkMoved || frame.position < frame.total) ? frame.active : null;
  return active ?? errorNode ?? graph?.root ?? null;
}

/**
 * The position a pass opens at: the one a link asked for (clamped to the walk), else 1, the
 * first backward step (the loss receives ∂L/∂L = 1 and sends it on), or 0 without a walk.
 */
export function openingPosition(total: number, asked: number | null): number {
  if (asked !== null) return Math.max(0, Math.min(total, asked));
  return total > 0 ? 1 : 0;
}

/** What the URL records for walk position `position`: null for the opening position. */
export function recordedStep(position: number, total: number): number | null {
  return position === openingPosition(total, null) ? null : position;
}

/**
 * The walk positions at which node `id` receives a gradient: each step that sends it one (a
 * node used twice receives twice), else its own step (the root's: it receives the seed, 1).
 */
export function positionsSendingTo(graph: Graph, id: string): number[] {
  const found: number[] = [];
  graph.walk.forEach((step, i) => {
    if (step.contributions.some((c) => c.to === id)) found.push(i + 1);
  });
  if (found.length === 0) {
    const own = graph.walk.findIndex((step) => step.node === id);
    if (own >= 0) found.push(own + 1);
  }
  return found;
}

/**
 * Where a click on node `id` moves the walk from `current`: the first step that sends it its
 * gradient, or, when the walk is already at one of them, the next one (round again after the
 * last); null when no step does (a constant, a node outside the walk).
 */
export function positionForNode(graph: Graph, id: string, current: number): number | null {
  const positions = positionsSendingTo(graph, id);
  if (positions.length === 0) return null;
  const at = positions.indexOf(current);
  if (at < 0) return positions[0] ?? null;
  return positions[(at + 1) % positions.length] ?? null;
}
