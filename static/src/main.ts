/**
 * The playground page: wires the state store, editor, runner, graph view, walk player and panels.
 * Each concern lives in its own module; this file only connects them.
 */
import { ApiError, runProgramStream } from "./api";
import { BindingsPanel } from "./bindings-panel";
import { CompareControl, markCompared } from "./compare";
import { PLAYER, RUN } from "./config";
import { DetailsPanel, HoverCard } from "./details";
import { DevicePicker } from "./device-picker";
import { byId } from "./dom";
import { bindWrapToggle, Editor, wrapPreference } from "./editor";
import { ExamplesGallery } from "./examples";
import { exportJson, exportPng, exportSvg } from "./export";
import { freeVariables, isExpression } from "./freevars";
import { accumulationMarks, forwardFrame, forwardOrder, nodeExpression, walkFrame, type WalkFrame } from "./graphmodel";
import { GraphKeeper, showNote } from "./kept-graph";
import { layoutGraph } from "./layout";
import { collapsibleModules, displayGraph, stepModule, stepOverTarget } from "./modules";
import { Player } from "./player";
import { GraphView } from "./render";
import { RunController } from "./run-controller";
import { RunPanel } from "./run-panel";
import { actionFor, ownedByFocus, renderShortcutList, type Action } from "./shortcuts";
import { decodeState, Store, type AppState, type BindingState } from "./state";
import { Splitter } from "./splitter";
import { setupTheme } from "./theme";
import type { Graph, RunError, RunRequest, RunResponse } from "./types";
import { WalkBar } from "./walkbar";
import { openingPosition, positionForNode, recordedStep } from "./walknav";

/**
 * The lessons' tiny example as an expression; its inputs start at the lesson's values, each a
 * leaf that requires grad (as every input of an expression does: the box beside it unticks it).
 */
const DEFAULTS: AppState = {
  source: "(w*x + b - y)**2\n",
  bindings: {
    w: { value: 0.5, requires_grad: true },
    x: { value: 2, requires_grad: true },
    b: { value: 0, requires_grad: true },
    y: { value: 7, requires_grad: true },
  },
  device: "cpu",
  seed: 0,
  step: null,
  pass: null,
  compare: false,
};

/** Below this window height, or this width (a phone), the legend starts folded. */
const LEGEND_MIN_HEIGHT = 780;
const LEGEND_MIN_WIDTH = 600;

function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** The graphs a response offers to replay: each kept pass, then the graph a failed call left. */
function viewsOf(response: RunResponse | null): Graph[] {
  if (!response) return [];
  const passes = response.passes ?? [];
  if (!response.graph) return passes;
  if (passes.length === 0) return [response.graph];
  return response.ok ? passes : [...passes, response.graph];
}

class Playground {
  private readonly store = new Store(decodeState(window.location.hash, DEFAULTS));
  private readonly svg = document.querySelector<SVGSVGElement>("svg[data-testid=graph]")!;
  private readonly graphView = new GraphView(this.svg);
  private readonly player = new Player(PLAYER.stepMs);
  private readonly forward = new Player(PLAYER.forwardStepMs, PLAYER.forwardEndHold);
  private readonly walkBar = new WalkBar(this.player, this.forward);
  private readonly details = new DetailsPanel(byId("details", HTMLElement), byId("details-body", HTMLElement), byId("details-title", HTMLElement));
  private readonly bindingsPanel = new BindingsPanel(byId("bindings", HTMLElement), byId("bindings-list", HTMLElement));
  private readonly hoverCard = new HoverCard(byId("hovercard", HTMLElement), byId("graph-wrap", HTMLElement));
  private readonly errorPanel = byId("error", HTMLElement);
  private readonly runPanel = new RunPanel(
    () => this.run(false),
    () => this.runs.stop(),
  );
  /** The graph on screen may be an earlier run's (kept when the latest failed before one). */
  private readonly keeper = new GraphKeeper();
  private readonly devices = new DevicePicker(byId("device", HTMLSelectElement), byId("device-note", HTMLElement));
  private readonly shortcutsDialog = byId("shortcuts-dialog", HTMLDialogElement);
  private readonly editor: Editor;
  private readonly runs: RunController<RunRequest, RunResponse>;
  private readonly compare = new CompareControl(() => this.store.state.compare);

