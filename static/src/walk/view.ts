/**
 * The walk view: a response's graphs drawn and walked. It picks the pass, lays it out (in the
 * layout worker), draws it (graph/render.ts), follows the backward walk with the view, opens the
 * groups (module calls, series and their iterations) the walk is inside, steps over shut ones,
 * shuts a level when Fit or zooming out would make text unreadable, replays the forward pass, and
 * keeps the walk bar, captions, details panel and hover card on the current step. The playground
 * (playground/main.ts) and the notebook (notebook/graph-pane.ts) each show one; its decisions are
 * walk/navigation.ts's, tested without a DOM.
 */
import { PLAYER } from "../common/config";
import { DetailsPanel, HoverCard } from "../graph/node-details";
import { byId } from "../common/dom";
import { accumulationMarks, forwardFrame, forwardOrder, walkFrame, type WalkFrame } from "../graph/model";
import { layoutGraph } from "../graph/layout";
import { displayGraph, hierarchyOf, stepOverTarget } from "../graph/modules";
import { Player } from "./player";
import { maskFrame, PracticeSession } from "../practice/session";
import { PracticeView } from "../practice/panel";
import { GraphView } from "../graph/render";
import type { Action } from "../common/shortcuts";
import type { Graph, GraphNode } from "../api/types";
import { WalkBar } from "./bar";
import {
  choosePass,
  errorNodeIn,
  expansionAt,
  expansionKey,
  focusNode,
  modulesAround,
  openingFocus,
  positionForNode,
  stepOverOffer,
  toggledAll,
  type Replayable,
} from "./navigation";

/** How a page wants its walk view to behave. */
export interface WalkViewOptions {
  /** The position a pass opens at, given its walk's length and the one a link asked for. */
  opening: (total: number, asked: number | null) => number;
  /** A click on a node moves the walk to the step that sends it its gradient. */
  clickMovesWalk: boolean;
  /** Marks the page adds to a placed drawing (compared nodes, earlier cells' nodes). */
  decorate: (svg: SVGSVGElement, graph: Graph) => void;
  /** Whether the page is still waiting for a run (a relayout then leaves `data-state` alone). */
  busy: () => boolean;
}

/** The graph pane of a page: the elements with the playground's ids (`graph`, `walk-*` ...). */
export class WalkView {
  readonly svg = document.querySelector<SVGSVGElement>("svg[data-testid=graph]")!;
  readonly view = new GraphView(this.svg);
  private readonly player = new Player(PLAYER.stepMs);
  private readonly forward = new Player(PLAYER.forwardStepMs, PLAYER.forwardEndHold);
  private readonly walkBar = new WalkBar(this.player, this.forward);
  private readonly details = new DetailsPanel(byId("details", HTMLElement), byId("details-body", HTMLElement), byId("details-title", HTMLElement));
  private readonly hoverCard = new HoverCard(byId("hovercard", HTMLElement), byId("graph-wrap", HTMLElement));
  private readonly practiceView = new PracticeView();
  /** Practice mode is on (the page re-runs with `practice: true` when it turns on). */
  private practiceOn = false;
  /** The learner's work through the shown pass's walk (practice mode, a pass that asks). */
  private practice: PracticeSession | null = null;

  private response: Replayable | null = null;
  /** The pass asked for (a key of choosePass), null for the last. */
  private pass: number | null = null;
  private graph: Graph | null = null;
  private marks: boolean[][] = [];
  private forwardIds: string[] = [];
  private frame: WalkFrame | null = null;
  private selected: string | null = null;
  /** Modules the user opened (or all of them after `m`); the walk opens the one it is in too. */
  private expanded = new Set<string>();
  /** The expansion of the latest draw asked for (drawn or still being laid out): what a new
   * position compares with, so a change made while a draw is in flight is not lost. */
  private drawnExpansion = "";
  private drawToken = 0;
  /** The pane's size when the graph on screen was laid out. */
  private drawnPane = { width: 0, height: 0 };
  /** Set while a step over a collapsed module is shown: where its steps began. */
  private overFrom: number | null = null;
  private pendingOver: number | null = null;
  /** False from opening a pass until the user first moves its walk. */
  private walkMoved = false;
  /** True while a pass is being opened (its first frame is not a move of the walk). */
  private loading = false;

