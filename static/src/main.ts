/**
 * The playground page: wires the state store, editor, runner, graph view, walk player and panels.
 * Each concern lives in its own module; this file only connects them.
 */
import { ApiError, runProgram } from "./api";
import { BindingsPanel } from "./bindings-panel";
import { CompareControl, markCompared } from "./compare";
import { PLAYER, RUN } from "./config";
import { DetailsPanel, HoverCard } from "./details";
import { DevicePicker } from "./device-picker";
import { byId } from "./dom";
import { Editor } from "./editor";
import { ExamplesGallery } from "./examples";
import { exportJson, exportPng, exportSvg } from "./export";
import { freeVariables, isExpression } from "./freevars";
import { forwardFrame, forwardOrder, nodeExpression, receiptCounts, walkFrame, type WalkFrame } from "./graphmodel";
import { layoutGraph } from "./layout";
import { Player } from "./player";
import { GraphView } from "./render";
import { decodeState, Store, type AppState, type BindingState } from "./state";
import { setupTheme } from "./theme";
import type { Graph, RunError, RunRequest, RunResponse } from "./types";
import { WalkBar } from "./walkbar";

/** The lessons' tiny example as an expression; its inputs start at the lesson's values. */
const DEFAULTS: AppState = {
  source: "(w*x + b - y)**2\n",
  bindings: {
    w: { value: 0.5, requires_grad: true },
    x: { value: 2, requires_grad: false },
    b: { value: 0, requires_grad: true },
    y: { value: 7, requires_grad: false },
  },
  device: "cpu",
  seed: 0,
  step: null,
  pass: null,
  compare: false,
};

function debounce<A extends unknown[]>(fn: (...args: A) => void, ms: number): (...args: A) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: A) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** True when a key press belongs to a text field (so page shortcuts must not steal it). */
function isTyping(event: KeyboardEvent): boolean {
  // composedPath()[0] sees through the editor's shadow root to the element really typed into.
  const target = event.composedPath()[0] ?? event.target;
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))
  );
}

class Playground {
  private readonly store = new Store(decodeState(window.location.hash, DEFAULTS));
  private readonly svg = document.querySelector<SVGSVGElement>("svg[data-testid=graph]")!;
  private readonly graphView = new GraphView(this.svg);
  private readonly player = new Player();
  /** Replays the forward pass: position k = the first k nodes (topological order) computed. */
  private readonly forward = new Player(PLAYER.forwardStepMs);
  private readonly walkBar = new WalkBar(this.player, this.forward);
  private readonly details = new DetailsPanel(byId("details", HTMLElement), byId("details-body", HTMLElement), byId("details-title", HTMLElement));
  private readonly bindingsPanel = new BindingsPanel(byId("bindings", HTMLElement), byId("bindings-list", HTMLElement));
  private readonly hoverCard = new HoverCard(byId("hovercard", HTMLElement), byId("graph-wrap", HTMLElement));
  private readonly stdout = byId("stdout", HTMLElement);
  private readonly errorPanel = byId("error", HTMLElement);
  private readonly status = byId("run-status", HTMLElement);
  private readonly devices = new DevicePicker(byId("device", HTMLSelectElement), byId("device-note", HTMLElement));
  private readonly editor: Editor;
  private readonly compare = new CompareControl(() => this.store.state.compare);

  private response: RunResponse | null = null;
  private graph: Graph | null = null;
  private receipts = new Map<string, number>();
  private forwardIds: string[] = [];
  private frame: WalkFrame | null = null;
  private selected: string | null = null;
  private runCount = 0;
  private inflight: AbortController | null = null;

