/**
 * The answer's passes as the server packs them (server/program/packing.py), decoded into the
 * Graphs the page draws. DOM-free.
 *
 * Kept passes that share a structure (a training loop's: the same graph with new numbers) arrive
 * as that structure once (`structures`: nodes without `value`/`grad`, edges, modules, root ...)
 * and, per pass, its index, its numbers in the structure's node order (`values`, `grads`) and
 * its own keys (`walk`, `pass_index`, `compare`). A pass's Graph is its structure with the
 * numbers put back and its own keys added: exactly the graph the engine exported. The walk does
 * not repeat what the numbers say: a step's `grad_output` left out is its node's gradient, a
 * contribution's `grad` left out is what the node it goes to holds, its `accumulated_grad` left
 * out equals its `grad` (a key left out means "the same as that"; null still means null). What is
 * left of a loop's walk is usually the same in every pass: a pass with `walk_from` sent none and
 * shares the walk of the earlier pass it names.
 */
import type { Contribution, Graph, GraphNode, GraphStructure, NotebookRunResponse, PackedPasses, PassValues, RunResponse, TensorValue, WalkStep, WireNotebookRunResponse, WireRunResponse } from "./types";

/** Thrown for packed passes that do not fit together (a structure that is not there ...). */
export class PackingError extends Error {}

const OWN = new Set(["structure", "values", "grads", "walk_from"]);

/** The walk with what the server left out (the gradients the pass's numbers hold) put back. */
function restoreWalk(nodes: readonly { id: string }[], grads: readonly TensorValue[], walk: readonly WalkStep[]): WalkStep[] {
  const index = new Map(nodes.map((node, i) => [node.id, i]));
  const held = (id: string): TensorValue => {
    const i = index.get(id);
    if (i === undefined) throw new PackingError(`the walk names ${id}, which is not in its structure`);
    return grads[i] ?? null;
  };
  return walk.map((step) => {
    // (on the wire these keys may be left out, which the Graph types do not say)
    const sent = step as unknown as Record<string, unknown>;
    const restored: WalkStep = { ...step };
    if (!("grad_output" in sent)) restored.grad_output = held(step.node);
    if (step.contributions) {
      restored.contributions = step.contributions.map((c) => {
        const given = c as unknown as Record<string, unknown>;
        const out: Contribution = { ...c };
        if (!("grad" in given)) out.grad = held(c.to);
        if (!("accumulated_grad" in given)) out.accumulated_grad = out.grad;
        return out;
      });
    }
    return restored;
  });
}

/** One pass's whole Graph (`passes`: the answer's, for a pass whose walk is another's). */
export function decodePass(structures: readonly GraphStructure[], pass: PassValues, passes: readonly PassValues[] = []): Graph {
  const structure = structures[pass.structure];
  if (!structure) throw new PackingError(`pass ${pass.pass_index ?? "?"} names structure ${pass.structure}, of ${structures.length}`);
  const { nodes, ...shared } = structure;
  const values = pass.values ?? [];
  const grads = pass.grads ?? [];
  if (values.length !== nodes.length || grads.length !== nodes.length) {
    throw new PackingError(`pass ${pass.pass_index ?? "?"}: ${values.length} values and ${grads.length} gradients for ${nodes.length} nodes`);
  }
  const graph: Record<string, unknown> = { ...shared };
  graph.nodes = nodes.map((node, i): GraphNode => ({ ...node, value: values[i] ?? null, grad: grads[i] ?? null }));
  for (const [key, value] of Object.entries(pass)) if (!OWN.has(key)) graph[key] = value;
  let walk = pass.walk;
  if (pass.walk_from !== null && pass.walk_from !== undefined) {
    const from = passes[pass.walk_from];
    if (!from || from.walk_from !== null && from.walk_from !== undefined || from.structure !== pass.structure) {
      throw new PackingError(`pass ${pass.pass_index ?? "?"} takes its walk from pass ${pass.walk_from}, which sent none for its structure`);
    }
    walk = from.walk;
  }
  if (walk) graph.walk = restoreWalk(nodes, grads, walk);
  return graph as unknown as Graph;
}

/** The passes and the graph to show, as Graphs (`graph` its own object, as JSON would give). */
export function decodePasses(packed: PackedPasses): { graph: Graph | null; passes: Graph[] } {
  const structures = packed.structures ?? [];
  const sent = packed.passes ?? [];
  const passes = sent.map((pass) => decodePass(structures, pass, sent));
  let graph = packed.graph ?? null;
  const shown = packed.graph_pass;
  if (graph === null && shown !== null && shown !== undefined) {
    const pass = packed.passes[shown];
    if (!pass) throw new PackingError(`graph_pass ${shown} of ${packed.passes.length} passes`);
    graph = decodePass(structures, pass, sent);
  }
  return { graph, passes };
}

function decoded<T extends PackedPasses>(wire: T): Omit<T, keyof PackedPasses> & { graph: Graph | null; passes: Graph[] } {
  const { structures: _structures, graph_pass: _shown, graph: _graph, passes: _passes, ...rest } = wire;
  return { ...rest, ...decodePasses(wire) };
}

/** A run's answer as the page reads it. */
export function decodeRunResponse(wire: WireRunResponse): RunResponse {
  return decoded(wire);
}

/** A notebook run's answer as the page reads it. */
export function decodeNotebookResponse(wire: WireNotebookRunResponse): NotebookRunResponse {
  return decoded(wire);
}
