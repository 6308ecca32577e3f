/**
 * DOM-free facts about a graph that the views need: each node's kind and text rows, and the
 * state of the backward walk at a position (which gradients are known, what flows where).
 * Everything is replayed from the server's recorded walk; nothing here computes a gradient.
 */
import { NODE } from "./config";
import { clip, formatShape, formatShort } from "./format";
import type { Graph, GraphNode, NodeKind, TensorValue } from "./types";

/** The node's kind, from the server when it says, else from the leaf / requires_grad flags. */
export function kindOf(node: GraphNode, root: string | null): NodeKind {
  if (node.kind) return node.kind;
  if (node.id === root) return "output";
  if (node.is_leaf) return node.requires_grad ? "param" : "const";
  return "op";
}

/** True when the node is not tracked by autograd (constant, no_grad, detach). */
export function isUntracked(node: GraphNode): boolean {
  return Boolean(node.untracked_reason) || (!node.requires_grad && !node.grad_fn);
}

/** Short operator label for an op node: "mul" for MulBackward0 when `op` is absent. */
export function opLabel(node: GraphNode): string {
  if (node.op) return node.op;
  if (node.grad_fn) return node.grad_fn.replace(/Backward\d*$/, "").toLowerCase();
  return node.is_leaf ? "leaf" : "op";
}

/** The text rows of a node box: title, subtitle, value; the gradient row is added by the view. */
export function nodeRows(node: GraphNode, root: string | null): { title: string; subtitle: string; value: string } {
  const kind = kindOf(node, root);
  const title = node.name ?? node.label ?? (kind === "param" || kind === "const" ? "tensor" : opLabel(node));
  const shape = node.shape && node.shape.length ? ` ${formatShape(node.shape)}` : "";
  let subtitle: string;
  if (node.value_class) subtitle = `your ${node.value_class}${node.is_leaf ? "" : ` · ${node.op ?? "op"}`}`;
  else if (node.grad_fn) subtitle = node.name ? `${opLabel(node)} · ${node.grad_fn}` : node.grad_fn;
  else if (kind === "param") subtitle = "leaf · requires_grad";
  else subtitle = node.untracked_reason ? "untracked" : "constant";
  return {
    title: clip(title, NODE.maxChars),
    subtitle: clip(subtitle + shape, NODE.maxChars + 4),
    value: clip(`= ${formatShort(node.value)}`, NODE.maxChars + 4),
  };
}

/** Rows a node box holds (title, subtitle, value, grad, and the untracked reason if any). */
export function nodeRowCount(node: GraphNode): number {
  return 4 + (node.untracked_reason ? 1 : 0);
}

/** Height of a node box in SVG units. */
export function nodeHeight(node: GraphNode): number {
  return nodeRowCount(node) * NODE.rowHeight + 2 * NODE.padding;
}

/** A gradient arriving at a node during the active step. */
export interface Flow {
  from: string;
  to: string;
  /** Argument index of the edge the gradient flows back along, when the server says. */
  arg: number | null;
  localSymbolic: string | null;
  grad: TensorValue;
  local: string;
  accumulated: TensorValue;
  /** True when the receiver gets gradient from more than one consumer in this walk. */
  accumulates: boolean;
}

/** The walk's state at `position` (0 = before the backward pass, N = every step done). */
export interface WalkFrame {
  position: number;
  total: number;
  /** The node of the current step, or null at position 0. */
  active: string | null;
  /** Gradient each node has received so far. */
  grads: Map<string, TensorValue>;
  /** Nodes whose step has already run (their gradient is complete and passed on). */
  done: Set<string>;
  /** The current step's contributions. */
  flows: Flow[];
  formula: string | null;
  gradOutput: TensorValue;
}

/** Number of times each node receives a contribution over the whole walk. */
export function receiptCounts(graph: Graph): Map<string, number> {
  const counts = new Map<string, number>();
  for (const step of graph.walk) {
    for (const c of step.contributions) counts.set(c.to, (counts.get(c.to) ?? 0) + 1);
  }
  return counts;
}