  private response: RunResponse | null = null;
  private graph: Graph | null = null;
  private marks: boolean[][] = [];
  private forwardIds: string[] = [];
  private frame: WalkFrame | null = null;
  private selected: string | null = null;
  private runCount = 0;
  /** Modules the user opened (or all of them after `m`); the walk opens the one it is in too. */
  private expanded = new Set<string>();
  /** The expansion the drawing was built with, and the drawing. */
  /** The expansion of the latest draw asked for (drawn or still being laid out): what a
   * new position compares with, so a change made while a draw is in flight is not lost. */
  private drawnExpansion = "";
  private drawToken = 0;
  /** Set while a step over a collapsed module is shown: where its steps began. */
  private overFrom: number | null = null;
  private pendingOver: number | null = null;
  private presentingNow = false;
  /** False from opening a pass until the user first moves its walk. */
  private walkMoved = false;
  /** True while a pass is being opened (its first frame is not a move of the walk). */
  private loading = false;

  constructor() {
    const state = this.store.state;
    this.runs = new RunController<RunRequest, RunResponse>({
      send: (request, signal, output) => runProgramStream(request, signal, output),
      onStart: () => this.runPanel.started(),
      onOutput: (text) => this.runPanel.output(text),
      onResult: (response, request) => void this.showResponse(response, request),
      onError: (error) => this.showRequestError(error),
      onBusy: (seconds) => this.runPanel.busy(seconds),
      onStopped: () => this.showStopped(),
    });
    const wrapLines = wrapPreference();
    this.editor = new Editor({
      parent: byId("editor-host", HTMLElement),
      doc: state.source,
      wrap: wrapLines,
      onRun: () => this.run(false),
      onChange: (source) => {
        this.store.set({ source }, "none");
        this.writeUrlSoon();
        this.refreshBindingsSoon();
        this.showGraphNote();
      },
    });
    bindWrapToggle(byId("editor-wrap", HTMLButtonElement), this.editor, wrapLines);
    new Splitter(byId("splitter", HTMLElement), document.querySelector<HTMLElement>(".playground")!, () => this.rearrangeSoon());
    this.refreshBindings();
    this.bindingsPanel.onChange = (bindings) => {
      this.store.set({ bindings }, "none");
      this.writeUrlSoon();
      this.rerunSoon();
    };
    this.player.onChange = (position) => {
      // Any move of the backward walk ends a forward replay in progress.
      this.stopForward();
      this.overFrom = this.pendingOver;
      this.pendingOver = null;
      void this.showPosition(position);
    };
    this.forward.onChange = (position, playing) => this.showForward(position, playing);
    this.compare.onToggle = (compare) => {
      this.store.set({ compare }, "replace");
      void this.run(true);
    };
    this.walkBar.onForward = () => this.toggleForward();
    this.walkBar.onStepOver = (direction) => this.stepOver(direction);
    byId("error-node-link", HTMLButtonElement).addEventListener("click", () => {
      const id = this.response?.error?.node;
      if (id) this.graphView.select(this.graphView.boxOf(id));
    });
    this.walkBar.onPass = (pass) => {
      this.store.set({ pass, step: null }, "replace");
      void this.showPass(null);
    };
    this.graphView.onSelect = (id) => {
      this.selected = id;
      this.hoverCard.show(null, null, { x: 0, y: 0 }, null);
      this.details.show(this.graph, id ? this.graphView.boxInfo(id) : null, this.frame);
      // A node clicked: the walk moves to the step that sends it its gradient.
      const node = id ? this.graphView.nodeOf(id) : null;
      const target = node && this.graph ? positionForNode(this.graph, node, this.player.current) : null;
      if (target !== null && target !== this.player.current && this.graph && node) {
        // The module drawn open around the node stays open, so the node (and its details) stay.
        for (const [moduleId, group] of collapsibleModules(this.graph)) if (group.members.includes(node)) this.expanded.add(moduleId);
        this.player.stop(false);
        this.player.seek(target);
      }
    };
    this.graphView.onHover = (id, at) => {
      // The card and the details panel never open together over the graph.
      if (this.details.open) return;
      this.hoverCard.show(this.graph, id ? this.graphView.boxInfo(id) : null, at, this.frame);
    };
    this.graphView.onToggleModule = (id) => this.toggleModule(id);
    byId("details-close", HTMLButtonElement).addEventListener("click", () => this.graphView.select(null));
    byId("graph-fit", HTMLButtonElement).addEventListener("click", () => this.graphView.fit());
    byId("graph-zoom-in", HTMLButtonElement).addEventListener("click", () => this.graphView.zoomBy(1.25));
    byId("graph-zoom-out", HTMLButtonElement).addEventListener("click", () => this.graphView.zoomBy(0.8));
    byId("export-svg", HTMLButtonElement).addEventListener("click", () => exportSvg(this.svg, this.graphView.size));
    byId("export-png", HTMLButtonElement).addEventListener("click", () => void exportPng(this.svg, this.graphView.size));
    byId("export-json", HTMLButtonElement).addEventListener("click", () => exportJson({ request: this.request(), response: this.response }));
    byId("share", HTMLButtonElement).addEventListener("click", () => void this.share());
    byId("present", HTMLButtonElement).addEventListener("click", () => this.setPresenting(!this.presentingNow));
    byId("present-exit", HTMLButtonElement).addEventListener("click", () => this.setPresenting(false));
    byId("shortcuts-open", HTMLButtonElement).addEventListener("click", () => this.openShortcuts());
    byId("legend-toggle", HTMLButtonElement).addEventListener("click", () => this.toggleLegend());
    renderShortcutList(byId("shortcuts-list", HTMLElement));
    const gallery = new ExamplesGallery(byId("examples-dialog", HTMLDialogElement), byId("examples-list", HTMLElement), byId("examples-open", HTMLButtonElement));
    gallery.onPick = (example) => {
      if (example.cells) {
        window.location.assign(`/notebook#lesson=${encodeURIComponent(example.id)}`); // a lesson is a notebook
        return;
      }
      this.editor.setText(example.source);
      this.store.set({ source: example.source, step: null, pass: null }, "push");
      this.run(false);
    };
    document.addEventListener("keydown", (e) => this.onPageKey(e));
    // Focusing a node off screen (Tab) would scroll the clipped graph pane; the view pans instead.
    const wrap = byId("graph-wrap", HTMLElement);
    wrap.addEventListener("scroll", () => wrap.scrollTo(0, 0));
    window.addEventListener("popstate", () => this.restoreFromUrl());
    window.addEventListener("hashchange", () => this.restoreFromUrl());
    // The pane changes size with the window and with the caption's height: keep the view legible.
    let lastSize = "";
    new ResizeObserver(() => {
      const rect = this.svg.getBoundingClientRect();
      const size = `${Math.round(rect.width)}x${Math.round(rect.height)}`;
      if (size === lastSize) return;
      lastSize = size;
      this.graphView.paneResized(this.focusNode());
    }).observe(this.svg);
    // A window resized (a tablet turned, a window dragged to the projector): perhaps another
    // arrangement now shows the graph bigger. (Not the caption's growth, which would re-lay the
    // graph out under a walk in progress.)
    window.addEventListener("resize", () => this.rearrangeSoon());
    this.devices.onChange = (device) => {
      this.store.set({ device }, "replace");
      this.run(true);
    };
    this.walkBar.update(null, null, false);
    this.walkBar.setStepOver(false, null);
    // In a short window the graph needs the rows: the legend starts folded (its button opens it).
    if (window.innerHeight < LEGEND_MIN_HEIGHT || window.innerWidth < LEGEND_MIN_WIDTH) this.setLegend(false);
    // A link asking for another device waits for the device list (it may fall back to cpu).
    const wanted = state.device;
    const ready = this.devices.load(wanted).then((device) => {
      if (device !== this.store.state.device) this.store.set({ device }, "replace");
    });
    if (wanted === DEFAULTS.device) this.run(true);
    else void ready.then(() => this.run(true));
  }

