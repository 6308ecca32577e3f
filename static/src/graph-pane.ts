/**
 * The notebook's graph pane: one cell's graph at a time, drawn and walked with the playground's
 * own modules (render.ts's GraphView, layout.ts, modules.ts, player.ts, walkbar.ts and its
 * captions, details.ts), laid out in the same elements as the playground's stage (the same ids,
 * so the same walk bar and styles). This module only connects them: pick a pass, lay it out,
 * follow the walk, open modules, replay the forward pass.
 */
import { markCompared } from "./compare";
import { PLAYER } from "./config";
import { DetailsPanel, HoverCard } from "./details";
import { byId } from "./dom";
import { accumulationMarks, forwardFrame, forwardOrder, walkFrame, type WalkFrame } from "./graphmodel";
import { layoutGraph } from "./layout";
import { collapsibleModules, displayGraph, stepModule, stepOverTarget } from "./modules";
import { Player } from "./player";
import { GraphView } from "./render";
import type { Action } from "./shortcuts";
import type { Graph, NotebookRunResponse } from "./types";
import { WalkBar } from "./walkbar";

/** The graphs a response offers: each kept pass, then the graph a failed run left. */
export function viewsOf(response: NotebookRunResponse | null): Graph[] {
  if (!response) return [];
  const passes = response.passes ?? [];
  if (!response.graph) return passes;
  if (passes.length === 0) return [response.graph];
  return response.ok ? passes : [...passes, response.graph];
}

export class GraphPane {
  readonly svg = document.querySelector<SVGSVGElement>("svg[data-testid=graph]")!;
  private readonly view = new GraphView(this.svg);
  private readonly player = new Player(PLAYER.stepMs);
  private readonly forward = new Player(PLAYER.forwardStepMs, PLAYER.forwardEndHold);
  private readonly walkBar = new WalkBar(this.player, this.forward);
  private readonly details = new DetailsPanel(byId("details", HTMLElement), byId("details-body", HTMLElement), byId("details-title", HTMLElement));
  private readonly hoverCard = new HoverCard(byId("hovercard", HTMLElement), byId("graph-wrap", HTMLElement));
  private response: NotebookRunResponse | null = null;
  private graph: Graph | null = null;
  private marks: boolean[][] = [];
  private forwardIds: string[] = [];
  private frame: WalkFrame | null = null;
  private selected: string | null = null;
  private expanded = new Set<string>();
  private drawnExpansion = "";
  private drawToken = 0;
  private overFrom: number | null = null;
  private pendingOver: number | null = null;
  private loading = false;
  private walkMoved = false;
  private pass: number | null = null;
  private drawn = 0;

  /** Called when the walk moves or another pass is picked (the URL records them). */
  onPosition: (step: number | null, pass: number | null) => void = () => {};

  constructor() {
    this.player.onChange = (position) => {
      this.stopForward();
      this.overFrom = this.pendingOver;
      this.pendingOver = null;
      void this.showPosition(position);
    };
    this.forward.onChange = (position, playing) => this.showForward(position, playing);
    this.walkBar.onForward = () => this.toggleForward();
    this.walkBar.onStepOver = (direction) => this.stepOver(direction);
    this.walkBar.onPass = (pass) => {
      this.pass = pass;
      this.onPosition(null, pass);
      void this.showPass(null);
    };
    this.view.onSelect = (id) => {
      this.selected = id;
      this.hoverCard.show(null, null, { x: 0, y: 0 }, null);
      this.details.show(this.graph, id ? this.view.boxInfo(id) : null, this.frame);
    };
    this.view.onHover = (id, at) => {
      if (this.details.open) return;
      this.hoverCard.show(this.graph, id ? this.view.boxInfo(id) : null, at, this.frame);
    };
    this.view.onToggleModule = (id) => {
      if (this.expanded.has(id)) this.expanded.delete(id);
      else this.expanded.add(id);
      void this.showPosition(this.player.current);
    };
    byId("details-close", HTMLButtonElement).addEventListener("click", () => this.view.select(null));
    byId("graph-fit", HTMLButtonElement).addEventListener("click", () => this.view.fit());
    byId("graph-zoom-in", HTMLButtonElement).addEventListener("click", () => this.view.zoomBy(1.25));
    byId("graph-zoom-out", HTMLButtonElement).addEventListener("click", () => this.view.zoomBy(0.8));
    byId("legend-toggle", HTMLButtonElement).addEventListener("click", () => {
      const legend = byId("legend", HTMLElement);
      legend.hidden = !legend.hidden;
      byId("legend-toggle", HTMLButtonElement).setAttribute("aria-expanded", String(!legend.hidden));
    });
    const wrap = byId("graph-wrap", HTMLElement);
    wrap.addEventListener("scroll", () => wrap.scrollTo(0, 0));
    let lastSize = "";
    new ResizeObserver(() => {
      const rect = this.svg.getBoundingClientRect();
      const size = `${Math.round(rect.width)}x${Math.round(rect.height)}`;
      if (size === lastSize) return;
      lastSize = size;
      this.view.paneResized(this.focusNode());
    }).observe(this.svg);
    this.walkBar.update(null, null, false);
    this.walkBar.setStepOver(false, null);
  }