  /** The walk moved to `position` of `total` (`opening`: while a pass is being opened). */
  onPosition: (position: number, total: number, opening: boolean) => void = () => {};
  /** The user picked another pass (its key); the walk opens at its start. */
  onPass: (pass: number) => void = () => {};
  /** A pass is about to be drawn: the response's graphs and the one shown. */
  onPassShown: (views: Graph[], graph: Graph | null) => void = () => {};

  constructor(private readonly options: WalkViewOptions) {
    this.player.onChange = (position) => {
      // Any move of the backward walk ends a forward replay in progress.
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
      this.onPass(pass);
      void this.showPass(null);
    };
    this.view.onSelect = (id) => this.onSelect(id);
    this.view.onHover = (id, at) => {
      // The card and the details panel never open together over the graph.
      if (this.details.open) return;
      this.hoverCard.show(this.graph, id ? this.view.boxInfo(id) : null, at, this.frame);
    };
    this.view.onToggleModule = (id) => this.toggleModule(id);
    this.view.onZoomOutPast = () => this.collapseLevel();
    byId("details-close", HTMLButtonElement).addEventListener("click", () => this.view.select(null));
    byId("graph-fit", HTMLButtonElement).addEventListener("click", () => void this.fit());
    byId("graph-zoom-in", HTMLButtonElement).addEventListener("click", () => this.view.zoomBy(1.25));
    byId("graph-zoom-out", HTMLButtonElement).addEventListener("click", () => this.view.zoomBy(0.8));
    // Focusing a node off screen (Tab) would scroll the clipped graph pane; the view pans instead.
    const wrap = byId("graph-wrap", HTMLElement);
    wrap.addEventListener("scroll", () => wrap.scrollTo(0, 0));
    // The pane changes size with the window and with the caption's height: keep the view legible.
    let lastSize = "";
    new ResizeObserver(() => {
      const rect = this.svg.getBoundingClientRect();
      const size = `${Math.round(rect.width)}x${Math.round(rect.height)}`;
      if (size === lastSize) return;
      lastSize = size;
      this.view.paneResized(this.focus());
    }).observe(this.svg);
    this.walkBar.update(null, null, false);
    this.walkBar.setStepOver(false, null);
    // Practice mode stops the walk at the first step still asking.
    this.player.limit = () => this.practice?.limit() ?? Infinity;
    this.practiceView.onAnswered = () => void this.showPosition(this.player.current);
    this.practiceView.onNext = () => this.player.next();
    this.practiceView.onSeek = (position) => {
      this.player.stop(false);
      this.player.seek(position);
    };
  }

  /** Practice mode on or off: the next pass shown asks its questions (its run must have
   * asked for them: RunRequest.practice). */
  setPractice(on: boolean): void {
    this.practiceOn = on;
    if (!on) {
      this.practice = null;
      if (this.graph) void this.showPosition(this.player.current);
    }
  }

  /** The response whose graphs are shown (null: none). */
  get shown(): Replayable | null {
    return this.response;
  }

  /** Whether the details panel is open (Escape closes it first). */
  get detailsOpen(): boolean {
    return this.details.open;
  }

  /** Show `response`'s graphs: pass `pass` (null: the last) at walk `step` (null: its opening). */
  async show(response: Replayable | null, step: number | null, pass: number | null): Promise<void> {
    this.response = response;
    this.pass = pass;
    await this.showPass(step);
  }

  /** Forget the modules the user opened (a new cell's graph). */
  closeModules(): void {
    this.expanded.clear();
  }

  /** Mark the walk bar for an error at `node` (a forward error's node fails the replay too). */
  markFailed(node: GraphNode | undefined): void {
    this.walkBar.failed = node !== undefined;
    this.walkBar.forwardFailed = node?.kind === "error";
  }