  private readonly writeUrlSoon = debounce(() => this.store.writeUrl("replace"), RUN.urlDebounceMs);
  private readonly refreshBindingsSoon = debounce(() => this.refreshBindings(), RUN.urlDebounceMs);
  private readonly rerunSoon = debounce(() => this.run(true), RUN.bindingDebounceMs);

  /** Offer controls for an expression's free variables; drop bindings it no longer uses. */
  private refreshBindings(): void {
    const source = this.store.state.source;
    const names = isExpression(source) ? freeVariables(source) : [];
    const bindings = this.bindingsPanel.render(names, this.store.state.bindings);
    this.store.set({ bindings }, "none");
  }

  private request(): RunRequest {
    const { source, device, seed, bindings } = this.store.state;
    const sent: RunRequest["bindings"] = {};
    for (const [name, b] of Object.entries(bindings) as [string, BindingState][]) {
      sent[name] = { value: b.value, requires_grad: b.requires_grad };
    }
    return { source, device, seed, bindings: sent, ...(this.store.state.compare ? { compare: true } : {}) };
  }

  /**
   * Run the program; `keepStep` keeps the walk position (URL restore, slider moves). At most one
   * run is in flight: a run asked for meanwhile waits, and only the latest waiting one is sent.
   */
  private run(keepStep: boolean): void {
    this.refreshBindings();
    if (!keepStep) this.store.set({ step: null, pass: null }, "push");
    this.svg.dataset.state = "loading";
    this.runs.submit(this.request());
  }

