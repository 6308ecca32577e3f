/**
 * DOM-free facts about a graph that the views need: each node's kind, words and text rows, and
 * the state of the backward walk at a position (which gradients are known, what flows where).
 * Everything is replayed from the server's recorded walk; nothing here computes a gradient.
 *
 * One source of truth per step: the node boxes, the hover card, the details panel, the caption
 * and the contribution rows all read a step's numbers from the `WalkFrame` built here.
 */
import { formatShape, formatShort, normalizeNumbers, sameValue } from "../common/format";
import type { Graph, GraphNode, NodeKind, TensorValue, WalkStep } from "../api/types";

/** The node's kind, from the server when it says, else from the leaf / requires_grad flags. */
export function kindOf(node: GraphNode, root: string | null): NodeKind {
  if (node.kind) return node.kind;
  if (node.id === root) return "output";
  if (node.is_leaf) return node.requires_grad ? "param" : "const";
  return "op";
}

/** True when the node is not tracked by autograd (constant, no_grad, detach). */
export function isUntracked(node: GraphNode): boolean {
  if (node.kind === "error") return false;
  return Boolean(node.untracked_reason) || (!node.requires_grad && !node.grad_fn);
}

/** Short operator label for an op node: "mul" for MulBackward0 when `op` is absent. */
export function opLabel(node: GraphNode): string {
  if (node.op && node.op !== "leaf") return node.op;
  if (node.grad_fn) return node.grad_fn.replace(/Backward\d*$/, "").toLowerCase();
  return node.is_leaf ? "tensor" : "op";
}

/** How a node reads in text: the user's name, else the label derived from the source, else its op. */
export function nodeWord(node: GraphNode): string {
  return node.name ?? node.label ?? opLabel(node);
}