  /** The response whose graphs are shown (null: none). */
  get shown(): NotebookRunResponse | null {
    return this.response;
  }

  /** Show `response`'s graphs (a cell's), at walk `step` of pass `pass` (null: the last, the end). */
  async show(response: NotebookRunResponse | null, step: number | null, pass: number | null): Promise<void> {
    this.response = response;
    this.pass = pass;
    this.expanded.clear();
    await this.showPass(step);
    this.drawn += 1;
    this.svg.dataset.runCount = String(this.drawn);
    this.svg.dataset.state = "ready";
  }

  /** Mark the pane busy while a run is on its way (tests wait for "ready"). */
  loadingState(): void {
    this.svg.dataset.state = "loading";
  }

  private async showPass(step: number | null): Promise<void> {
    const response = this.response;
    const views = viewsOf(response);
    const failedLast = response !== null && !response.ok && views.length > 1;
    const keys = views.map((g, i) => (failedLast && i === views.length - 1 ? -1 : (g.pass_index ?? i)));
    const found = this.pass === null ? -1 : keys.indexOf(this.pass);
    const index = found >= 0 ? found : views.length - 1;
    const graph = views[index] ?? null;
    this.stopForward();
    this.walkBar.setPasses(views, keys, response?.passes_total, index, failedLast);
    const errorNode = response?.error?.node ? graph?.nodes.find((n) => n.id === response.error?.node) : undefined;
    this.walkBar.failed = errorNode !== undefined;
    this.walkBar.forwardFailed = errorNode?.kind === "error";
    this.graph = graph;
    this.selected = null;
    this.details.show(null, null, null);
    this.hoverCard.show(null, null, { x: 0, y: 0 }, null);
    byId("graph-empty", HTMLElement).hidden = graph !== null && graph.nodes.length > 0;
    this.overFrom = null;
    this.pendingOver = null;
    this.walkMoved = false;
    this.loading = true;
    if (!graph) {
      this.drawnExpansion = "";
      this.view.clear();
      this.frame = null;
      this.player.load(0, 0);
      this.walkBar.update(null, null, false);
      return;
    }
    this.marks = accumulationMarks(graph);
    const total = graph.walk.length;
    const position = Math.max(0, Math.min(total, step ?? total));
    if (!(await this.draw(graph, this.expansionAt(graph, position), true, position))) return;
    this.svg.dataset.nodeCount = String(graph.nodes.length);
    this.player.load(total, position);
    this.loading = false;
  }

  private expansionAt(graph: Graph, position: number): Set<string> {
    const open = new Set(this.expanded);
    if (this.overFrom === null && position > 0 && position < graph.walk.length) {
      const inside = stepModule(graph, position);
      if (inside) open.add(inside);
    }
    return open;
  }

  private errorNodeOf(graph: Graph | null): string | null {
    const response = this.response;
    if (!graph || !response?.error?.node || graph !== response.graph) return null;
    return response.error.node;
  }

  private async draw(graph: Graph, expansion: Set<string>, fresh: boolean, position: number): Promise<boolean> {
    const token = ++this.drawToken;
    this.drawnExpansion = [...expansion].sort().join("\n");
    const rect = this.svg.getBoundingClientRect();
    const keep = fresh ? null : this.view.arrangement;
    const request = this.view.build(
      { graph, display: displayGraph(graph, expansion), marks: this.marks, errorNode: this.errorNodeOf(graph) },
      { width: rect.width, height: rect.height },
      keep ? [keep] : ["BT", "BT-stacked", "LR"],
    );
    const layout = await layoutGraph(request);
    if (token !== this.drawToken || this.graph !== graph) return false;
    this.view.place(layout);
    markCompared(this.svg, graph);
    markEarlier(this.svg, graph);
    this.svg.dataset.rankdir = layout.rankdir;
    this.svg.dataset.arrangement = layout.arrangement;
    if (fresh) {
      const active = position > 0 && position < graph.walk.length ? (graph.walk[position - 1]?.node ?? null) : null;
      this.view.autoView(active ?? this.errorNodeOf(graph) ?? graph.root);
    }
    if (this.selected && !this.view.boxInfo(this.selected)) this.view.select(null);
    return true;
  }