  private showRequestError(error: unknown): void {
    const message = error instanceof ApiError ? error.message : `the server could not be reached (${String(error)})`;
    this.showError({ type: "RequestError", message, line: null, col: null }, null);
    this.runPanel.failed();
    this.svg.dataset.state = "ready";
  }

  /** Stop ended the run: its output stays, and so does the graph on screen (marked as kept). */
  private showStopped(): void {
    this.runPanel.stopped();
    this.keeper.stopped();
    this.showGraphNote();
    this.svg.dataset.state = "ready";
  }

  /** Say over the graph whether it is an earlier run's (kept) or its program has changed. */
  private showGraphNote(): void {
    showNote(this.keeper.note(this.store.state.source), byId("graph-note", HTMLElement), this.svg);
  }

  private async showResponse(response: RunResponse, request: RunRequest): Promise<void> {
    const result = byId("result", HTMLElement);
    result.hidden = !response.result;
    byId("result-text", HTMLElement).textContent = response.result ?? "";
    const notice = byId("run-notice", HTMLElement);
    notice.textContent = response.notice ?? "";
    notice.hidden = !response.notice;
    this.runPanel.finished(response);
    // A run that failed before recording a graph keeps the one on screen (the last good run's).
    const drawn = this.keeper.accept(response, request.source);
    this.showError(response.error, drawn === null ? null : response.graph);
    this.showGraphNote();
    if (drawn !== null) {
      this.response = response;
      await this.showPass(this.store.state.step);
      if (this.response !== response) return; // a newer response is being drawn
    }
    this.runCount += 1;
    this.svg.dataset.runCount = String(this.runCount);
    this.svg.dataset.state = this.runs.running ? "loading" : "ready";
  }

  /** Show `error` in the panel and the editor; an error that names a node of `graph` links to it. */
  private showError(error: RunError | null, graph: Graph | null): void {
    this.errorPanel.hidden = error === null;
    this.editor.showError(error ? { line: error.line, col: error.col, endLine: error.end_line ?? null, endCol: error.end_col ?? null } : null);
    const node = error?.node ? graph?.nodes.find((n) => n.id === error.node) : undefined;
    this.walkBar.failed = node !== undefined;
    this.walkBar.forwardFailed = node?.kind === "error";
    byId("error-node", HTMLElement).hidden = node === undefined;
    const traceback = byId("error-traceback", HTMLElement);
    traceback.hidden = !error?.traceback;
    traceback.textContent = error?.traceback ?? "";
    if (!error) return;
    const where = error.line ? `line ${error.line}${error.col ? `:${error.col}` : ""}` : "";
    byId("error-type", HTMLElement).textContent = error.type;
    byId("error-where", HTMLElement).textContent = where;
    byId("error-message", HTMLElement).textContent = error.message;
    if (graph && node) {
      byId("error-node-link", HTMLButtonElement).textContent = nodeExpression(graph, node.id);
      const fn = node.kind === "error" ? "failed here" : (node.grad_fn ?? (node.requires_grad ? "leaf" : "leaf, requires_grad=False"));
      byId("error-node-fn", HTMLElement).textContent = `(${fn})`;
    }
  }

