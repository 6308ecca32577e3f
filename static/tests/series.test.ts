/** Repetition collapses: a loop's iterations and a module called again and again form a series. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { displayGraph, groupsAround, hierarchyOf, iterationOf, stepModule } from "../src/graph/modules";
import { findRuns, type Unit } from "../src/graph/series";
import type { Graph, GraphNode, ModuleInfo } from "../src/api/types";
import { expansionAt } from "../src/walk/navigation";

/** A node of a synthetic graph (`n<index>`, recorded in that order). */
function node(index: number, op: string, extra: Partial<GraphNode> = {}): GraphNode {
  const leaf = op === "leaf";
  return {
    id: `n${index}`,
    name: null,
    op,
    grad_fn: leaf ? null : `${op}Backward0`,
    is_leaf: leaf,
    requires_grad: true,
    shape: [],
    dtype: "torch.float32",
    value: 1,
    grad: null,
    ...extra,
  };
}

/** `h = tanh(x[t] @ W + h)` unrolled `steps` times, then `loss = sum(h)`. */
function manualLoop(steps: number): Graph {
  const nodes: GraphNode[] = [node(0, "leaf", { name: "W" }), node(1, "leaf", { name: "xs", requires_grad: false })];
  const edges: Graph["edges"] = [];
  let h: string | null = null;
  for (let t = 0; t < steps; t++) {
    const base = nodes.length;
    nodes.push(node(base, "select"), node(base + 1, "matmul"), node(base + 2, "add"), node(base + 3, "tanh", { name: "h" }));
    edges.push({ src: "n1", dst: `n${base}`, arg: 0 }, { src: `n${base}`, dst: `n${base + 1}`, arg: 0 }, { src: "n0", dst: `n${base + 1}`, arg: 1 });
    edges.push({ src: `n${base + 1}`, dst: `n${base + 2}`, arg: 0 });
    if (h) edges.push({ src: h, dst: `n${base + 2}`, arg: 1 });
    edges.push({ src: `n${base + 2}`, dst: `n${base + 3}`, arg: 0 });
    h = `n${base + 3}`;
  }
  const root = nodes.length;
  nodes.push(node(root, "sum", { name: "loss" }));
  edges.push({ src: h ?? "n0", dst: `n${root}`, arg: 0 });
  // The walk: the loss, then each iteration's nodes from the last one back.
  const walk = [...nodes].reverse().filter((n) => !n.is_leaf).map((n) => ({ node: n.id, grad_output: 1, formula: "", contributions: [] }));
  return { nodes, edges, walk, root: `n${root}` } as Graph;
}

/** An RNN cell (two ops) called `steps` times: module calls `cell`, `cell#2`, … */
function cellCalls(steps: number): Graph {
  const modules: ModuleInfo[] = [];
  const nodes: GraphNode[] = [node(0, "leaf", { name: "cell.weight", module: "cell", module_id: "cell" })];
  const edges: Graph["edges"] = [];
  let h: string | null = null;
  for (let t = 0; t < steps; t++) {
    const id = t === 0 ? "cell" : `cell#${t + 1}`;
    modules.push({ id, name: "cell", type: "RNNCell", parent: null });
    const base = nodes.length;
    nodes.push(node(base, "linear", { module: "cell", module_id: id }), node(base + 1, "tanh", { module: "cell", module_id: id }));
    edges.push({ src: "n0", dst: `n${base}`, arg: 1 }, { src: `n${base}`, dst: `n${base + 1}`, arg: 0 });
    if (h) edges.push({ src: h, dst: `n${base}`, arg: 0 });
    h = `n${base + 1}`;
  }
  const root = nodes.length;
  nodes.push(node(root, "mean", { name: "loss" }));
  edges.push({ src: h ?? "n0", dst: `n${root}`, arg: 0 });
  const walk = [...nodes].reverse().filter((n) => !n.is_leaf).map((n) => ({ node: n.id, grad_output: 1, formula: "", contributions: [] }));
  return { nodes, edges, walk, root: `n${root}`, modules } as Graph;
}

const unit = (signature: string, moduleName: string | null = null): Unit => ({ signature, moduleName });

test("runs: the block that repeats over the most units, after a preamble; short repeats stay", () => {
  const seq = ["a", "b", "c", "b", "c", "b", "c", "d"].map((s) => unit(s));
  assert.deepEqual(findRuns(seq), [{ start: 1, period: 2, count: 3 }]);
  // x·x + x·x: two products stay two boxes; one op six times in a row is a series.
  assert.deepEqual(findRuns(["mul", "mul", "add"].map((s) => unit(s))), []);
  assert.deepEqual(findRuns(Array.from({ length: 6 }, () => unit("tanh"))), [{ start: 0, period: 1, count: 6 }]);
  // w·x + b + (−1)·y is no loop: its products and sums come twice, not three times.
  assert.deepEqual(findRuns(["mul", "add", "mul", "add", "mul"].map((s) => unit(s))), []);
  // Three unrelated `x·y + z` are no loop either: no repetition reads the one before it.
  const three = ["mul", "add", "mul", "add", "mul", "add"].map((s) => unit(s));
  assert.deepEqual(findRuns(three, () => false), []);
  assert.deepEqual(findRuns(three), [{ start: 0, period: 2, count: 3 }]);
  // A module called twice is already a series.
  assert.deepEqual(findRuns([unit("M|cell", "cell"), unit("M|cell", "cell")]), [{ start: 0, period: 1, count: 2 }]);
});

