/**
 * The graph view: builds plain SVG from a graph and its layout (build once per run), then
 * updates classes and gradient text for each walk frame (update per step). Pan/zoom in panzoom.ts.
 */
import { ERROR_TAG, NODE, ZOOM } from "./config";
import { formatShort, clip } from "./format";
import { isUntracked, kindOf, nodeRows, type ForwardFrame, type WalkFrame } from "./graphmodel";
import type { LayoutResult, Point } from "./layout";
import { PanZoom } from "./panzoom";
import type { Graph, GraphNode } from "./types";

const SVG_NS = "http://www.w3.org/2000/svg";

function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number> = {},
  parent?: Element,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) el.setAttribute(key, String(value));
  parent?.appendChild(el);
  return el;
}

/** A smooth path through dagre's edge points. */
function edgePath(points: Point[]): string {
  if (points.length === 0) return "";
  const [first, ...rest] = points;
  if (!first) return "";
  let d = `M${first.x},${first.y}`;
  for (let i = 0; i < rest.length - 1; i++) {
    const p = rest[i];
    const q = rest[i + 1];
    if (!p || !q) continue;
    d += ` Q${p.x},${p.y} ${(p.x + q.x) / 2},${(p.y + q.y) / 2}`;
  }
  const last = rest[rest.length - 1];
  if (last) d += ` L${last.x},${last.y}`;
  return d;
}

interface NodeElements {
  group: SVGGElement;
  /** Untracked nodes never receive a gradient. */
  untracked: boolean;
  grad: SVGTextElement;
  /** The value row, and its text once the forward pass has computed it. */
  value: SVGTextElement;
  valueText: string;
  width: number;
  height: number;
  badge: SVGGElement;
  badgeText: SVGTextElement;
}

interface EdgeElements {
  path: SVGPathElement;
  src: string;
  dst: string;
  arg: number;
  points: Point[];
}

export class GraphView {
  private readonly viewport: SVGGElement;
  private readonly edgeLayer: SVGGElement;
  private readonly nodeLayer: SVGGElement;
  private readonly flowLayer: SVGGElement;
  private readonly panzoom: PanZoom;
  private nodes = new Map<string, NodeElements>();
  private edges: EdgeElements[] = [];
  private layout: LayoutResult | null = null;
  private selected: string | null = null;

  /** Called with a node id when the user clicks a node, null when they click the background. */
  onSelect: (id: string | null) => void = () => {};
  /** Called when the pointer enters a node (with its position in the page) or leaves it (null). */
  onHover: (id: string | null, at: { x: number; y: number }) => void = () => {};