  /** Pick the pass to show and go to walk position `step` (null = the end). */
  private async showPass(step: number | null): Promise<void> {
    const response = this.response;
    const views = viewsOf(response);
    const failedLast = response !== null && !response.ok && views.length > 1;
    // A pass is known by its index in the program; the graph a failed call left, by -1.
    const keys = views.map((g, i) => (failedLast && i === views.length - 1 ? -1 : (g.pass_index ?? i)));
    const wanted = this.store.state.pass;
    const found = wanted === null ? -1 : keys.indexOf(wanted);
    const index = found >= 0 ? found : views.length - 1;
    const graph = views[index] ?? null;
    this.stopForward();
    this.walkBar.setPasses(views, keys, response?.passes_total, index, failedLast);
    this.graph = graph;
    this.selected = null;
    this.details.show(null, null, null);
    this.hoverCard.show(null, null, { x: 0, y: 0 }, null);
    byId("graph-empty", HTMLElement).hidden = graph !== null && graph.nodes.length > 0;
    this.compare.show(views, graph);
    this.overFrom = null;
    this.pendingOver = null;
    this.walkMoved = false;
    this.loading = true;
    if (!graph) {
      this.drawnExpansion = "";
      this.graphView.clear();
      this.player.load(0, 0);
      return;
    }
    const modules = collapsibleModules(graph);
    this.expanded = new Set([...this.expanded].filter((id) => modules.has(id)));
    this.marks = accumulationMarks(graph);
    const total = graph.walk.length;
    const position = openingPosition(total, step);
    const started = performance.now();
    const drawn = await this.draw(graph, this.expansionAt(graph, position), true, position);
    if (!drawn) return;
    this.svg.dataset.renderMs = String(Math.round(performance.now() - started));
    this.svg.dataset.nodeCount = String(graph.nodes.length);
    this.player.load(total, position);
    this.loading = false;
  }

  /** The modules open at walk position `position`: the user's, and the one the walk is inside. */
  private expansionAt(graph: Graph, position: number): Set<string> {
    const open = new Set(this.expanded);
    if (this.overFrom === null && position > 0 && position < graph.walk.length) {
      const inside = stepModule(graph, position);
      if (inside) open.add(inside);
    }
    return open;
  }

  /**
   * Lay out and draw `graph` with `expansion` open. `fresh` opens the view on the graph (legible
   * size, around the focus); otherwise the view stays and follows the walk. False when superseded.
   */
  private async draw(graph: Graph, expansion: Set<string>, fresh: boolean, position: number): Promise<boolean> {
    const token = ++this.drawToken;
    this.drawnExpansion = [...expansion].sort().join("\n");
    const display = displayGraph(graph, expansion);
    const rect = this.svg.getBoundingClientRect();
    this.drawnPane = { width: rect.width, height: rect.height };
    const keep = fresh ? null : this.graphView.arrangement;
    const request = this.graphView.build(
      { graph, display, marks: this.marks, errorNode: this.errorNodeOf(graph) },
      { width: rect.width, height: rect.height },
      keep ? [keep] : ["BT", "BT-stacked", "LR"],
    );
    const layout = await layoutGraph(request);
    if (token !== this.drawToken || this.graph !== graph) return false;
    this.graphView.place(layout);
    markCompared(this.svg, graph);
    this.svg.dataset.rankdir = layout.rankdir;
    this.svg.dataset.arrangement = layout.arrangement;
    if (fresh) {
      const active = position > 0 && position < graph.walk.length ? (graph.walk[position - 1]?.node ?? null) : null;
      this.graphView.autoView(active ?? this.errorNodeOf(graph) ?? graph.root);
    }
    if (this.selected && !this.graphView.boxInfo(this.selected)) this.graphView.select(null);
    return true;
  }