  /** Select node `id`'s box (the error panel's link to the failing node). */
  selectNode(id: string): void {
    this.view.select(this.view.boxOf(id));
  }

  /** Close the details panel and the hover card. */
  unselect(): void {
    this.view.select(null);
  }

  /** Presentation mode: legible at its bigger minimum, then laid out again for the new pane. */
  setPresenting(on: boolean): void {
    this.view.presenting = on;
    this.hoverCard.show(null, null, { x: 0, y: 0 }, null);
    // Legible at once for the new mode; then, the pane's shape having changed, laid out again (a
    // wide room may take the graph sideways).
    requestAnimationFrame(() => {
      this.view.autoView(this.focus());
      void this.relayout();
    });
  }

  /** The view again around the node it follows (after the legend opened or closed). */
  refocus(): void {
    this.view.autoView(this.focus());
  }

  /** After a resize settles: lay out again when the pane's shape changed by a fifth or more. */
  paneSettled(): void {
    const rect = this.svg.getBoundingClientRect();
    const changed = (now: number, then: number) => then > 0 && Math.abs(now - then) / then >= 0.2;
    if (changed(rect.width, this.drawnPane.width) || changed(rect.height, this.drawnPane.height)) void this.relayout();
  }

  /** A page shortcut (common/shortcuts.ts) that concerns the graph; false when it does not. */
  act(action: Action): boolean {
    const actions: Partial<Record<Action, () => void>> = {
      next: () => {
        if (this.practice && this.player.current >= this.practice.limit() && this.player.current < this.player.length) this.practiceView.nudge();
        else this.player.next();
      },
      prev: () => this.player.prev(),
      over: () => this.stepOver(1),
      backOver: () => this.stepOver(-1),
      play: () => this.player.toggle(),
      first: () => this.player.first(),
      last: () => this.player.last(),
      forward: () => this.toggleForward(),
      modules: () => this.toggleAllModules(),
      zoomIn: () => this.view.zoomBy(1.25),
      zoomOut: () => this.view.zoomBy(0.8),
      fit: () => void this.fit(),
    };
    const run = actions[action];
    if (!run) return false;
    run();
    return true;
  }

  /** A node clicked (or the selection cleared). */
  private onSelect(id: string | null): void {
    this.selected = id;
    this.hoverCard.show(null, null, { x: 0, y: 0 }, null);
    this.details.show(this.graph, id ? this.view.boxInfo(id) : null, this.frame);
    if (!this.options.clickMovesWalk || !id || !this.graph) return;
    // The walk moves to the step that sends the node its gradient.
    const node = this.view.nodeOf(id);
    const target = node ? positionForNode(this.graph, node, this.player.current) : null;
    if (node && target !== null && target !== this.player.current) {
      // The module drawn open around the node stays open, so the node (and its details) stay.
      for (const moduleId of modulesAround(this.graph, node)) this.expanded.add(moduleId);
      this.player.stop(false);
      this.player.seek(target);
    }
  }