  constructor(readonly svg: SVGSVGElement) {
    const defs = svgEl("defs", {}, svg);
    for (const [id, cls] of [
      ["arrow", "arrow"],
      ["arrow-flow", "arrow arrow-flow"],
    ] as const) {
      const marker = svgEl(
        "marker",
        { id, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" },
        defs,
      );
      svgEl("path", { d: "M0,0 L10,5 L0,10 z", class: cls }, marker);
    }
    this.viewport = svgEl("g", { class: "viewport" }, svg);
    this.edgeLayer = svgEl("g", { class: "edges" }, this.viewport);
    this.nodeLayer = svgEl("g", { class: "nodes" }, this.viewport);
    this.flowLayer = svgEl("g", { class: "flows" }, this.viewport);
    this.panzoom = new PanZoom(svg, this.viewport);
    svg.addEventListener("click", (e) => {
      const target = (e.target as Element).closest("[data-node-id]");
      this.select(target?.getAttribute("data-node-id") ?? null);
    });
    svg.addEventListener("pointerover", (e) => {
      const target = (e.target as Element).closest("[data-node-id]");
      if (target) this.onHover(target.getAttribute("data-node-id"), { x: e.clientX, y: e.clientY });
    });
    svg.addEventListener("pointerout", (e) => {
      const from = (e.target as Element).closest("[data-node-id]");
      const to = (e.relatedTarget as Element | null)?.closest?.("[data-node-id]");
      if (from && from !== to) this.onHover(null, { x: e.clientX, y: e.clientY });
    });
  }

  /** Remove everything drawn. */
  clear(): void {
    this.edgeLayer.replaceChildren();
    this.nodeLayer.replaceChildren();
    this.flowLayer.replaceChildren();
    this.nodes.clear();
    this.edges = [];
    this.layout = null;
    this.selected = null;
  }

  /** Build the SVG for `graph` placed by `layout`. */
  render(graph: Graph, layout: LayoutResult): void {
    this.clear();
    this.layout = layout;
    graph.edges.forEach((edge, index) => {
      const points = layout.edges[index] ?? [];
      const path = svgEl("path", { class: "edge", d: edgePath(points), "marker-end": "url(#arrow)" }, this.edgeLayer);
      const source = graph.nodes.find((n) => n.id === edge.src);
      if (source && isUntracked(source)) path.classList.add("untracked");
      this.edges.push({ path, src: edge.src, dst: edge.dst, arg: edge.arg, points });
    });
    for (const node of graph.nodes) this.renderNode(node, graph.root, layout);
  }

  private renderNode(node: GraphNode, root: string | null, layout: LayoutResult): void {
    const box = layout.nodes[node.id];
    if (!box) return;
    const kind = kindOf(node, root);
    const group = svgEl("g", { class: `node kind-${kind}`, transform: `translate(${box.x},${box.y})` }, this.nodeLayer);
    group.dataset.nodeId = node.id;
    if (node.name) group.dataset.nodeName = node.name;
    if (isUntracked(node)) group.classList.add("untracked");
    const w = box.width;
    const h = box.height;
    const radius = kind === "op" ? Math.min(h / 2, 18) : NODE.radius;
    svgEl("rect", { class: "node-box", x: -w / 2, y: -h / 2, width: w, height: h, rx: radius }, group);
    const rows = nodeRows(node, root);
    const left = -w / 2 + 10;
    let y = -h / 2 + NODE.padding + NODE.rowHeight * 0.75;
    const row = (cls: string, text: string): SVGTextElement => {
      const t = svgEl("text", { class: cls, x: left, y }, group);
      t.textContent = text;
      y += NODE.rowHeight;
      return t;
    };
    row("node-title", rows.title);
    row("node-sub", rows.subtitle);
    const value = row("node-value", rows.value);
    const grad = row("node-grad", "grad ·");
    if (node.untracked_reason) row("node-reason", clip(node.untracked_reason, NODE.maxChars + 4));
    const badge = svgEl("g", { class: "node-badge", transform: `translate(${w / 2 - 4},${-h / 2})` }, group);
    svgEl("rect", { x: -30, y: -11, width: 34, height: 20, rx: 10 }, badge);
    const badgeText = svgEl("text", { x: -13, y: 4, "text-anchor": "middle" }, badge);
    this.nodes.set(node.id, { group, untracked: isUntracked(node), grad, value, valueText: rows.value, width: w, height: h, badge, badgeText });
  }

  /** Show a walk frame: the active node, known gradients, and the gradient flowing this step. */
  showFrame(frame: WalkFrame): void {
    for (const [id, els] of this.nodes) {
      const grad = frame.grads.get(id);
      const unknown = els.untracked ? "grad None" : "grad ·";
      els.grad.textContent = grad === undefined ? unknown : clip(`grad ${formatShort(grad)}`, NODE.maxChars + 4);
      els.group.classList.toggle("has-grad", grad !== undefined);
      els.group.classList.toggle("done", frame.done.has(id));
      els.group.classList.remove("receiving", "accumulating");
      els.badgeText.textContent = "";
      if (id === frame.active) els.group.dataset.walkActive = "true";
      else delete els.group.dataset.walkActive;
    }
    this.svg.classList.toggle("walking", frame.active !== null && frame.position < frame.total);
    for (const edge of this.edges) edge.path.classList.remove("flowing");
    this.flowLayer.replaceChildren();
    const used = new Set<EdgeElements>();
    for (const flow of frame.flows) {
      const target = this.nodes.get(flow.to);
      if (target) {
        target.group.classList.add("receiving");
        if (flow.accumulates) {
          target.group.classList.add("accumulating");
          target.badgeText.textContent = "+=";
        }
      }
      const edge = this.edges.find(
        (e) => e.src === flow.to && e.dst === flow.from && (flow.arg === null || e.arg === flow.arg) && !used.has(e),
      );
      if (!edge) continue;
      used.add(edge);
      edge.path.classList.add("flowing");
      this.drawFlowLabel(edge, `${flow.accumulates ? "+= " : ""}${formatShort(flow.grad)}`, used.size);
    }
    if (frame.active && this.layout) {
      const box = this.layout.nodes[frame.active];
      if (box) this.panzoom.ensureVisible(box);
    }
  }

  private drawFlowLabel(edge: EdgeElements, text: string, index: number): void {
    const mid = edge.points[Math.floor(edge.points.length / 2)];
    if (!mid) return;
    const group = svgEl("g", { class: "flow-label", transform: `translate(${mid.x},${mid.y + (index - 1) * 4})` }, this.flowLayer);
    const rect = svgEl("rect", { y: -10, height: 20, rx: 6 }, group);
    const label = svgEl("text", { y: 4, "text-anchor": "middle" }, group);
    label.textContent = clip(text, 22);
    const width = 12 + 7.2 * label.textContent.length;
    rect.setAttribute("x", String(-width / 2));
    rect.setAttribute("width", String(width));
  }

  /**
   * Show the forward replay: nodes not yet computed are dimmed with their value hidden, the node
   * just computed is outlined and its incoming edges lit. null ends the replay (every value shown).
   */
  showForward(frame: ForwardFrame | null): void {
    this.svg.classList.toggle("forwarding", frame !== null);
    for (const [id, els] of this.nodes) {
      const computed = frame === null || frame.computed.has(id);
      els.value.textContent = computed ? els.valueText : "= ·";
      if (frame === null) delete els.group.dataset.forward;
      else els.group.dataset.forward = computed ? "computed" : "pending";
      if (frame !== null && id === frame.active) els.group.dataset.forwardActive = "true";
      else delete els.group.dataset.forwardActive;
    }
    for (const edge of this.edges) edge.path.classList.toggle("forward-flowing", frame !== null && edge.dst === frame.active);
    if (frame?.active && this.layout) {
      const box = this.layout.nodes[frame.active];
      if (box) this.panzoom.ensureVisible(box);
    }
  }

  /** Mark the node an autograd error concerns: red outline, an "error here" tag (null clears). */
  markError(id: string | null): void {
    for (const [nodeId, els] of this.nodes) {
      const marked = nodeId === id;
      els.group.classList.toggle("error-node", marked);
      els.group.querySelector(".error-tag")?.remove();
      if (!marked) {
        delete els.group.dataset.errorNode;
        continue;
      }
      els.group.dataset.errorNode = "true";
      // Straddles the box's top edge on the left (the "+=" badge sits on the right).
      const tag = svgEl("g", { class: "error-tag", transform: `translate(${-els.width / 2 + 6},${-els.height / 2 - ERROR_TAG.height / 2 - 2})` }, els.group);
      svgEl("rect", { width: ERROR_TAG.width, height: ERROR_TAG.height, rx: ERROR_TAG.height / 2 }, tag);
      const text = svgEl("text", { x: ERROR_TAG.width / 2, y: ERROR_TAG.height / 2 + 4, "text-anchor": "middle" }, tag);
      text.textContent = ERROR_TAG.text;
      const box = this.layout?.nodes[nodeId];
      if (box) this.panzoom.ensureVisible(box);
    }
  }

  /** Select (outline) a node and tell the listener. */
  select(id: string | null): void {
    if (this.selected) this.nodes.get(this.selected)?.group.classList.remove("selected");
    this.selected = id && this.nodes.has(id) ? id : null;
    if (this.selected) this.nodes.get(this.selected)?.group.classList.add("selected");
    this.onSelect(this.selected);
  }

  /** Fit the whole graph into the view. */
  fit(): void {
    if (this.layout) this.panzoom.fit({ x: 0, y: 0, width: this.layout.width, height: this.layout.height });
  }

  /** Fit the graph, or when it is too big to read fitted, show node `focus` at a readable scale. */
  fitReadable(focus: string | null): void {
    if (!this.layout) return;
    const box = focus ? this.layout.nodes[focus] : undefined;
    if (box && this.panzoom.fitScale(this.layout) < ZOOM.minReadable) this.panzoom.centerOn(box, ZOOM.readable);
    else this.fit();
  }

  zoomBy(factor: number): void {
    this.panzoom.zoomBy(factor);
  }

  /** Content size, for exports. */
  get size(): { width: number; height: number } {
    return { width: this.layout?.width ?? 0, height: this.layout?.height ?? 0 };
  }
}