  /** The pane's size when the graph on screen was laid out. */
  private drawnPane = { width: 0, height: 0 };
  /** After a resize settles: lay out again when the pane's shape changed by a fifth or more. */
  private readonly rearrangeSoon = debounce(() => {
    const rect = this.svg.getBoundingClientRect();
    const changed = (now: number, then: number) => then > 0 && Math.abs(now - then) / then >= 0.2;
    if (changed(rect.width, this.drawnPane.width) || changed(rect.height, this.drawnPane.height)) void this.relayout();
  }, 250);

  /**
   * Lay the graph on screen out again for the pane it now has (the arrangement that shows it
   * biggest: a wide room may take it left to right), the walk kept where it is. A view the user
   * panned or zoomed is left alone.
   */
  private async relayout(): Promise<void> {
    const graph = this.graph;
    if (!graph || this.loading || this.graphView.userView) return;
    this.stopForward();
    const position = this.player.current;
    this.svg.dataset.state = "loading";
    try {
      const drawn = await this.draw(graph, this.expansionAt(graph, position), true, position);
      if (!drawn || this.graph !== graph || !this.frame) return;
      this.graphView.showFrame(this.frame, this.walkMoved || position < this.frame.total);
    } finally {
      if (this.graph === graph && !this.runs.running) this.svg.dataset.state = "ready";
    }
  }

  /** The node of `graph` the response's error names (only in the graph the error happened in). */
  private errorNodeOf(graph: Graph | null): string | null {
    const response = this.response;
    if (!graph || !response?.error?.node || graph !== response.graph) return null;
    return response.error.node;
  }

  /**
   * The node the view centres on when the graph does not fit: the active step's once the user
   * moves the walk; on opening a graph, the step a link asked for, else the error's node or the
   * root (the end of the walk is shown from the top, not from its last step).
   */
  private focusNode(): string | null {
    const frame = this.frame;
    const active = frame && (this.walkMoved || frame.position < frame.total) ? frame.active : null;
    return active ?? this.errorNodeOf(this.graph) ?? this.graph?.root ?? null;
  }

  /** Show walk position `position` everywhere and record it in the URL. */
  private async showPosition(position: number): Promise<void> {
    const graph = this.graph;
    if (graph) {
      const expansion = this.expansionAt(graph, position);
      if ([...expansion].sort().join("\n") !== this.drawnExpansion) {
        const drawn = await this.draw(graph, expansion, false, position);
        if (!drawn || this.player.current !== position) return;
      }
    }
    const from = this.overFrom ?? undefined;
    if (!this.loading) this.walkMoved = true;
    this.frame = graph ? walkFrame(graph, position, this.marks, from) : null;
    if (this.frame) this.graphView.showFrame(this.frame, this.walkMoved || position < this.frame.total);
    this.walkBar.update(graph, this.frame, this.player.playing);
    this.updateStepOver();
    if (this.selected) this.details.show(graph, this.graphView.boxInfo(this.selected), this.frame);
    const step = this.frame ? recordedStep(position, this.frame.total) : null;
    if (step !== this.store.state.step) this.store.set({ step }, "replace");
  }

  /** Offer "step over" while the next step is inside a module that is shut. */
  private updateStepOver(): void {
    const graph = this.graph;
    const position = this.player.current;
    const next = graph ? stepModule(graph, position + 1) : null;
    const module = next ? graph?.modules?.find((m) => m.id === next) : undefined;
    this.walkBar.setStepOver(next !== null && !this.expanded.has(next), module?.name ?? null);
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

  /** Open a shut module or shut an open one (a click on its box or frame title). */
  private toggleModule(id: string): void {
    if (this.expanded.has(id)) this.expanded.delete(id);
    else this.expanded.add(id);
    void this.showPosition(this.player.current);
  }

  /** `m`: open every module, or shut them all when any is open. */
  private toggleAllModules(): void {
    const graph = this.graph;
    if (!graph) return;
    const all = [...collapsibleModules(graph).keys()];
    this.expanded = this.expanded.size > 0 ? new Set() : new Set(all);
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
      this.graphView.showForward(null);
      this.walkBar.update(graph, this.frame, this.player.playing);
      return;
    }
    const frame = forwardFrame(this.forwardIds, position);
    this.graphView.showForward(frame);
    this.walkBar.showForward(graph, frame, playing);
  }

