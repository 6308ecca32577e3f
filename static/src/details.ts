/** The details panel: everything about the clicked node, full value and gradient included. */
import { el } from "./dom";
import { formatFull, formatShape } from "./format";
import { kindOf } from "./graphmodel";
import type { Graph, TensorValue } from "./types";

const KIND_TEXT = {
  param: "leaf that requires grad (a parameter)",
  const: "leaf constant (not tracked)",
  op: "operation",
  output: "output (the root of backward)",
} as const;

/** Fields shown explicitly; any other field the server adds (saved tensors ...) is listed after. */
const KNOWN = new Set(["id", "name", "op", "grad_fn", "is_leaf", "requires_grad", "shape", "dtype", "value", "grad", "kind", "untracked_reason"]);

export class DetailsPanel {
  constructor(
    private readonly panel: HTMLElement,
    private readonly body: HTMLElement,
    private readonly title: HTMLElement,
  ) {}

  /** Show node `id` of `graph` (hide when null); `walkGrad` is the gradient at the current step. */
  show(graph: Graph | null, id: string | null, walkGrad: TensorValue | undefined): void {
    const node = graph?.nodes.find((n) => n.id === id);
    if (!graph || !node) {
      this.panel.hidden = true;
      return;
    }
    this.panel.hidden = false;
    this.title.textContent = node.name ?? node.grad_fn ?? node.op ?? node.id;
    const rows: [string, string][] = [
      ["id", node.id],
      ["kind", KIND_TEXT[kindOf(node, graph.root)]],
      ["op", node.op ?? "—"],
      ["grad_fn", node.grad_fn ?? "None"],
      ["is_leaf", String(node.is_leaf)],
      ["requires_grad", String(node.requires_grad)],
      ["shape", formatShape(node.shape)],
      ["dtype", node.dtype],
      ["value", formatFull(node.value)],
      [".grad", formatFull(node.grad)],
    ];
    if (walkGrad !== undefined) rows.push(["gradient at this step", formatFull(walkGrad)]);
    if (node.untracked_reason) rows.push(["not tracked", node.untracked_reason]);
    for (const [key, value] of Object.entries(node)) {
      if (!KNOWN.has(key) && value !== null && value !== undefined) rows.push([key, JSON.stringify(value)]);
    }
    const list = el("dl");
    for (const [key, value] of rows) list.append(el("dt", "", key), el("dd", "", value));
    this.body.replaceChildren(list);
  }
}

/** The hover card: a node's name, operation, full value and gradient at the current step. */
export class HoverCard {
  constructor(
    private readonly card: HTMLElement,
    private readonly container: HTMLElement,
  ) {}

  show(graph: Graph | null, id: string | null, at: { x: number; y: number }, walkGrad: TensorValue | undefined): void {
    const node = graph?.nodes.find((n) => n.id === id);
    if (!graph || !node) {
      this.card.hidden = true;
      return;
    }
    const title = `${node.name ?? node.op ?? node.id}${node.grad_fn ? `  ${node.grad_fn}` : ""}`;
    const lines = [`value ${formatFull(node.value)}`, `grad  ${formatFull(walkGrad ?? node.grad)}`];
    if (node.untracked_reason) lines.push(`not tracked: ${node.untracked_reason}`);
    this.card.replaceChildren(el("strong", "", title), el("pre", "", lines.join("\n")));
    this.card.hidden = false;
    const box = this.container.getBoundingClientRect();
    const x = Math.min(at.x - box.left + 14, box.width - this.card.offsetWidth - 8);
    const y = Math.min(at.y - box.top + 14, box.height - this.card.offsetHeight - 8);
    this.card.style.left = `${Math.max(8, x)}px`;
    this.card.style.top = `${Math.max(8, y)}px`;
  }
}