  constructor() {
    const state = this.store.state;
    this.editor = new Editor({
      parent: byId("editor-host", HTMLElement),
      doc: state.source,
      onRun: () => void this.run(false),
      onChange: (source) => {
        this.store.set({ source }, "none");
        this.writeUrlSoon();
        this.refreshBindingsSoon();
      },
    });
    this.refreshBindings();
    this.bindingsPanel.onChange = (bindings) => {
      this.store.set({ bindings }, "none");
      this.writeUrlSoon();
      this.rerunSoon();
    };
    this.player.onChange = (position) => {
      // Any move of the backward walk ends a forward replay in progress.
      this.stopForward();
      this.showPosition(position);
    };
    this.forward.onChange = (position, playing) => this.showForward(position, playing);
    this.compare.onToggle = (compare) => {
      this.store.set({ compare }, "replace");
      void this.run(true);
    };
    this.walkBar.onForward = () => this.toggleForward();
    byId("error-node-link", HTMLButtonElement).addEventListener("click", () => {
      const id = this.response?.error?.node;
      if (id) this.graphView.select(id);
    });
    this.walkBar.onPass = (pass) => {
      this.store.set({ pass, step: null }, "replace");
      this.showPass(null);
    };
    this.graphView.onSelect = (id) => {
      this.selected = id;
      this.details.show(this.graph, id, id ? this.frame?.grads.get(id) : undefined);
    };
    this.graphView.onHover = (id, at) => this.hoverCard.show(this.graph, id, at, id ? this.frame?.grads.get(id) : undefined);
    byId("details-close", HTMLButtonElement).addEventListener("click", () => this.graphView.select(null));
    byId("run", HTMLButtonElement).addEventListener("click", () => void this.run(false));
    byId("graph-fit", HTMLButtonElement).addEventListener("click", () => this.graphView.fit());
    byId("graph-zoom-in", HTMLButtonElement).addEventListener("click", () => this.graphView.zoomBy(1.25));
    byId("graph-zoom-out", HTMLButtonElement).addEventListener("click", () => this.graphView.zoomBy(0.8));
    byId("export-svg", HTMLButtonElement).addEventListener("click", () => exportSvg(this.svg, this.graphView.size));
    byId("export-png", HTMLButtonElement).addEventListener("click", () => void exportPng(this.svg, this.graphView.size));
    byId("export-json", HTMLButtonElement).addEventListener("click", () =>
      exportJson({ request: this.request(), response: this.response }),
    );
    byId("share", HTMLButtonElement).addEventListener("click", () => void this.share());
    byId("present", HTMLButtonElement).addEventListener("click", () => this.setPresenting(!this.presenting));
    const gallery = new ExamplesGallery(byId("examples-dialog", HTMLDialogElement), byId("examples-list", HTMLElement), byId("examples-open", HTMLButtonElement));
    gallery.onPick = (example) => {
      this.editor.setText(example.source);
      this.store.set({ source: example.source, step: null, pass: null }, "push");
      void this.run(false);
    };
    this.svg.addEventListener("keydown", (e) => this.onGraphKey(e));
    document.addEventListener("keydown", (e) => this.onPageKey(e));
    window.addEventListener("popstate", () => this.restoreFromUrl());
    window.addEventListener("hashchange", () => this.restoreFromUrl());
    let resizeTimer: ReturnType<typeof setTimeout> | undefined;
    window.addEventListener("resize", () => {
      clearTimeout(resizeTimer);
      resizeTimer = setTimeout(() => this.graphView.fit(), 100);
    });
    this.devices.onChange = (device) => {
      this.store.set({ device }, "replace");
      void this.run(true);
    };
    this.walkBar.update(null, null, false);
    // A link asking for another device waits for the device list (it may fall back to cpu).
    const wanted = state.device;
    const ready = this.devices.load(wanted).then((device) => {
      if (device !== this.store.state.device) this.store.set({ device }, "replace");
    });
    if (wanted === DEFAULTS.device) void this.run(true);
    else void ready.then(() => this.run(true));
  }

  private readonly writeUrlSoon = debounce(() => this.store.writeUrl("replace"), RUN.urlDebounceMs);
  private readonly refreshBindingsSoon = debounce(() => this.refreshBindings(), RUN.urlDebounceMs);
  private readonly rerunSoon = debounce(() => void this.run(true), RUN.bindingDebounceMs);

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

  /** Run the program; `keepStep` keeps the walk position (URL restore, slider moves). */
  private async run(keepStep: boolean): Promise<void> {
    this.inflight?.abort();
    const controller = new AbortController();
    this.inflight = controller;
    this.refreshBindings();
    if (!keepStep) this.store.set({ step: null, pass: null }, "push");
    this.status.textContent = "Running…";
    this.svg.dataset.state = "loading";
    const started = performance.now();
    let response: RunResponse;
    try {
      response = await runProgram(this.request(), controller.signal);
    } catch (error) {
      if (controller.signal.aborted) return;
      const message = error instanceof ApiError ? error.message : `the server could not be reached (${String(error)})`;
      this.showError({ type: "RequestError", message, line: null, col: null }, null);
      this.status.textContent = "";
      this.svg.dataset.state = "ready";
      return;
    }
    if (controller.signal.aborted) return;
    this.inflight = null;
    this.response = response;
    this.stdout.textContent = response.stdout;
    this.stdout.classList.toggle("empty", response.stdout === "");
    const notice = byId("run-notice", HTMLElement);
    notice.textContent = response.notice ?? "";
    notice.hidden = !response.notice;
    this.showError(response.error, response.graph);
    const serverMs = Math.round(performance.now() - started);
    this.status.textContent = response.ok ? `Ran on ${response.device} in ${serverMs} ms` : `Stopped with an error (on ${response.device})`;
    this.status.dataset.device = response.device;
    await this.showPass(this.store.state.step);
    if (controller.signal.aborted) return;
    this.runCount += 1;
    this.svg.dataset.runCount = String(this.runCount);
    this.svg.dataset.state = "ready";
  }