/** Replay the recorded walk up to `position`. */
export function walkFrame(graph: Graph, position: number, receipts: Map<string, number>): WalkFrame {
  const total = graph.walk.length;
  const pos = Math.max(0, Math.min(total, position));
  const grads = new Map<string, TensorValue>();
  const done = new Set<string>();
  for (let i = 0; i < pos; i++) {
    const step = graph.walk[i];
    if (!step) continue;
    if (!grads.has(step.node)) grads.set(step.node, step.grad_output);
    for (const c of step.contributions) grads.set(c.to, c.accumulated_grad);
    if (i < pos - 1) done.add(step.node);
  }
  const current = pos > 0 ? graph.walk[pos - 1] : undefined;
  if (current) grads.set(current.node, current.grad_output);
  if (pos === total) {
    // The end of the walk: leaves' .grad as the engine left them (it may hold earlier passes too).
    for (const node of graph.nodes) if (node.grad !== null && node.grad !== undefined && node.is_leaf) grads.set(node.id, node.grad);
    if (current) done.add(current.node);
  }
  const flows: Flow[] = (current?.contributions ?? []).map((c) => ({
    from: current?.node ?? "",
    to: c.to,
    arg: c.arg ?? null,
    localSymbolic: c.local_symbolic ?? null,
    grad: c.grad,
    local: c.local,
    accumulated: c.accumulated_grad,
    accumulates: (receipts.get(c.to) ?? 0) > 1,
  }));
  return {
    position: pos,
    total,
    active: current?.node ?? null,
    grads,
    done,
    flows,
    formula: current?.formula ?? null,
    gradOutput: current?.grad_output ?? null,
  };
}

/** Node ids in the order the forward pass computed them (ids n0, n1, ... are topological). */
export function forwardOrder(graph: Graph): string[] {
  const rank = (id: string): number => {
    const match = /(\d+)$/.exec(id);
    return match ? Number(match[1]) : Number.MAX_SAFE_INTEGER;
  };
  // A stable sort: ids without a number keep the server's order, after the numbered ones.
  return graph.nodes.map((n) => n.id).sort((a, b) => rank(a) - rank(b));
}

/** How a node reads in text: its name, else its label, else its operator. */
function nodeWord(node: GraphNode): string {
  return node.name ?? node.label ?? (node.is_leaf ? "tensor" : opLabel(node));
}

/** The node as an expression of its inputs: "y = exp(x)", "x · x" (an unnamed result), "t" (a leaf). */
export function nodeExpression(graph: Graph, id: string): string {
  const node = graph.nodes.find((n) => n.id === id);
  if (!node) return id;
  const inputs = graph.edges
    .filter((e) => e.dst === id)
    .sort((a, b) => a.arg - b.arg)
    .map((e) => graph.nodes.find((n) => n.id === e.src))
    .filter((n): n is GraphNode => n !== undefined)
    .map(nodeWord);
  if (inputs.length === 0) return nodeWord(node);
  const call = `${opLabel(node)}(${inputs.join(", ")})`;
  if (node.name) return `${node.name} = ${call}`;
  return node.label ?? call;
}

/** The forward replay at `position`: the first `position` nodes of `order` are computed. */
export interface ForwardFrame {
  position: number;
  total: number;
  /** Nodes whose value is known. */
  computed: Set<string>;
  /** The node computed by the latest step (null at position 0). */
  active: string | null;
}

/** Replay the forward pass up to `position` (values come from the graph; nothing is computed). */
export function forwardFrame(order: string[], position: number): ForwardFrame {
  const pos = Math.max(0, Math.min(order.length, position));
  return {
    position: pos,
    total: order.length,
    computed: new Set(order.slice(0, pos)),
    active: pos > 0 ? (order[pos - 1] ?? null) : null,
  };
}
