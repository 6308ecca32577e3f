/**
 * The graph view, in Netron's phases: `build` makes the SVG of each box and measures its text
 * (boxes are sized to it; text that would run past is cut), `place` puts the boxes, frames, edges
 * and edge-label slots where the layout says, and `showFrame` / `showForward` update classes and
 * the gradient text for each walk frame. Badges sit inside their box and gradients flowing back
 * are drawn in slots the layout reserved between ranks, so nothing covers a node's text.
 * Pan/zoom and the legible-size rule live in graph/panzoom.ts.
 */
import { ERROR_TAG, LAYOUT, NODE } from "../common/config";
import { formatShort } from "../common/format";
import { gradRowText, isUntracked, kindOf, nodeRows, nodeWord, type Flow, type ForwardFrame, type WalkFrame } from "./model";
import { bandSlot, freeBands, spreadApart } from "./edge-labels";
import type { Arrangement, Box, LayoutRequest, LayoutResult, Point } from "./layout";
import { TextMeasurer } from "./measure-text";
import { groupKindAttr, matchFlowEdges, type DisplayEdge, type DisplayNode } from "./modules";
import { PanZoom } from "./panzoom";
import type { Graph, TensorValue } from "../api/types";
import type { DisplayGraph, Group } from "./modules";

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

/** What the page tells the view about a graph before building it. */
export interface RenderInput {
  graph: Graph;
  display: DisplayGraph;
  /** For each walk step's contributions, whether the receiver already held a gradient. */
  marks: boolean[][];
  /** The graph node an error concerns (marked red, with a tag inside its box). */
  errorNode: string | null;
}

interface BoxElements {
  box: DisplayNode;
  group: SVGGElement;
  rect: SVGRectElement;
  untracked: boolean;
  title: string;
  subtitle: string;
  grad: SVGTextElement;
  value: SVGTextElement;
  valueText: string;
  badge: SVGGElement | null;
  width: number;
  height: number;
  /** Widest gradient text this box can show, so each frame's text fits. */
  gradWidth: number;
  /** The gradient value (and whether a walk exists) its text was last set from. */
  shownGrad?: TensorValue | undefined;
  shownWalked?: boolean;
  /** Practice mode: the gradient shown is asked for (hidden). */
  shownAsked?: boolean;
}

/** A drawn edge: its display edge, its path, its label's box and its route. */
interface EdgeElements extends DisplayEdge {
  path: SVGPathElement;
  label: Box | null;
  points: Point[];
}

/** Rows of text inside a box, top to bottom (the error tag, when present, takes the first). */
function rowY(index: number, height: number): number {
  return -height / 2 + NODE.padY + NODE.rowHeight * index + NODE.rowHeight * 0.72;
}

export class GraphView {
  private readonly viewport: SVGGElement;
  private readonly frameLayer: SVGGElement;
  private readonly edgeLayer: SVGGElement;
  private readonly nodeLayer: SVGGElement;
  private readonly flowLayer: SVGGElement;
  private readonly panzoom: PanZoom;
  private readonly measurer: TextMeasurer;
  private boxes = new Map<string, BoxElements>();
  private order: string[] = [];
  private edges: EdgeElements[] = [];
  private input: RenderInput | null = null;
  private layout: LayoutResult | null = null;
  private selected: string | null = null;
  private edgeLabels: ({ width: number; height: number } | null)[] = [];
  /** The previous drawing, shown while the next one is laid out. */
  private ghost: SVGGElement | null = null;

