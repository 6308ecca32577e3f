/**
 * The details panel (everything about the clicked box) and the hover card (a glance at the box
 * under the pointer). Both read the gradient from the current walk frame, like the node box and
 * the caption, so every view shows the same step's number; and they never open together: while
 * the details panel is open the hover card stays shut.
 */
import { el } from "../common/dom";
import { formatFull, formatShape } from "../common/format";
import { kindOf, nodeWord, type WalkFrame } from "./model";
import type { DisplayNode } from "./modules";
import type { Graph, GraphNode, TensorValue } from "../api/types";

const KIND_TEXT = {
  param: "leaf that requires grad (a parameter)",
  const: "leaf constant (not tracked)",
  op: "operation",
  output: "output (the root of backward)",
  error: "the operation that failed (not computed)",
} as const;

/**
 * Fields shown explicitly, or kept out as the page's own bookkeeping (ids, a label's form inside a
 * formula, a Value's group): the panel names things as the program does, never by an internal
 * id. Any other field the server adds (saved tensors ...) is listed after.
 */
const KNOWN = new Set([
  "id", "name", "label", "ref", "op", "grad_fn", "is_leaf", "requires_grad", "shape", "dtype", "value", "grad", "kind",
  "untracked_reason", "module", "module_id", "module_path", "operand_shapes", "expression", "retains_grad",
  "value_class", "compare", "compare_grad", "compare_reason",
]);

/** The gradient `node` holds at `frame` as text ("not reached yet" before the walk gets there). */
export function gradAtText(node: GraphNode, frame: WalkFrame | null): string {
  const grad: TensorValue | undefined = frame ? frame.grads.get(node.id) : (node.grad ?? undefined);
  if (frame?.asked?.has(node.id)) return "? (asked: type it under the caption)";
  if (grad !== undefined) return formatFull(grad);
  if (node.kind === "error" || (!node.requires_grad && !node.grad_fn)) return "None (not tracked)";
  return frame && frame.position === 0 ? "· (no gradient before the backward pass)" : "· (not reached yet)";
}

/** "gradient at step 2 of 6" / "gradient after the backward pass" / "gradient". */
function gradLabel(frame: WalkFrame | null): string {
  if (!frame || frame.total === 0) return "gradient";
  if (frame.position >= frame.total) return "gradient after the backward pass";
  return `gradient at step ${frame.position} of ${frame.total}`;
}

export class DetailsPanel {
  private shown: string | null = null;

  constructor(
    private readonly panel: HTMLElement,
    private readonly body: HTMLElement,
    private readonly title: HTMLElement,
  ) {}

  /** True while the panel shows a box. */
  get open(): boolean {
    return !this.panel.hidden;
  }

  /** Show `box` of `graph` at `frame` (hide when null). */
  show(graph: Graph | null, box: DisplayNode | null, frame: WalkFrame | null): void {
    if (!graph || !box) {
      this.panel.hidden = true;
      this.shown = null;
      return;
    }
    const node = box.node;
    this.panel.hidden = false;
    this.panel.dataset.nodeId = box.id;
    const rows: [string, string][] = [];
    if (box.collapsed && box.module) {
      this.title.textContent = `${box.module.name} (${box.module.type})`;
      rows.push(["module", `${box.module.type} call, collapsed: click its box to expand`]);
      rows.push(["output", nodeWord(node)]);
    } else if (box.collapsed && box.group) {
      this.title.textContent = box.group.title;
      rows.push([box.group.kind === "part" ? "part" : "series", `${box.group.subtitle}, collapsed: click its box to expand`]);
      rows.push(["output", nodeWord(node)]);
    } else {
      this.title.textContent = nodeWord(node);
    }
    rows.push(
      ["kind", KIND_TEXT[kindOf(node, graph.root)]],
      ["grad_fn", node.grad_fn ?? "None"],
      ["is_leaf", String(node.is_leaf)],
      ["requires_grad", String(node.requires_grad)],
      ["shape", formatShape(node.shape)],
      ["dtype", node.dtype],
      ["value", node.kind === "error" ? "not computed" : formatFull(node.value)],
      [gradLabel(frame), gradAtText(node, frame)],
    );
    for (const param of box.params) rows.push([`${nodeWord(param)} ${gradLabel(frame).replace(/^gradient/, "grad")}`, gradAtText(param, frame)]);
    if (node.untracked_reason) rows.push(["not tracked", node.untracked_reason]);
    if (node.operand_shapes?.length) rows.push(["operand shapes", node.operand_shapes.map((s) => (s ? formatShape(s) : "?")).join(", ")]);
    if (node.module_path?.length) rows.push(["inside", node.module_path.join(" › ")]);
    for (const [key, value] of Object.entries(node)) {
      if (!KNOWN.has(key) && value !== null && value !== undefined) rows.push([key, JSON.stringify(value)]);
    }
    const list = el("dl");
    for (const [key, value] of rows) {
      const dd = el("dd", "", value);
      if (key.startsWith("gradient")) dd.dataset.testid = "details-grad";
      list.append(el("dt", "", key), dd);
    }
    if (this.shown !== box.id) this.body.scrollTop = 0;
    this.shown = box.id;
    this.body.replaceChildren(list);
  }
}

/** The hover card: a box's name, operation, full value and gradient at the current step. */
export class HoverCard {
  constructor(
    private readonly card: HTMLElement,
    private readonly container: HTMLElement,
  ) {}

  show(graph: Graph | null, box: DisplayNode | null, at: { x: number; y: number }, frame: WalkFrame | null): void {
    if (!graph || !box) {
      this.card.hidden = true;
      return;
    }
    const node = box.node;
    const name = box.collapsed && box.module ? `${box.module.name} (${box.module.type})` : box.collapsed && box.group ? box.group.title : nodeWord(node);
    const title = `${name}${node.grad_fn ? `  ${node.grad_fn}` : ""}`;
    const value = el("pre", "", `value ${node.kind === "error" ? "not computed" : formatFull(node.value)}`);
    const grad = el("pre", "", `grad  ${gradAtText(node, frame)}`);
    grad.dataset.testid = "hovercard-grad";
    const parts: HTMLElement[] = [el("strong", "", title), value, grad];
    if (node.untracked_reason) parts.push(el("pre", "", `not tracked: ${node.untracked_reason}`));
    this.card.replaceChildren(...parts);
    this.card.dataset.nodeId = box.id;
    this.card.hidden = false;
    const bounds = this.container.getBoundingClientRect();
    const x = Math.min(at.x - bounds.left + 14, bounds.width - this.card.offsetWidth - 8);
    const y = Math.min(at.y - bounds.top + 14, bounds.height - this.card.offsetHeight - 8);
    // CSSOM, not a style attribute: allowed by the page's CSP.
    this.card.style.left = `${Math.max(8, x)}px`;
    this.card.style.top = `${Math.max(8, y)}px`;
  }
}