  /** Show `error` in the panel and the editor; an autograd error names its node of `graph`. */
  private showError(error: RunError | null, graph: Graph | null): void {
    this.errorPanel.hidden = error === null;
    this.editor.showError(error ? { line: error.line, col: error.col } : null);
    const node = error?.node ? graph?.nodes.find((n) => n.id === error.node) : undefined;
    this.walkBar.failed = node !== undefined;
    byId("error-node", HTMLElement).hidden = node === undefined;
    if (!error) return;
    const where = error.line ? `line ${error.line}${error.col ? `:${error.col}` : ""}` : "";
    byId("error-type", HTMLElement).textContent = error.type;
    byId("error-where", HTMLElement).textContent = where;
    byId("error-message", HTMLElement).textContent = error.message;
    if (graph && node) {
      byId("error-node-link", HTMLButtonElement).textContent = nodeExpression(graph, node.id);
      byId("error-node-fn", HTMLElement).textContent = `(${node.grad_fn ?? (node.requires_grad ? "leaf" : "leaf, requires_grad=False")})`;
    }
  }

  /** Lay out and draw the selected pass, then go to walk position `step` (null = the end). */
  private async showPass(step: number | null): Promise<void> {
    const response = this.response;
    const passes = response?.passes?.length ? response.passes : response?.graph ? [response.graph] : [];
    const wanted = this.store.state.pass;
    const index = wanted === null || wanted >= passes.length ? passes.length - 1 : Math.max(0, wanted);
    const graph = passes[index] ?? response?.graph ?? null;
    this.stopForward();
    this.walkBar.setPasses(passes.length, index);
    this.graph = graph;
    this.selected = null;
    this.details.show(null, null, undefined);
    this.hoverCard.show(null, null, { x: 0, y: 0 }, undefined);
    byId("graph-empty", HTMLElement).hidden = graph !== null && graph.nodes.length > 0;
    this.compare.show(passes, graph);
    if (!graph) {
      this.graphView.clear();
      this.player.load(0, 0);
      return;
    }
    const started = performance.now();
    const layout = await layoutGraph(graph);
    if (this.graph !== graph) return;
    this.graphView.render(graph, layout);
    this.graphView.fitReadable(graph.root);
    this.svg.dataset.renderMs = String(Math.round(performance.now() - started));
    this.svg.dataset.nodeCount = String(graph.nodes.length);
    this.graphView.markError(response?.error?.node ?? null);
    markCompared(this.svg, graph);
    this.receipts = receiptCounts(graph);
    this.player.load(graph.walk.length, step ?? graph.walk.length);
  }

  /** Show walk position `position` everywhere and record it in the URL. */
  private showPosition(position: number): void {
    const graph = this.graph;
    this.frame = graph ? walkFrame(graph, position, this.receipts) : null;
    if (this.frame) this.graphView.showFrame(this.frame);
    this.walkBar.update(graph, this.frame, this.player.playing);
    if (this.selected) this.details.show(graph, this.selected, this.frame?.grads.get(this.selected));
    const step = this.frame && position < this.frame.total ? position : null;
    if (step !== this.store.state.step) this.store.set({ step }, "replace");
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
    void this.run(true);
  }

  private async share(): Promise<void> {
    this.store.writeUrl("replace");
    const link = this.store.link();
    const field = byId("share-url", HTMLInputElement);
    field.value = link;
    field.hidden = false;
    try {
      await navigator.clipboard.writeText(link);
      this.status.textContent = "Link copied";
    } catch {
      field.select();
      this.status.textContent = "Copy the link from the field";
    }
  }

  private get presenting(): boolean {
    return document.body.classList.contains("presenting");
  }

  private setPresenting(on: boolean): void {
    document.body.classList.toggle("presenting", on);
    byId("present", HTMLButtonElement).setAttribute("aria-pressed", String(on));
    requestAnimationFrame(() => this.graphView.fit());
    if (on) this.svg.focus();
  }

  /** Walk keys while the graph has focus. */
  private onGraphKey(e: KeyboardEvent): void {
    if (e.ctrlKey || e.metaKey || e.altKey) return; // Ctrl+F stays the browser's find
    if (this.walkKey(e.key)) e.preventDefault();
  }

  private walkKey(key: string): boolean {
    const actions: Record<string, () => void> = {
      ArrowLeft: () => this.player.prev(),
      ArrowRight: () => this.player.next(),
      " ": () => this.player.toggle(),
      f: () => this.toggleForward(),
      F: () => this.toggleForward(),
      Home: () => this.player.first(),
      End: () => this.player.last(),
    };
    const action = actions[key];
    action?.();
    return action !== undefined;
  }

  /** Page-wide keys: `p` toggles presentation, Escape leaves it; in presentation, walk keys too. */
  private onPageKey(e: KeyboardEvent): void {
    if (e.defaultPrevented || isTyping(e) || e.ctrlKey || e.metaKey || e.altKey) return;
    if (e.key === "p" || e.key === "P") {
      this.setPresenting(!this.presenting);
      e.preventDefault();
    } else if (e.key === "Escape" && this.presenting) {
      this.setPresenting(false);
    } else if (this.presenting && e.target !== this.svg && this.walkKey(e.key)) {
      e.preventDefault();
    }
  }
}

setupTheme(byId("theme-toggle", HTMLButtonElement));
new Playground();