  private focusNode(): string | null {
    const frame = this.frame;
    const active = frame && (this.walkMoved || frame.position < frame.total) ? frame.active : null;
    return active ?? this.errorNodeOf(this.graph) ?? this.graph?.root ?? null;
  }

  private async showPosition(position: number): Promise<void> {
    const graph = this.graph;
    if (graph) {
      const expansion = this.expansionAt(graph, position);
      if ([...expansion].sort().join("\n") !== this.drawnExpansion) {
        const drawn = await this.draw(graph, expansion, false, position);
        if (!drawn || this.player.current !== position) return;
      }
    }
    if (!this.loading) this.walkMoved = true;
    this.frame = graph ? walkFrame(graph, position, this.marks, this.overFrom ?? undefined) : null;
    if (this.frame) this.view.showFrame(this.frame, this.walkMoved || position < this.frame.total);
    this.walkBar.update(graph, this.frame, this.player.playing);
    const next = graph ? stepModule(graph, position + 1) : null;
    const module = next ? graph?.modules?.find((m) => m.id === next) : undefined;
    this.walkBar.setStepOver(next !== null && !this.expanded.has(next), module?.name ?? null);
    if (this.selected) this.details.show(graph, this.view.boxInfo(this.selected), this.frame);
    if (!this.loading) this.onPosition(this.frame && position < this.frame.total ? position : null, this.pass);
  }

  private stepOver(direction: 1 | -1): void {
    const graph = this.graph;
    if (!graph) return;
    const target = stepOverTarget(graph, this.player.current, direction);
    if (target.module === null || this.expanded.has(target.module)) {
      if (direction === 1) this.player.next();
      else this.player.prev();
      return;
    }
    this.player.stop(false);
    this.pendingOver = target.from;
    if (target.position === this.player.current) {
      this.overFrom = target.from;
      this.pendingOver = null;
      void this.showPosition(target.position);
    } else this.player.seek(target.position);
  }

  private toggleForward(): void {
    const graph = this.graph;
    if (this.forward.playing || !graph || graph.nodes.length === 0) {
      this.stopForward();
      return;
    }
    this.player.first();
    this.forwardIds = forwardOrder(graph);
    this.forward.load(this.forwardIds.length, 0);
    this.forward.play();
  }

  private stopForward(): void {
    if (this.forward.playing || this.forward.current > 0) this.forward.load(0, 0);
  }

  private showForward(position: number, playing: boolean): void {
    const graph = this.graph;
    const replaying = graph !== null && (playing || (position > 0 && position < this.forward.length));
    if (!graph || !replaying) {
      this.view.showForward(null);
      this.walkBar.update(graph, this.frame, this.player.playing);
      return;
    }
    const frame = forwardFrame(this.forwardIds, position);
    this.view.showForward(frame);
    this.walkBar.showForward(graph, frame, playing);
  }

  /** A page shortcut (shortcuts.ts) that concerns the graph; false when it does not. */
  act(action: Action): boolean {
    const actions: Partial<Record<Action, () => void>> = {
      next: () => this.player.next(),
      prev: () => this.player.prev(),
      over: () => this.stepOver(1),
      backOver: () => this.stepOver(-1),
      play: () => this.player.toggle(),
      first: () => this.player.first(),
      last: () => this.player.last(),
      forward: () => this.toggleForward(),
      modules: () => {
        const graph = this.graph;
        if (!graph) return;
        this.expanded = this.expanded.size > 0 ? new Set() : new Set(collapsibleModules(graph).keys());
        void this.showPosition(this.player.current);
      },
      zoomIn: () => this.view.zoomBy(1.25),
      zoomOut: () => this.view.zoomBy(0.8),
      fit: () => this.view.fit(),
      leave: () => this.view.select(null),
    };
    const run = actions[action];
    if (!run) return false;
    run();
    return true;
  }
}

/** Nodes an earlier cell recorded carry `data-earlier` (drawn dashed; the legend says so). */
function markEarlier(svg: SVGSVGElement, graph: Graph): void {
  const earlier = new Set(graph.nodes.filter((n) => n.earlier).map((n) => n.id));
  for (const group of svg.querySelectorAll<SVGGElement>("g[data-node-id]")) {
    const id = group.dataset.nodeId ?? "";
    if (earlier.has(id)) group.dataset.earlier = "true";
    else delete group.dataset.earlier;
  }
}