  /** Called with a box id when the user clicks or presses Enter on a box, null on the background. */
  onSelect: (id: string | null) => void = () => {};
  /** Called with a module id when the user opens a collapsed module or shuts an expanded one. */
  onToggleModule: (moduleId: string) => void = () => {};
  /** Called when zooming out went past the legible scale (the page may collapse a level). */
  onZoomOutPast: () => void = () => {};
  /** Called when the pointer enters a box (with its position in the page) or leaves it (null). */
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
    this.frameLayer = svgEl("g", { class: "frames" }, this.viewport);
    this.edgeLayer = svgEl("g", { class: "edges" }, this.viewport);
    this.nodeLayer = svgEl("g", { class: "nodes", role: "list", "aria-label": "Nodes of the graph", tabindex: -1 }, this.viewport);
    this.flowLayer = svgEl("g", { class: "flows" }, this.viewport);
    this.panzoom = new PanZoom(svg, this.viewport);
    this.panzoom.onZoomOutPast = () => this.onZoomOutPast();
    // Zoomed in well past the legible size over a collapsed group: it opens (semantic zoom).
    this.panzoom.onZoomIn = (at) => {
      const rect = svg.getBoundingClientRect();
      const hit = document.elementFromPoint(rect.left + at.x, rect.top + at.y)?.closest("[data-node-id]");
      const els = this.boxes.get(hit?.getAttribute("data-node-id") ?? "");
      if (els?.box.collapsed && els.box.group) this.onToggleModule(els.box.group.id);
    };
    this.measurer = new TextMeasurer(svg);
    svg.addEventListener("click", (e) => {
      const target = e.target as Element;
      const frame = target.closest("[data-frame-module]");
      if (frame) {
        this.onToggleModule(frame.getAttribute("data-frame-module") ?? "");
        return;
      }
      this.activate(target.closest("[data-node-id]")?.getAttribute("data-node-id") ?? null);
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
    this.nodeLayer.addEventListener("keydown", (e) => this.onNodeKey(e));
    this.nodeLayer.addEventListener("focusin", (e) => {
      const target = (e.target as Element).closest<SVGGElement>("[data-node-id]");
      if (target) this.rove(target.dataset.nodeId ?? null, false);
    });
  }

  /** A click or Enter on box `id`: a collapsed module opens, any other box is selected. */
  private activate(id: string | null): void {
    const els = id ? this.boxes.get(id) : undefined;
    if (els?.box.collapsed && els.box.group) {
      this.onToggleModule(els.box.group.id);
      return;
    }
    this.select(id);
  }

  /** Remove everything drawn. */
  clear(): void {
    this.ghost?.remove();
    this.ghost = null;
    this.viewport.classList.remove("building");
    this.frameLayer.replaceChildren();
    this.edgeLayer.replaceChildren();
    this.nodeLayer.replaceChildren();
    this.flowLayer.replaceChildren();
    this.boxes.clear();
    this.order = [];
    this.edges = [];
    this.input = null;
    this.layout = null;
    this.selected = null;
  }

  /**
   * Build and measure the boxes of `input` (not yet placed) and return what the layout needs:
   * their sizes, the room each edge's gradient label needs, and the directions to try in `pane`.
   */
  build(input: RenderInput, pane: { width: number; height: number }, directions: Arrangement[]): LayoutRequest {
    const ghost = this.keepAsGhost();
    this.clear();
    if (ghost) {
      this.ghost = ghost;
      this.viewport.insertBefore(ghost, this.frameLayer);
      this.viewport.classList.add("building");
    }
    this.input = input;
    const { graph, display, marks } = input;
    const accumulating = new Set<string>();
    const gradCandidates = new Map<string, TensorValue[]>();
    const candidate = (id: string, value: TensorValue) => {
      const list = gradCandidates.get(id) ?? [];
      list.push(value);
      gradCandidates.set(id, list);
    };
    graph.walk.forEach((step, i) => {
      candidate(step.node, step.grad_output);
      step.contributions.forEach((c, k) => {
        candidate(c.to, c.accumulated_grad);
        if (marks[i]?.[k]) accumulating.add(display.boxOf.get(c.to) ?? c.to);
      });
    });
    for (const node of graph.nodes) if (node.grad !== null && node.grad !== undefined) candidate(node.id, node.grad);
    const errorBox = input.errorNode ? (display.boxOf.get(input.errorNode) ?? null) : null;
    for (const box of display.nodes) {
      const gradTexts = [
        gradRowText(box.node, undefined),
        ...(gradCandidates.get(box.node.id) ?? []).map((v) => this.fitted((shown) => gradRowText(box.node, v, true, shown), "node-grad", NODE.maxTextWidth)),
      ];
      this.buildBox(box, graph.root, accumulating.has(box.id), box.id === errorBox, gradTexts);
    }
    const big = display.nodes.length > LAYOUT.bigGraph;
    {
      // Room on each edge for the widest gradient that will flow back along it.
      const widths = display.edges.map(() => 0);
      graph.walk.forEach((step, i) => {
        const flows = step.contributions.map((c, k) => ({ from: step.node, to: c.to, arg: c.arg ?? null, grad: c.grad, accumulates: marks[i]?.[k] ?? false }));
        matchFlowEdges(display, flows).forEach((edgeIndex, k) => {
          const flow = flows[k];
          if (edgeIndex < 0 || !flow) return;
          const text = flowText(flow.grad, flow.accumulates);
          widths[edgeIndex] = Math.max(widths[edgeIndex] ?? 0, this.measurer.width(text, "flow-text", "flow-label") + 14);
        });
      });
      this.edgeLabels = widths.map((w) => (w > 0 ? { width: Math.ceil(w), height: LAYOUT.labelHeight } : null));
    }
    // A box feeding more than FAN_OUT others (a weight used by every iteration of an open series)
    // keeps its first edge in the layout; the others are drawn straight (see LayoutRequest).
    const fanOut = new Set<number>();
    const outSeen = new Map<string, number>();
    const outDegree = new Map<string, number>();
    for (const e of display.edges) outDegree.set(e.src, (outDegree.get(e.src) ?? 0) + 1);
    display.edges.forEach((e, i) => {
      if ((outDegree.get(e.src) ?? 0) <= FAN_OUT) return;
      const seen = outSeen.get(e.src) ?? 0;
      outSeen.set(e.src, seen + 1);
      if (seen > 0) fanOut.add(i);
    });
    return {
      nodes: display.nodes.map((box) => {
        const els = this.boxes.get(box.id);
        return { id: box.id, width: els?.width ?? NODE.minWidth, height: els?.height ?? 60, parent: box.parent };
      }),
      edges: display.edges.map((e, i) => ({ src: e.src, dst: e.dst, label: this.edgeLabels[i] ?? null, laidOut: !fanOut.has(i) })),
      frames: display.frames.map((f) => ({ id: f.id, parent: f.parent, labelWidth: this.measurer.width(frameTitle(f.group), "frame-title", "frame") + 30 })),
      directions: big ? ["BT"] : directions,
      pane,
      options: LAYOUT,
    };
  }

  private buildBox(box: DisplayNode, root: string | null, accumulates: boolean, isError: boolean, gradTexts: string[]): void {
    const node = box.node;
    const kind = kindOf(node, root);
    const collapsedGroup = box.collapsed ? box.group : null;
    const title = collapsedGroup ? collapsedGroup.title : (node.name ?? (box.module ? box.module.name : undefined));
    const rows = nodeRows(node, root, title);
    if (collapsedGroup) {
      const shape = node.shape?.length ? ` → (${node.shape.join(", ")}${node.shape.length === 1 ? "," : ""})` : "";
      rows.subtitle = `${collapsedGroup.kind === "module" && collapsedGroup.module ? `${collapsedGroup.module.type} module` : collapsedGroup.subtitle}${shape}`;
      const held = box.params.map((p) => (collapsedGroup.kind === "module" ? (p.name ?? p.label ?? "param").split(".").pop() : nodeWord(p)));
      rows.note = held.length ? `holds ${held.length > 4 ? `${held.slice(0, 3).join(", ")} +${held.length - 3}` : held.join(", ")}` : null;
    } else if (box.module && !node.name) {
      rows.subtitle = `${box.module.type} · ${rows.subtitle}`;
    }
    if (box.iteration !== null) rows.subtitle = `t = ${box.iteration} · ${rows.subtitle}`;
    const group = svgEl("g", { class: `node kind-${kind}`, role: "listitem", tabindex: -1 }, this.nodeLayer);
    group.dataset.nodeId = box.id;
    if (node.name && !box.collapsed) group.dataset.nodeName = node.name;
    if (box.iteration !== null) group.dataset.iteration = String(box.iteration);
    if (collapsedGroup) {
      group.classList.add("module");
      group.dataset.groupKind = groupKindAttr(collapsedGroup);
      if (collapsedGroup.kind === "module" && collapsedGroup.module) group.dataset.moduleId = collapsedGroup.module.id;
      else group.dataset.groupId = collapsedGroup.id;
      if (collapsedGroup.count !== null) group.dataset.groupCount = String(collapsedGroup.count);
      if (collapsedGroup.index !== null) group.dataset.iteration = String(collapsedGroup.index);
      group.setAttribute("aria-expanded", "false");
    }
    if (isUntracked(node) && !box.collapsed) group.classList.add("untracked");
    const m = this.measurer;
    const badgeWidth = accumulates ? m.width("+=", "badge-text") + 12 : 0;
    const titleText = box.collapsed ? `▸ ${rows.title}` : rows.title;
    // A tensor lists as many elements as fit the widest box; the details panel has them all.
    rows.value = this.fitted((shown) => nodeRows(node, root, title, shown).value, "node-value", NODE.maxTextWidth);
    const errorWidth = isError ? m.width(ERROR_TAG.text, "error-text") + 16 : 0;
    const gradWidth = Math.max(...gradTexts.map((t) => m.width(t, "node-grad")));
    const natural = Math.max(
      m.width(titleText, "node-title") + (badgeWidth ? badgeWidth + NODE.badgeGap : 0),
      m.width(rows.subtitle, "node-sub"),
      m.width(rows.value, "node-value"),
      gradWidth,
      rows.note ? m.width(rows.note, "node-reason") : 0,
      errorWidth,
    );
    const inner = Math.min(NODE.maxTextWidth, Math.max(NODE.minWidth - 2 * NODE.padX, Math.ceil(natural)));
    const width = inner + 2 * NODE.padX;
    const rowCount = (isError ? 1 : 0) + 4 + (rows.note ? 1 : 0);
    const height = rowCount * NODE.rowHeight + 2 * NODE.padY;
    const radius = kind === "op" || kind === "output" ? Math.min(height / 2, 14) : NODE.radius;
    const rect = svgEl("rect", { class: "node-box", x: -width / 2, y: -height / 2, width, height, rx: radius }, group);
    const ring = NODE.focusGap;
    svgEl("rect", { class: "node-focus", x: -width / 2 - ring, y: -height / 2 - ring, width: width + 2 * ring, height: height + 2 * ring, rx: radius + ring }, group);
    const left = -width / 2 + NODE.padX;
    let row = 0;
    if (isError) {
      group.classList.add("error-node");
      group.dataset.errorNode = "true";
      const tag = svgEl("g", { class: "error-tag", transform: `translate(${left},${rowY(0, height) - NODE.rowHeight * 0.72 + 1})` }, group);
      svgEl("rect", { width: errorWidth, height: NODE.rowHeight - 2, rx: (NODE.rowHeight - 2) / 2 }, tag);
      const text = svgEl("text", { class: "error-text", x: errorWidth / 2, y: NODE.rowHeight * 0.72 - 1, "text-anchor": "middle" }, tag);
      text.textContent = ERROR_TAG.text;
      row++;
    }
    const text = (cls: string, content: string, maxWidth = inner): SVGTextElement => {
      const t = svgEl("text", { class: cls, x: left, y: rowY(row, height) }, group);
      t.textContent = m.fit(content, cls, maxWidth);
      row++;
      return t;
    };
    text("node-title", titleText, inner - (badgeWidth ? badgeWidth + NODE.badgeGap : 0));
    let badge: SVGGElement | null = null;
    if (badgeWidth) {
      // Inside the box, at the right end of the title row: it never covers another node's text.
      badge = svgEl("g", { class: "node-badge", transform: `translate(${width / 2 - NODE.padX - badgeWidth},${rowY(row - 1, height) - 13})` }, group);
      svgEl("rect", { width: badgeWidth, height: 17, rx: 8.5 }, badge);
      svgEl("text", { class: "badge-text", x: badgeWidth / 2, y: 12.5, "text-anchor": "middle" }, badge);
    }
    text("node-sub", rows.subtitle);
    const value = text("node-value", rows.value);
    const grad = text("node-grad", gradRowText(node, undefined));
    if (rows.note) text("node-reason", rows.note);
    const valueText = value.textContent ?? "";
    this.boxes.set(box.id, {
      box,
      group,
      rect,
      untracked: isUntracked(node),
      title: rows.title,
      subtitle: rows.subtitle,
      grad,
      value,
      valueText,
      badge,
      width,
      height,
      gradWidth: inner,
    });
    this.order.push(box.id);
  }

  /**
   * While a new drawing is laid out, the one on screen stays as a picture (no ids, no focus, no
   * pointer): the pane is never blank and never shows boxes piled up before they are placed.
   */
  private keepAsGhost(): SVGGElement | null {
    // A drawing that was never placed (superseded) is no picture: keep the one before it.
    if (this.boxes.size === 0 || this.viewport.classList.contains("building")) return this.ghost;
    this.ghost?.remove();
    const ghost = svgEl("g", { class: "ghost", "aria-hidden": "true" });
    // (The gradients flowing in the last frame are not kept: they belong to that frame only.)
    for (const layer of [this.frameLayer, this.edgeLayer, this.nodeLayer]) {
      const copy = svgEl("g", { class: layer.getAttribute("class") ?? "" }, ghost);
      copy.append(...layer.childNodes);
    }
    for (const el of ghost.querySelectorAll("[data-node-id], [data-frame-module], [tabindex], [role]")) {
      for (const name of [...el.getAttributeNames()]) if (name.startsWith("data-") || name === "tabindex" || name === "role" || name === "aria-label") el.removeAttribute(name);
    }
    return ghost;
  }

  /** Put the built boxes, frames and edges where `layout` says. */
  place(layout: LayoutResult): void {
    const input = this.input;
    if (!input) return;
    this.ghost?.remove();
    this.ghost = null;
    this.viewport.classList.remove("building");
    this.layout = layout;
    for (const [id, els] of this.boxes) {
      const box = layout.nodes[id];
      if (box) els.group.setAttribute("transform", `translate(${box.x},${box.y})`);
    }
    for (const frame of input.display.frames) {
      const box = layout.frames[frame.id];
      if (!box) continue;
      const g = svgEl("g", { class: "module-frame" }, this.frameLayer);
      g.dataset.frameId = frame.id;
      g.dataset.groupKind = groupKindAttr(frame.group);
      svgEl("rect", { class: "frame-box", x: box.x - box.width / 2, y: box.y - box.height / 2, width: box.width, height: box.height, rx: 10 }, g);
      // The title is a button that shuts the module again.
      const title = svgEl("g", { class: "frame-title-button", role: "button", tabindex: 0, "aria-expanded": "true" }, g);
      title.dataset.frameModule = frame.group.id;
      title.setAttribute("aria-label", `Collapse ${frameTitle(frame.group).slice(2)}`);
      const text = svgEl("text", { class: "frame-title", x: box.x - box.width / 2 + 10, y: box.y - box.height / 2 + 15 }, title);
      text.textContent = frameTitle(frame.group);
      title.addEventListener("keydown", (e) => {
        if (e.key === "Enter" || e.key === " ") {
          e.preventDefault();
          e.stopPropagation();
          this.onToggleModule(frame.group.id);
        }
      });
    }
    const bands = layout.rankdir === "LR" ? [] : freeBands(Object.values(layout.nodes));
    const byNode = new Map(input.graph.nodes.map((n) => [n.id, n]));
    input.display.edges.forEach((edge, index) => {
      let points = layout.edges[index] ?? [];
      const straight = points.length === 0;
      if (straight) points = straightEdge(layout.nodes[edge.src], layout.nodes[edge.dst]);
      const path = svgEl("path", { class: straight ? "edge fan-out" : "edge", d: edgePath(points), "marker-end": "url(#arrow)" }, this.edgeLayer);
      const source = byNode.get(edge.graphSrc);
      if (source && isUntracked(source)) path.classList.add("untracked");
      const size = this.edgeLabels[index];
      let label: Box | null = layout.labels[index] ?? null;
      if (!label && size && points[0]) {
        const at = bandSlot(points, bands, size.height, points[0]);
        if (at) label = { ...at, ...size };
      }
      this.edges.push({ ...edge, path, points, label });
    });
    this.rove(this.order[0] ?? null, false);
  }

  /**
   * Show a walk frame: the active box, known gradients, and the gradients flowing this step;
   * `follow` pans the view to the active box when it is off screen.
   */
  showFrame(frame: WalkFrame, follow = true): void {
    const boxOf = this.input?.display.boxOf;
    const active = frame.active ? (boxOf?.get(frame.active) ?? frame.active) : null;
    const walked = frame.total > 0;
    for (const [id, els] of this.boxes) {
      const grad = frame.grads.get(els.box.node.id);
      const asked = frame.asked?.has(els.box.node.id) ?? false;
      // Text and name change only when the gradient shown does (a step touches a few boxes).
      if (els.shownGrad !== grad || els.shownWalked !== walked || els.shownAsked !== asked) {
        els.shownGrad = grad;
        els.shownWalked = walked;
        els.shownAsked = asked;
        els.grad.textContent = this.fitted((shown) => gradRowText(els.box.node, grad, walked, shown, asked), "node-grad", els.gradWidth);
        els.group.setAttribute("aria-label", this.describe(els, grad, walked, asked));
      }
      els.group.classList.toggle("asked", asked);
      els.group.classList.toggle("has-grad", grad !== undefined);
      els.group.classList.toggle("done", frame.done.has(els.box.node.id));
      els.group.classList.remove("receiving", "accumulating");
      // The badge says "+=" only while it is true (its text is part of the box's text).
      const badgeText = els.badge?.querySelector("text");
      if (badgeText) badgeText.textContent = "";
      if (id === active) els.group.dataset.walkActive = "true";
      else delete els.group.dataset.walkActive;
    }
    this.svg.classList.toggle("walking", frame.active !== null && frame.position < frame.total);
    for (const edge of this.edges) edge.path.classList.remove("flowing");
    this.flowLayer.replaceChildren();
    const matched = this.input ? matchFlowEdges(this.input.display, frame.flows) : [];
    const labels: { x: number; y: number; width: number; text: string }[] = [];
    const flowing: SVGPathElement[] = [];
    frame.flows.forEach((flow, k) => {
      const from = boxOf?.get(flow.from) ?? flow.from;
      const to = boxOf?.get(flow.to) ?? flow.to;
      if (from === to) return; // inside a collapsed module: listed under the caption only
      const target = this.boxes.get(to);
      if (target) {
        target.group.classList.add("receiving");
        if (flow.accumulates) {
          target.group.classList.add("accumulating");
          const badgeText = target.badge?.querySelector("text");
          if (badgeText) badgeText.textContent = "+=";
        }
      }
      const edge = this.edges[matched[k] ?? -1];
      if (!edge) return;
      edge.path.classList.add("flowing");
      flowing.push(edge.path);
      // An edge with no free slot for its label still lights up; the rows under the caption say the number.
      if (!edge.label) return;
      const text = frame.asked?.has(flow.to) ? (flow.accumulates ? "+= ?" : "?") : flowText(flow.grad, flow.accumulates);
      labels.push({ x: edge.label.x, y: edge.label.y, width: this.measurer.width(text, "flow-text", "flow-label") + 14, text });
    });
    // Each step's flow runs its cycles from the start (graph.css), also on an edge that flowed in
    // the step before, whose animation would otherwise go on from where it was, or stay finished.
    for (const path of flowing) for (const animation of path.getAnimations?.() ?? []) animation.currentTime = 0;
    const xs = spreadApart(labels);
    labels.forEach((label, i) => this.drawFlowLabel({ x: xs[i] ?? label.x, y: label.y }, label.width, label.text));
    if (active && follow) this.follow(active, frame.flows);
  }

  /**
   * The text `make(shown)` with as many tensor elements as fit `width` (4, else 3, 2, 1), cut with
   * an ellipsis only when even one element does not fit.
   */
  private fitted(make: (shown: number) => string, cls: string, width: number): string {
    for (const shown of [4, 3, 2, 1]) {
      const text = make(shown);
      if (this.measurer.width(text, cls) <= width) return text;
    }
    return this.measurer.fit(make(1), cls, width);
  }

  /** The accessible name of a box: what it is, its value and its gradient now. */
  private describe(els: BoxElements, grad: TensorValue | undefined, walked: boolean, asked = false): string {
    const gradText = asked ? "gradient asked: type it under the caption" : gradRowText(els.box.node, grad, walked);
    const parts = [els.title, els.subtitle, els.valueText.replace(/^= /, "value "), gradText];
    if (els.box.collapsed) parts.push(`collapsed ${els.box.group?.kind === "module" ? "module" : "series"}, Enter expands`);
    if (els.group.dataset.errorNode) parts.push("the error is here");
    return parts.join(", ");
  }

  private drawFlowLabel(at: Point, width: number, text: string): void {
    const group = svgEl("g", { class: "flow-label", transform: `translate(${at.x},${at.y})` }, this.flowLayer);
    svgEl("rect", { x: -width / 2, y: -LAYOUT.labelHeight / 2, width, height: LAYOUT.labelHeight, rx: 6 }, group);
    const label = svgEl("text", { class: "flow-text", y: 4.5, "text-anchor": "middle" }, group);
    label.textContent = text;
  }

  /** Keep the active box (and, when they fit, the boxes it sends to) in view. */
  private follow(active: string, flows: Flow[]): void {
    const layout = this.layout;
    const box = layout?.nodes[active];
    if (!layout || !box) return;
    const boxOf = this.input?.display.boxOf;
    const related = flows.map((f) => layout.nodes[boxOf?.get(f.to) ?? f.to]).filter((b): b is Box => b !== undefined);
    this.panzoom.follow(box, related, { x: 0, y: 0, width: layout.width, height: layout.height });
  }

  /**
   * Show the forward replay: boxes not yet computed are dimmed with their value hidden, the box
   * just computed is outlined and its incoming edges lit. null ends the replay (every value shown).
   */
  showForward(frame: ForwardFrame | null): void {
    this.svg.classList.toggle("forwarding", frame !== null);
    const boxOf = this.input?.display.boxOf;
    const computed = frame ? new Set([...frame.computed].map((id) => boxOf?.get(id) ?? id)) : null;
    const active = frame?.active ? (boxOf?.get(frame.active) ?? frame.active) : null;
    for (const [id, els] of this.boxes) {
      // A module box counts as computed once its output is.
      const done = frame === null || (els.box.collapsed ? frame.computed.has(els.box.node.id) : (computed?.has(id) ?? true));
      els.value.textContent = done ? els.valueText : "= ·";
      if (frame === null) delete els.group.dataset.forward;
      else els.group.dataset.forward = done ? "computed" : "pending";
      if (frame !== null && id === active) els.group.dataset.forwardActive = "true";
      else delete els.group.dataset.forwardActive;
    }
    for (const edge of this.edges) edge.path.classList.toggle("forward-flowing", active !== null && edge.dst === active);
    if (active && this.layout) this.follow(active, []);
  }

  /** Select (outline) a box and tell the listener. */
  select(id: string | null): void {
    if (this.selected) this.boxes.get(this.selected)?.group.classList.remove("selected");
    this.selected = id && this.boxes.has(id) ? id : null;
    if (this.selected) this.boxes.get(this.selected)?.group.classList.add("selected");
    this.onSelect(this.selected);
  }

  /** The box that draws graph node `id` (a collapsed module's box for its members). */
  boxOf(id: string): string {
    return this.input?.display.boxOf.get(id) ?? id;
  }

  /** The graph node a box shows (a collapsed module: its output). */
  nodeOf(boxId: string): string | null {
    return this.boxes.get(boxId)?.box.node.id ?? null;
  }

  /** Whether the box stands for a collapsed module. */
  boxInfo(boxId: string): DisplayNode | null {
    return this.boxes.get(boxId)?.box ?? null;
  }

  /** The minimum legible scale; `presenting` asks for the bigger minimum. */
  set presenting(on: boolean) {
    this.panzoom.presenting = on;
  }

  /**
   * Fit the whole graph into the view (the Fit button), never below the legible size: a graph
   * that does not fit then is shown around node `focus` at that size.
   */
  fit(focus: string | null = null): void {
    if (!this.layout) return;
    const box = focus ? this.layout.nodes[this.boxOf(focus)] : undefined;
    this.panzoom.fit({ x: 0, y: 0, width: this.layout.width, height: this.layout.height }, box ?? null);
  }

  /** Whether the whole drawing fits the pane at the legible size. */
  get fitsLegibly(): boolean {
    return this.layout !== null && this.panzoom.fitsLegibly(this.layout);
  }

  /** The opening view: the whole graph if it fits legibly, else node `focus` at the legible size. */
  autoView(focus: string | null): void {
    if (!this.layout) return;
    const box = focus ? this.layout.nodes[this.boxOf(focus)] : undefined;
    this.panzoom.autoView({ x: 0, y: 0, width: this.layout.width, height: this.layout.height }, box ?? null);
  }

  zoomBy(factor: number): void {
    this.panzoom.zoomBy(factor);
  }

  /**
   * The pane changed size (a window resize, a caption growing a line): redo the page's own view
   * (around `focus`, or fitted after Fit); a view the user panned or zoomed is left as it is.
   */
  paneResized(focus: string | null): void {
    if (this.panzoom.mode === "fit") this.fit(focus);
    else if (this.panzoom.mode === "auto") this.autoView(focus);
  }

  /** Content size, for exports. */
  get size(): { width: number; height: number } {
    return { width: this.layout?.width ?? 0, height: this.layout?.height ?? 0 };
  }

  /** The arrangement laid out, kept when the same graph is laid out again. */
  /** True when the user has panned or zoomed the view themselves (resizes leave it alone). */
  get userView(): boolean {
    return this.panzoom.mode === "user";
  }

  get arrangement(): Arrangement | null {
    return this.layout?.arrangement ?? null;
  }

  /** Give box `id` the one tab stop of the graph's boxes (roving tabindex); `focus` moves focus too. */
  private rove(id: string | null, focus: boolean): void {
    for (const [boxId, els] of this.boxes) els.group.setAttribute("tabindex", boxId === id ? "0" : "-1");
    const els = id ? this.boxes.get(id) : undefined;
    if (focus && els) {
      els.group.focus();
      this.follow(id ?? "", []);
    }
  }

  /** Keys on a focused box: ↑/↓ move between boxes in forward order, Enter opens or selects. */
  private onNodeKey(e: KeyboardEvent): void {
    const target = (e.target as Element).closest<SVGGElement>("[data-node-id]");
    const id = target?.dataset.nodeId;
    if (!id) return;
    const index = this.order.indexOf(id);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      const next = this.order[Math.max(0, Math.min(this.order.length - 1, index + (e.key === "ArrowDown" ? 1 : -1)))];
      this.rove(next ?? id, true);
      e.preventDefault();
      e.stopPropagation();
    } else if (e.key === "Enter") {
      this.activate(id);
      e.preventDefault();
      e.stopPropagation();
    }
  }
}