  /** The URL changed under us (back button, pasted link): load its state and re-run. */
  private restoreFromUrl(): void {
    const decoded = decodeState(window.location.hash, DEFAULTS);
    const state = { ...decoded, device: this.devices.resolve(decoded.device) };
    if (JSON.stringify(state) === JSON.stringify(this.store.state)) return;
    this.store.set(state, state.device === decoded.device ? "none" : "replace");
    this.editor.setText(state.source);
    this.run(true);
  }

  private async share(): Promise<void> {
    this.store.writeUrl("replace");
    const link = this.store.link();
    const field = byId("share-url", HTMLInputElement);
    field.value = link;
    field.hidden = false;
    try {
      await navigator.clipboard.writeText(link);
      this.runPanel.say("Link copied");
    } catch {
      field.select();
      this.runPanel.say("Copy the link from the field");
    }
  }

  private setPresenting(on: boolean): void {
    this.presentingNow = on;
    document.body.classList.toggle("presenting", on);
    byId("present", HTMLButtonElement).setAttribute("aria-pressed", String(on));
    // The legend folds away while presenting (its button brings it back).
    this.setLegend(!on);
    this.graphView.presenting = on;
    this.hoverCard.show(null, null, { x: 0, y: 0 }, null);
    // Legible at once for the new mode; then, the pane's shape having changed, laid out again (a
    // wide room may take the graph sideways).
    requestAnimationFrame(() => {
      this.graphView.autoView(this.focusNode());
      void this.relayout();
    });
    if (on) this.svg.focus();
  }

  private setLegend(open: boolean): void {
    byId("legend", HTMLElement).hidden = !open;
    byId("legend-toggle", HTMLButtonElement).setAttribute("aria-expanded", String(open));
  }

  private toggleLegend(): void {
    this.setLegend(byId("legend", HTMLElement).hidden === true);
    requestAnimationFrame(() => this.graphView.autoView(this.focusNode()));
  }

  private openShortcuts(): void {
    if (!this.shortcutsDialog.open) this.shortcutsDialog.showModal();
  }

  /** Page-wide shortcuts (shortcuts.ts), except where the focused control owns the key. */
  private onPageKey(e: KeyboardEvent): void {
    if (e.defaultPrevented) return;
    const action = actionFor(e);
    if (action === null) return;
    if (action === "run") {
      // The editor runs on Ctrl+Enter itself; elsewhere on the page this does.
      if (ownedByFocus(e)) return;
      this.run(false);
      e.preventDefault();
      return;
    }
    if (ownedByFocus(e)) return;
    const actions: Record<Exclude<Action, "run">, () => void> = {
      next: () => this.player.next(),
      prev: () => this.player.prev(),
      over: () => this.stepOver(1),
      backOver: () => this.stepOver(-1),
      play: () => this.player.toggle(),
      first: () => this.player.first(),
      last: () => this.player.last(),
      forward: () => this.toggleForward(),
      modules: () => this.toggleAllModules(),
      zoomIn: () => this.graphView.zoomBy(1.25),
      zoomOut: () => this.graphView.zoomBy(0.8),
      fit: () => this.graphView.fit(),
      present: () => this.setPresenting(!this.presentingNow),
      leave: () => {
        if (this.details.open) this.graphView.select(null);
        else if (this.presentingNow) this.setPresenting(false);
      },
      help: () => this.openShortcuts(),
    };
    actions[action]();
    e.preventDefault();
  }
}

setupTheme(byId("theme-toggle", HTMLButtonElement));
new Playground();
