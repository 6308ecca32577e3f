/**
 * The answer's passes as the server packs them (server/program/packing.py), decoded into the
 * Graphs the page draws. DOM-free.
 *
 * Kept passes that share a structure (a training loop's: the same graph with new numbers) arrive
 * as that structure once (`structures`: nodes without `value`/`grad`, edges, modules, root ...)
 * and, per pass, its index, its numbers in the structure's node order (`values`, `grads`) and
 * its own keys (`walk`, `pass_index`, `compare`). A pass's Graph is its structure with the
 * numbers put back and its own keys added: exactly the graph the engine exported.
 */
import type { Graph, GraphNode, GraphStructure, NotebookRunResponse, PackedPasses, PassValues, RunResponse, WireNotebookRunResponse, WireRunResponse } from "./types";

/** Thrown for packed passes that do not fit together (a structure that is not there ...). */
export class PackingError extends Error {}

const OWN = new Set(["structure", "values", "grads"]);

/** One pass's whole Graph. */
export function decodePass(structures: readonly GraphStructure[], pass: PassValues): Graph {
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
  return graph as unknown as Graph;
}

/** The passes and the graph to show, as Graphs (`graph` its own object, as JSON would give). */
export function decodePasses(packed: PackedPasses): { graph: Graph | null; passes: Graph[] } {
  const structures = packed.structures ?? [];
  const passes = (packed.passes ?? []).map((pass) => decodePass(structures, pass));
  let graph = packed.graph ?? null;
  const shown = packed.graph_pass;
  if (graph === null && shown !== null && shown !== undefined) {
    const pass = packed.passes[shown];
    if (!pass) throw new PackingError(`graph_pass ${shown} of ${packed.passes.length} passes`);
    graph = decodePass(structures, pass);
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
