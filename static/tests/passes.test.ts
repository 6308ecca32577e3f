/** The answer's packed passes decoded into the Graphs the engine exported (api/decode-passes.ts). */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { decodeNotebookResponse, decodePass, decodeRunResponse, PackingError } from "../src/api/decode-passes";
import type { GraphStructure, PassValues, RunResponse, WireNotebookRunResponse, WireRunResponse } from "../src/api/types";

const read = (name: string): unknown => JSON.parse(readFileSync(`tests/e2e/fixtures/${name}`, "utf8"));
// A real answer of a 3-step training loop then one scalar pass (2 structures, 4 passes), as the
// server sent it, and the same answer decoded by the server's own unpack_answer (Python).
const wire = read("packed_run.json") as WireRunResponse;
const expected = read("packed_run_decoded.json") as RunResponse;

test("a real packed answer decodes to exactly what the server's unpack_answer gives", () => {
  assert.equal(wire.structures.length, 2);
  assert.deepEqual(
    wire.passes.map((p) => p.structure),
    [0, 0, 0, 1],
  );
  const decoded = decodeRunResponse(wire);
  assert.deepEqual(decoded, expected);
  assert.equal("structures" in decoded, false);
  assert.equal("graph_pass" in decoded, false);
});

test("the walk's gradients the numbers already hold are left out on the wire and put back", () => {
  const sent = wire.passes[0]?.walk ?? [];
  const steps = sent.map((step) => step as unknown as Record<string, unknown>);
  assert.ok(steps.length > 0 && steps.every((step) => !("grad_output" in step)));
  const contributions = sent.flatMap((step) => step.contributions).map((c) => c as unknown as Record<string, unknown>);
  assert.ok(contributions.some((c) => !("accumulated_grad" in c)));
  assert.ok(contributions.some((c) => !("grad" in c)));
  const walk = decodeRunResponse(wire).passes[0]?.walk ?? [];
  const nodes = decodeRunResponse(wire).passes[0]?.nodes ?? [];
  for (const step of walk) {
    assert.deepEqual(step.grad_output, nodes.find((n) => n.id === step.node)?.grad);
    for (const c of step.contributions) assert.ok("grad" in c && "accumulated_grad" in c);
  }
});

test("the graph shown is the pass graph_pass names, as an object of its own", () => {
  const decoded = decodeRunResponse(wire);
  assert.equal(wire.graph, null);
  assert.equal(wire.graph_pass, 3);
  assert.deepEqual(decoded.graph, decoded.passes[3]);
  assert.notEqual(decoded.graph, decoded.passes[3]);
  assert.equal(decoded.graph?.walk.length, decoded.passes[3]?.walk.length);
});

test("passes that share a structure get its nodes with their own numbers", () => {
  const decoded = decodeRunResponse(wire);
  const [a, b] = decoded.passes;
  assert.ok(a && b);
  assert.deepEqual(
    a.nodes.map((n) => n.id),
    b.nodes.map((n) => n.id),
  );
  assert.deepEqual(
    a.nodes.map((n) => n.label),
    b.nodes.map((n) => n.label),
  );
  // the optimizer moved the weights between passes: the values differ, the structure does not
  const weight = (i: number) => decoded.passes[i]?.nodes.find((n) => n.label === "model.weight")?.value;
  assert.notDeepEqual(weight(0), weight(1));
  assert.deepEqual(
    decoded.passes.map((g) => g.pass_index),
    [0, 1, 2, 3],
  );
});

const structure: GraphStructure = {
  nodes: [{ id: "n0", name: "w", op: "leaf", grad_fn: null, is_leaf: true, requires_grad: true, shape: [], dtype: "torch.float32" }],
  edges: [],
  root: "n0",
  root_label: "w",
};
const pass = (values: PassValues["values"]): PassValues => ({ structure: 0, pass_index: 0, values, grads: [1], walk: [] });

test("a pass is its structure with value and grad put back and its own keys added", () => {
  const graph = decodePass([structure], { ...pass([0.5]), compare: { agrees: 1 } });
  assert.deepEqual(graph, {
    edges: [],
    root: "n0",
    root_label: "w",
    nodes: [{ ...structure.nodes[0], value: 0.5, grad: 1 }],
    pass_index: 0,
    walk: [],
    compare: { agrees: 1 },
  });
});

test("an error's graph (not a pass) arrives whole and stays as it is", () => {
  const errorGraph = { nodes: [], edges: [], walk: [], root: null };
  const body = { ...wire, ok: false, graph: errorGraph, graph_pass: null };
  assert.equal(decodeRunResponse(body).graph, errorGraph);
  const notebook = { ...(body as unknown as WireNotebookRunResponse), cell: 1, cells: [] };
  assert.equal(decodeNotebookResponse(notebook).passes.length, 4);
});

test("packed passes that do not fit together are refused, not drawn wrong", () => {
  assert.throws(() => decodePass([structure], { ...pass([0.5]), structure: 1 }), PackingError);
  assert.throws(() => decodePass([structure], pass([0.5, 2])), PackingError);
  assert.throws(() => decodeRunResponse({ ...wire, graph: null, graph_pass: 9 }), PackingError);
});

test("a loop's passes share the first pass's walk, each with its own gradients put back", () => {
  assert.deepEqual(
    wire.passes.map((p) => p.walk_from ?? null),
    [null, 0, 0, null],
  );
  assert.ok(wire.passes.slice(1, 3).every((p) => !("walk" in p)));
  const decoded = decodeRunResponse(wire);
  const [first, second] = decoded.passes;
  assert.ok(first && second);
  assert.deepEqual(
    second.walk.map((step) => step.formula),
    first.walk.map((step) => step.formula),
  );
  for (const step of second.walk) assert.deepEqual(step.grad_output, second.nodes.find((n) => n.id === step.node)?.grad);
  assert.notDeepEqual(
    second.walk.map((step) => step.grad_output),
    first.walk.map((step) => step.grad_output),
  );
});

test("a pass that takes its walk from a pass that sent none, or of another structure, is refused", () => {
  const sent = [pass([0.5]), { ...pass([0.5]), walk_from: 0 }];
  assert.deepEqual(decodePass([structure], { ...pass([0.5]), walk_from: 0 }, sent).walk, []);
  assert.throws(() => decodePass([structure], { ...pass([0.5]), walk_from: 1 }, sent), PackingError);
  assert.throws(() => decodePass([structure], { ...pass([0.5]), walk_from: 5 }, sent), PackingError);
  assert.throws(() => decodePass([structure, structure], { ...pass([0.5]), walk_from: 0 }, [{ ...pass([0.5]), structure: 1 }]), PackingError);
});