/** `word` as something `.grad` can follow: "(err * err)" for an expression, "w" for a name. */
export function gradOwner(word: string): string {
  return /^[\w.[\]#]+(\(.*\))?$/.test(word) && !/^\(/.test(word) ? word : `(${word})`;
}

/** The text rows of a node box, before the walk adds its gradient row. */
export interface NodeRows {
  title: string;
  subtitle: string;
  value: string;
  /** The untracked reason or, for a failed op, its operands' shapes. */
  note: string | null;
}

/** "(3, 2) @ (3, 2)"-style text for the operands a failed op was given. */
export function operandText(node: GraphNode): string | null {
  const shapes = node.operand_shapes;
  if (!shapes || shapes.length === 0) return null;
  return `operands ${shapes.map((s) => (s ? formatShape(s) : "?")).join(", ")}`;
}

/** The untracked reason of a tensor made without requires_grad: nothing more to say than "constant". */
const PLAIN_CONSTANT = "requires_grad=False";

/**
 * Rows for `node`; `title` overrides the title (a module's name); `shown` is how many elements of
 * a tensor value the row may list.
 */
export function nodeRows(node: GraphNode, root: string | null, title?: string, shown?: number): NodeRows {
  const kind = kindOf(node, root);
  const shape = node.shape && node.shape.length ? ` ${formatShape(node.shape)}` : "";
  let subtitle: string;
  if (kind === "error") subtitle = `${opLabel(node)} failed here`;
  else if (node.value_class) subtitle = `your ${node.value_class}${node.is_leaf ? "" : ` · ${node.op ?? "op"}`}${shape}`;
  else if (node.grad_fn) subtitle = `${node.grad_fn}${shape}`;
  else if (kind === "param") subtitle = `leaf, requires grad${shape}`;
  else subtitle = `${node.untracked_reason && node.untracked_reason !== PLAIN_CONSTANT ? "not tracked" : "constant"}${shape}`;
  const value = kind === "error" ? "= (not computed)" : `= ${formatShort(node.value, shown)}`;
  // A plain constant says so in its subtitle; other reasons (no_grad, detach) get their own row.
  const reason = node.untracked_reason && node.untracked_reason !== PLAIN_CONSTANT ? node.untracked_reason : null;
  const note = kind === "error" ? operandText(node) : reason;
  return { title: title ?? nodeWord(node), subtitle, value, note };
}

/**
 * Text of the gradient row: "grad −24", "grad ·" (not reached yet), "grad None" (not tracked, or
 * no backward pass ran: `walked` false).
 */
export function gradRowText(node: GraphNode, grad: TensorValue | undefined, walked = true, shown?: number, asked = false): string {
  // Practice mode: asked for, so hidden; what it held before the step shows where `+=` adds.
  if (asked) return grad !== undefined ? `grad ${formatShort(grad, shown)} += ?` : "grad ?";
  if (grad !== undefined) return `grad ${formatShort(grad, shown)}`;
  return !walked || isUntracked(node) || node.kind === "error" ? "grad None" : "grad ·";
}

/** A gradient arriving at a node during the shown step(s). */
export interface Flow {
  /** The node whose backward sent it, and the node receiving it. */
  from: string;
  to: string;
  /** Argument index of the edge the gradient flows back along, when the server says. */
  arg: number | null;
  localSymbolic: string | null;
  local: string;
  /** What this contribution sends, and the receiver's gradient after adding it. */
  grad: TensorValue;
  accumulated: TensorValue;
  /** True when the receiver already held a gradient (earlier in this walk or from an earlier pass). */
  accumulates: boolean;
}

/** The walk's state at `position` (0 = before the backward pass, N = every step done). */
export interface WalkFrame {
  position: number;
  total: number;
  /** The node of the current step, or null at position 0. */
  active: string | null;
  /** Gradient each node has received so far: the one value every view shows. */
  grads: Map<string, TensorValue>;
  /** Nodes whose step has already run (their gradient is complete and passed on). */
  done: Set<string>;
  /** The steps shown: the current one, or a collapsed module's steps taken as one. */
  steps: WalkStep[];
  /** Their contributions, in order. */
  flows: Flow[];
  /** One caption line per contribution (numbers in the page's one format). */
  formulaLines: string[];
  /** Practice mode: the nodes whose gradient the learner is asked for at this step (hidden
   * everywhere until answered), each with the gradient it held before the step. */
  asked?: Map<string, TensorValue | undefined>;
}

/** For each contribution of the walk, whether its receiver already held a gradient. */
export function accumulationMarks(graph: Graph): boolean[][] {
  const seen = new Set<string>();
  return graph.walk.map((step) =>
    step.contributions.map((c) => {
      const accumulates = seen.has(c.to) || !sameValue(c.grad, c.accumulated_grad);
      seen.add(c.to);
      return accumulates;
    }),
  );
}

/** The caption lines of a step, its numbers re-set in the page's format. */
export function formulaLines(step: WalkStep): string[] {
  if (!step.formula) return [];
  return step.formula.split("\n").map((line) => normalizeNumbers(line.trim())).filter((line) => line !== "");
}

/**
 * Replay the recorded walk up to `position`. `from` (default `position - 1`) is where the shown
 * steps start: a collapsed module stepped over as one step shows steps `from+1 .. position`.
 */
export function walkFrame(graph: Graph, position: number, marks: boolean[][], from?: number): WalkFrame {
  const total = graph.walk.length;
  const pos = Math.max(0, Math.min(total, position));
  const start = Math.max(0, Math.min(pos - 1, from ?? pos - 1));
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
  const steps: WalkStep[] = [];
  const flows: Flow[] = [];
  const lines: string[] = [];
  for (let i = pos > 0 ? start : pos; i < pos; i++) {
    const step = graph.walk[i];
    if (!step) continue;
    steps.push(step);
    lines.push(...formulaLines(step));
    step.contributions.forEach((c, k) => {
      flows.push({
        from: step.node,
        to: c.to,
        arg: c.arg ?? null,
        localSymbolic: c.local_symbolic ?? null,
        local: normalizeNumbers(String(c.local)),
        grad: c.grad,
        accumulated: c.accumulated_grad,
        accumulates: marks[i]?.[k] ?? false,
      });
    });
  }
  return { position: pos, total, active: current?.node ?? null, grads, done, steps, flows, formulaLines: lines };
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

/** The node as an expression of its inputs: "y = exp(x)", "x · x" (an unnamed result), "t" (a leaf). */
export function nodeExpression(graph: Graph, id: string): string {
  const node = graph.nodes.find((n) => n.id === id);
  if (!node) return id;
  const inputs = graph.edges
    .filter((e) => e.dst === id)
    .sort((a, b) => (a.arg ?? 0) - (b.arg ?? 0))
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