/** A box with more drawn outputs than this has all but its first left out of the layout. */
const FAN_OUT = 6;

/** A straight edge from the side of box `a` that faces box `b` to the side of `b` facing `a`. */
function straightEdge(a: Box | undefined, b: Box | undefined): Point[] {
  if (!a || !b) return [];
  const toward = (from: Box, to: Box): Point => {
    const dx = to.x - from.x;
    const dy = to.y - from.y;
    if (dx === 0 && dy === 0) return { x: from.x, y: from.y };
    // Where the line from the centre leaves the box.
    const t = Math.min(dx !== 0 ? from.width / 2 / Math.abs(dx) : Infinity, dy !== 0 ? from.height / 2 / Math.abs(dy) : Infinity);
    return { x: from.x + dx * t, y: from.y + dy * t };
  };
  return [toward(a, b), toward(b, a)];
}

/** The text of a gradient flowing back along an edge. */
function flowText(grad: TensorValue, accumulates: boolean): string {
  return `${accumulates ? "+= " : ""}${formatShort(grad)}`;
}

/** A frame's title: a module's name and class, a series' name and count, an iteration's index. */
function frameTitle(group: Group): string {
  if (group.kind === "module" && group.module) return `▾ ${group.title} · ${group.module.type}`;
  if (group.kind === "part") return `▾ ${group.title} · ${group.subtitle}`;
  return group.kind === "repeat" ? `▾ ${group.title} · t = 0 … ${(group.count ?? 1) - 1}` : `▾ ${group.title}`;
}