  /** Pick the pass to show and go to walk position `step` (null: the pass's opening). */
  private async showPass(step: number | null): Promise<void> {
    const { views, keys, index, failedLast, graph } = choosePass(this.response, this.pass);
    this.stopForward();
    this.walkBar.setPasses(views, keys, this.response?.passes_total, index, failedLast, stoppedBy(this.response?.error?.type));
    this.onPassShown(views, graph);
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
      this.practice = null;
      this.practiceView.show(null, 0);
      this.drawnExpansion = "";
      this.view.clear();
      this.frame = null;
      this.player.load(0, 0);
      this.walkBar.update(null, null, false);
      return;
    }
    const groups = hierarchyOf(graph).groups;
    this.expanded = new Set([...this.expanded].filter((id) => groups.has(id)));
    this.marks = accumulationMarks(graph);
    const total = graph.walk.length;
    const position = this.options.opening(total, step);
    // Practice: a new session for this pass; a link that opened it further on gives the steps before.
    this.practice = this.practiceOn && graph.practice ? new PracticeSession(graph, graph.practice) : null;
    this.practice?.giveBefore(position);
    const started = performance.now();
    const drawn = await this.draw(graph, expansionAt(graph, this.expanded, position, this.overFrom), true, position);
    if (!drawn) return;
    this.svg.dataset.renderMs = String(Math.round(performance.now() - started));
    this.svg.dataset.nodeCount = String(graph.nodes.length);
    this.player.load(total, position);
    this.loading = false;
  }

  /**
   * Lay out and draw `graph` with `expansion` open. `fresh` opens the view on the graph (legible
   * size, around the focus); otherwise the view stays and follows the walk. False when superseded.
   */
  private async draw(graph: Graph, expansion: Set<string>, fresh: boolean, position: number): Promise<boolean> {
    const token = ++this.drawToken;
    this.drawnExpansion = expansionKey(expansion);
    const rect = this.svg.getBoundingClientRect();
    this.drawnPane = { width: rect.width, height: rect.height };
    const keep = fresh ? null : this.view.arrangement;
    // The boxes are replaced: a card over one of them would stay stuck.
    this.hoverCard.show(null, null, { x: 0, y: 0 }, null);
    const errorNode = errorNodeIn(this.response, graph);
    // Timings of the phases (the browser benchmark reads them): build = hierarchy, boxes and
    // their text; layout = the worker's dagre; place = putting the boxes where it says.
    const started = performance.now();
    const request = this.view.build(
      { graph, display: displayGraph(graph, expansion), marks: this.marks, errorNode },
      { width: rect.width, height: rect.height },
      keep ? [keep] : ["BT", "BT-stacked", "LR"],
    );
    const built = performance.now();
    const layout = await layoutGraph(request);
    if (token !== this.drawToken || this.graph !== graph) return false;
    const laidOut = performance.now();
    this.view.place(layout);
    this.svg.dataset.buildMs = String(Math.round(built - started));
    this.svg.dataset.layoutMs = String(Math.round(laidOut - built));
    this.svg.dataset.layoutWorkerMs = String(Math.round(layout.workerMs ?? 0));
    this.svg.dataset.placeMs = String(Math.round(performance.now() - laidOut));
    this.svg.dataset.boxCount = String(request.nodes.length);
    this.options.decorate(this.svg, graph);
    this.svg.dataset.rankdir = layout.rankdir;
    this.svg.dataset.arrangement = layout.arrangement;
    if (fresh) this.view.autoView(openingFocus(graph, position, errorNode));
    if (this.selected && !this.view.boxInfo(this.selected)) this.view.select(null);
    return true;
  }

  /**
   * Lay the graph on screen out again for the pane it now has (the arrangement that shows it
   * biggest: a wide room may take it left to right), the walk kept where it is. A view the user
   * panned or zoomed is left alone.
   */
  private async relayout(): Promise<void> {
    const graph = this.graph;
    if (!graph || this.loading || this.view.userView) return;
    this.stopForward();
    const position = this.player.current;
    this.svg.dataset.state = "loading";
    try {
      const drawn = await this.draw(graph, expansionAt(graph, this.expanded, position, this.overFrom), true, position);
      if (!drawn || this.graph !== graph || !this.frame) return;
      this.view.showFrame(this.frame, this.walkMoved || position < this.frame.total);
    } finally {
      if (this.graph === graph && !this.options.busy()) this.svg.dataset.state = "ready";
    }
  }

  /** The node the view centres on when the graph does not fit. */
  private focus(): string | null {
    return focusNode(this.graph, this.frame, this.walkMoved, errorNodeIn(this.response, this.graph));
  }

  /** Show walk position `position` everywhere (the page records it: onPosition). */
  private async showPosition(position: number): Promise<void> {
    const graph = this.graph;
    if (graph) {
      const expansion = expansionAt(graph, this.expanded, position, this.overFrom);
      if (expansionKey(expansion) !== this.drawnExpansion) {
        // A group opens or shuts: drawn again (tests wait for "ready" before measuring).
        const idle = !this.loading && !this.options.busy();
        if (idle) this.svg.dataset.state = "loading";
        const drawn = await this.draw(graph, expansion, false, position);
        if (idle && this.graph === graph && !this.options.busy() && drawn) this.svg.dataset.state = "ready";
        if (!drawn || this.player.current !== position) return;
      }
    }
    if (!this.loading) this.walkMoved = true;
    this.frame = graph ? walkFrame(graph, position, this.marks, this.overFrom ?? undefined) : null;
    if (graph && this.frame && this.practice) this.frame = maskFrame(this.frame, graph, this.marks, this.practice.hiddenAt(position));
    if (this.frame) this.view.showFrame(this.frame, this.walkMoved || position < this.frame.total);
    this.walkBar.update(graph, this.frame, this.player.playing);
    const over = stepOverOffer(graph, this.player.current, this.expanded);
    this.walkBar.setStepOver(over.offer, over.name);
    if (this.selected) this.details.show(graph, this.view.boxInfo(this.selected), this.frame);
    this.practiceView.show(this.practice, position);
    this.onPosition(position, this.frame?.total ?? 0, this.loading);
  }

  /** Step over (or back over) the collapsed module the walk is about to enter, as one step. */
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

  /**
   * Fit: the whole graph at a legible size. When it does not fit with the groups the user opened,
   * they shut first (a level at a time); what still does not fit is shown around the focus.
   */
  private async fit(): Promise<void> {
    const graph = this.graph;
    while (graph && !this.view.fitsLegibly && this.expanded.size > 0 && this.graph === graph) {
      this.collapseDeepest();
      await this.showPosition(this.player.current);
    }
    this.view.fit(this.focus());
  }

  /** Zooming out past the legible size: the deepest group the user opened shuts. */
  private collapseLevel(): void {
    if (this.collapseDeepest()) void this.showPosition(this.player.current);
  }

  private collapseDeepest(): boolean {
    const graph = this.graph;
    if (!graph || this.expanded.size === 0) return false;
    const groups = hierarchyOf(graph).groups;
    const depth = (id: string): number => {
      let d = 0;
      for (let g = groups.get(id)?.parent ?? null; g; g = g.parent) d++;
      return d;
    };
    const deepest = [...this.expanded].reduce((a, b) => (depth(b) > depth(a) ? b : a));
    this.expanded.delete(deepest);
    return true;
  }

  /** Open a shut module or shut an open one (a click on its box or frame title). */
  private toggleModule(id: string): void {
    if (this.expanded.has(id)) this.expanded.delete(id);
    else this.expanded.add(id);
    void this.showPosition(this.player.current);
  }

  /** `m`: open every module, or shut them all when any is open. */
  private toggleAllModules(): void {
    if (!this.graph) return;
    this.expanded = toggledAll(this.graph, this.expanded);
    void this.showPosition(this.player.current);
  }

  /** Start the forward replay from the first node, or stop one in progress. */
  private toggleForward(): void {
    const graph = this.graph;
    if (this.forward.playing || !graph || graph.nodes.length === 0) {
      this.stopForward();
      return;
    }
    // The forward pass comes before any gradient: rewind the walk first (this also stops it).
    this.player.first();
    this.forwardIds = forwardOrder(graph);
    this.forward.load(this.forwardIds.length, 0);
    this.forward.play();
  }

  /** End a forward replay (if any): every value shown again, the walk bar back to the walk. */
  private stopForward(): void {
    if (this.forward.playing || this.forward.current > 0) this.forward.load(0, 0);
  }

  /** Show forward replay position `position`; position 0 while stopped means no replay. */
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
}

/** What stopped a run mid-way, as the pass picker says it ("Stop", "time limit"), or null. */
function stoppedBy(errorType: string | undefined): string | null {
  if (errorType === "KeyboardInterrupt") return "Stop";
  if (errorType === "TimeoutError") return "time limit";
  return null;
}
