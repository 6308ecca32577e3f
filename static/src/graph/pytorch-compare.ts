/**
 * "Compare with PyTorch" for graphs drawn from the program's own autograd objects (a
 * micrograd-style Value): the button that asks the server to check them against PyTorch's rules,
 * the marks on the drawn nodes (`data-compare="agrees|differs|not_comparable"`, a "≠ PyTorch" tag
 * on the ones that differ), and a one-line summary. The server does the comparing; this module
 * only shows what it said. User text (names) is set with textContent.
 */
import { byId } from "../common/dom";
import { formatShort } from "../common/format";
import type { Graph, GraphNode } from "../api/types";

const SVG_NS = "http://www.w3.org/2000/svg";
/** How many differing nodes the summary names before it says "and N more". */
const NAMED = 3;

/** True when the graph was drawn from the program's own autograd objects. */
export function isValueGraph(graph: Graph | null | undefined): boolean {
  return Boolean(graph?.value_class);
}

function word(node: GraphNode): string {
  return node.name ?? node.label ?? node.id;
}

/** The summary of a compared graph ("PyTorch agrees on 9 nodes; err differs ..."), or null. */
export function compareSummary(graph: Graph | null): string | null {
  const counts = graph?.compare;
  if (!graph || !counts) return null;
  if (counts.skipped) return `Not compared with PyTorch: ${counts.skipped}.`;
  const differs = graph.nodes.filter((n) => n.compare === "differs");
  const agrees = counts.agrees ?? 0;
  const unknown = counts.not_comparable ?? 0;
  const parts = [`PyTorch's rules agree on ${agrees} of ${graph.nodes.length} nodes`];
  if (differs.length) {
    const named = differs.slice(0, NAMED).map((n) => `${word(n)} (yours ${formatShort(n.grad)}, PyTorch's ${formatShort(n.compare_grad ?? null)})`);
    const more = differs.length > NAMED ? ` and ${differs.length - NAMED} more` : "";
    parts.push(`${differs.length} ${differs.length === 1 ? "differs" : "differ"}: ${named.join(", ")}${more}`);
  }
  const replaced = graph.nodes.filter((n) => n.compare === "replaced");
  if (replaced.length) {
    const named = replaced.slice(0, NAMED).map(word).join(", ");
    const more = replaced.length > NAMED ? ` and ${replaced.length - NAMED} more` : "";
    parts.push(
      `${named}${more} ${replaced.length === 1 ? "holds" : "hold"} this pass's gradient but replaced what an earlier pass left (never zeroed; PyTorch would add to it)`,
    );
  }
  if (unknown) parts.push(`${unknown} cannot be compared (see a node's details)`);
  return `${parts.join("; ")}.`;
}

/** Mark each drawn node of `svg` with its comparison; clears the marks when `graph` has none. */
export function markCompared(svg: SVGSVGElement, graph: Graph | null): void {
  const byIdMap = new Map((graph?.nodes ?? []).map((n) => [n.id, n]));
  for (const group of svg.querySelectorAll<SVGGElement>("g[data-node-id]")) {
    group.querySelector(":scope > .compare-tag")?.remove();
    group.querySelector(":scope > title.compare-title")?.remove();
    const node = byIdMap.get(group.dataset.nodeId ?? "");
    if (!node?.compare) {
      delete group.dataset.compare;
      continue;
    }
    group.dataset.compare = node.compare;
    const title = document.createElementNS(SVG_NS, "title");
    title.classList.add("compare-title");
    title.textContent =
      node.compare === "differs"
        ? `differs from PyTorch: yours ${formatShort(node.grad)}, PyTorch's rules ${formatShort(node.compare_grad ?? null)}`
        : node.compare === "agrees"
          ? "agrees with PyTorch"
          : node.compare === "replaced"
            ? `this pass's gradient, but ${node.compare_reason ?? "it replaced what it held"}`
            : `not comparable: ${node.compare_reason ?? ""}`;
    group.prepend(title);
    if (node.compare === "differs") group.append(differsTag(group));
  }
}

/** A "≠ PyTorch" tag straddling the top edge of the node's box. */
function differsTag(group: SVGGElement): SVGGElement {
  const box = group.querySelector<SVGRectElement>(".node-box");
  const x = Number(box?.getAttribute("x") ?? 0);
  const y = Number(box?.getAttribute("y") ?? 0);
  const width = Number(box?.getAttribute("width") ?? 80);
  const tag = document.createElementNS(SVG_NS, "g");
  tag.classList.add("compare-tag");
  tag.setAttribute("transform", `translate(${x + width - 86},${y - 11})`);
  const rect = document.createElementNS(SVG_NS, "rect");
  for (const [k, v] of Object.entries({ width: 80, height: 18, rx: 9 })) rect.setAttribute(k, String(v));
  const text = document.createElementNS(SVG_NS, "text");
  for (const [k, v] of Object.entries({ x: 40, y: 13, "text-anchor": "middle" })) text.setAttribute(k, String(v));
  text.textContent = "≠ PyTorch";
  tag.append(rect, text);
  return tag;
}

/** The button (shown only for Value graphs) and the summary line under the graph. */
export class CompareControl {
  private readonly button = byId("compare", HTMLButtonElement);
  private readonly summary = byId("compare-summary", HTMLElement);
  /** Called with the new setting when the user presses the button. */
  onToggle: (on: boolean) => void = () => {};

  /** `isOn` reads the shared state (the URL keeps the setting, so a link reopens it). */
  constructor(private readonly isOn: () => boolean) {
    this.button.addEventListener("click", () => this.onToggle(!this.isOn()));
  }

  /** Offer the button when some pass is a Value graph; summarise the shown `graph`. */
  show(passes: Graph[], graph: Graph | null): void {
    this.button.hidden = !passes.some(isValueGraph);
    this.button.setAttribute("aria-pressed", String(this.isOn()));
    const text = this.isOn() ? compareSummary(graph) : null;
    this.summary.hidden = text === null;
    this.summary.textContent = text ?? "";
    this.summary.classList.toggle("differs", Boolean(graph?.compare?.differs));
  }
}