test("a manual loop's 30 iterations are one series box; opened, its iterations t = 0 … 29", () => {
  const graph = manualLoop(30);
  const h = hierarchyOf(graph);
  const series = h.groups.get("repeat:0");
  assert.ok(series);
  assert.equal(series.kind, "repeat");
  assert.equal(series.count, 30);
  assert.match(series.title, /×30$/);
  const shut = displayGraph(graph, new Set());
  // W, xs (inside: only the loop reads them), the series, the loss.
  assert.ok(shut.nodes.length <= 4, shut.nodes.map((n) => n.id).join(" "));
  const box = shut.nodes.find((n) => n.id === "repeat:0");
  assert.ok(box?.collapsed);
  assert.equal(box.node.name, "h"); // the box shows the last iteration's output
  const open = displayGraph(graph, new Set(["repeat:0"]));
  const iterations = open.nodes.filter((n) => n.group?.kind === "iteration");
  assert.equal(iterations.length, 30);
  assert.deepEqual(
    iterations.map((n) => n.group?.index),
    Array.from({ length: 30 }, (_, t) => t),
  );
  assert.equal(iterations[17]?.group?.title, "t = 17");
  assert.deepEqual(open.frames.map((f) => f.id), ["repeat:0"]);
});

test("the walk inside iteration 17 opens the series and that iteration; the caption knows t", () => {
  const graph = manualLoop(30);
  const position = graph.walk.findIndex((s) => iterationOf(graph, s.node)?.index === 17) + 1;
  assert.ok(position > 1);
  const active = graph.walk[position - 1]?.node ?? null;
  assert.equal(iterationOf(graph, active)?.index, 17);
  assert.equal(stepModule(graph, position), "repeat:0:t17");
  const open = expansionAt(graph, new Set(), position, null);
  assert.deepEqual([...open].sort(), ["repeat:0", "repeat:0:t17"]);
  const display = displayGraph(graph, open);
  assert.equal(display.boxOf.get(active ?? ""), active); // the active node is drawn as itself
  assert.equal(display.nodes.find((n) => n.id === active)?.iteration, 17);
  // Left behind: at the loss (step 1) every group is shut again.
  assert.deepEqual([...expansionAt(graph, new Set(), 1, null)], []);
});

test("an RNN cell called 20 times is `cell ×20`; each call, opened, is `cell · t = k`", () => {
  const graph = cellCalls(20);
  const series = hierarchyOf(graph).groups.get("repeat:0");
  assert.equal(series?.title, "cell ×20");
  const shut = displayGraph(graph, new Set());
  assert.deepEqual(shut.nodes.map((n) => n.id).sort(), ["n41", "repeat:0"]); // weight inside, loss
  const open = displayGraph(graph, new Set(["repeat:0"]));
  const calls = open.nodes.filter((n) => n.group?.kind === "module");
  assert.equal(calls.length, 20);
  assert.equal(calls[3]?.group?.title, "cell · t = 3");
  assert.equal(calls[3]?.module?.id, "cell#4");
  const inner = groupsAround(graph, "n8").map((g) => g.id); // the linear of the 4th call
  assert.deepEqual(inner, ["cell#4", "repeat:0"]);
});

test("a 5,000-node loop is one series of 1,250 iterations", () => {
  const graph = manualLoop(1250);
  assert.equal(hierarchyOf(graph).groups.get("repeat:0")?.count, 1250);
  assert.ok(displayGraph(graph, new Set()).nodes.length <= 4);
});

test("a level too long to read is cut into parts: 1,250 iterations open as ranges t = a … b", () => {
  const graph = manualLoop(1250);
  const open = displayGraph(graph, new Set(["repeat:0"]));
  const parts = open.nodes.filter((n) => n.group?.kind === "part");
  assert.ok(parts.length > 1 && parts.length <= 40, String(parts.length));
  assert.match(parts[0]?.group?.title ?? "", /^t = 0 … \d+$/);
  // The walk deep inside still opens just the way down to its node.
  const position = graph.walk.findIndex((s) => iterationOf(graph, s.node)?.index === 700) + 1;
  const path = [...expansionAt(graph, new Set(), position, null)];
  const drawn = displayGraph(graph, new Set(path));
  assert.ok(drawn.nodes.length < 120, String(drawn.nodes.length));
});
