/**
 * Where the walk goes (issue 19's "the walk where the learner looks"), DOM-free: a walk opens at
 * its first backward step, the loss's own (not at its end, away from the view), and a click on a
 * node moves it to the step that sends that node its gradient. The start of a walk view module:
 * the page's walk logic moves here from main.ts.
 */
import type { Graph } from "./types";

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
