/**
 * The playground page: connects the state store (playground/state.ts, the URL), the editor, the run
 * controller and its panels (output, error, result, bindings, device, compare) to the walk view
 * (walk/view.ts: the graph, its passes and the backward walk), and the page's own controls
 * (share, presentation mode, legend, keyboard shortcuts, the gallery).
 */
import { ApiError, runProgramLive } from "../api/client";
import { BindingsPanel } from "./bindings-panel";
import { CompareControl, markCompared } from "../graph/pytorch-compare";
import { RUN } from "../common/config";
import { DevicePicker } from "../common/device-picker";
import { byId, offerLink } from "../common/dom";
import { bindWrapToggle, Editor, wrapPreference } from "../editor/code-editor";
import { ExamplesGallery } from "./examples-gallery";
import { exportJson, exportPng, exportSvg } from "./export";
import { freeVariables, isExpression } from "./freevars";
import { nodeExpression } from "../graph/model";
import { GraphKeeper, showNote } from "./kept-graph";
import { RunController } from "../run/controller";
import { RunPanel } from "../run/panel";
import { actionFor, ownedByFocus, renderShortcutList, type Action } from "../common/shortcuts";
import { decodeState, Store, type AppState, type BindingState } from "./state";
import { Splitter } from "./splitter";
import { setupTheme } from "../common/theme";
import type { Graph, RunError, RunRequest, RunResponse } from "../api/types";
import { WalkView } from "../walk/view";
import { openingPosition, recordedStep } from "../walk/navigation";

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
  practice: false,
};

/** The page's one-column layout (phones, upright tablets: playground.css's breakpoint). */
const ONE_COLUMN = "(max-width: 900px)";

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

class Playground {
  private readonly store = new Store(decodeState(window.location.hash, DEFAULTS));
  private readonly walk = new WalkView({
    opening: openingPosition,
    clickMovesWalk: true,
    decorate: markCompared,
    busy: () => this.runs.running,
  });
  private readonly svg = this.walk.svg;
  private readonly bindingsPanel = new BindingsPanel(byId("bindings", HTMLElement), byId("bindings-list", HTMLElement));
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
  /** The user asked for a run: in one column, its graph is scrolled into view once drawn. */
  private revealGraph = false;
  private runCount = 0;
  private presentingNow = false;

  constructor() {
    const state = this.store.state;
    this.runs = new RunController<RunRequest, RunResponse>({
      send: (request, signal, output, stoppable) => runProgramLive(request, signal, output, stoppable),
      onStart: () => this.runPanel.started(),
      onOutput: (text) => this.runPanel.output(text),
      onResult: (response, request) => void this.showResponse(response, request),
      onError: (error) => this.showRequestError(error),
      onBusy: (seconds) => this.runPanel.busy(seconds),
      onStopped: () => this.showStopped(),
      onStopping: () => this.runPanel.stopping(),
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
    this.compare.onToggle = (compare) => {
      this.store.set({ compare }, "replace");
      void this.run(true);
    };
    byId("error-node-link", HTMLButtonElement).addEventListener("click", () => {
      const id = this.response?.error?.node;
      if (id) this.walk.selectNode(id);
    });
    this.walk.onPass = (pass) => this.store.set({ pass, step: null }, "replace");
    this.walk.onPassShown = (views, graph) => this.compare.show(views, graph);
    this.walk.onPosition = (position, total) => {
      const step = total > 0 ? recordedStep(position, total) : null;
      if (step !== this.store.state.step) this.store.set({ step }, "replace");
    };
    byId("export-svg", HTMLButtonElement).addEventListener("click", () => exportSvg(this.svg, this.walk.view.size));
    byId("export-png", HTMLButtonElement).addEventListener("click", () => void exportPng(this.svg, this.walk.view.size));
    byId("export-json", HTMLButtonElement).addEventListener("click", () => exportJson({ request: this.request(), response: this.response }));
    byId("share", HTMLButtonElement).addEventListener("click", () => void this.share());
    byId("practice-toggle", HTMLButtonElement).addEventListener("click", () => this.setPractice(!this.store.state.practice));
    this.showPractice();
    byId("present", HTMLButtonElement).addEventListener("click", () => this.setPresenting(!this.presentingNow));
    byId("present-exit", HTMLButtonElement).addEventListener("click", () => this.setPresenting(false));
    byId("shortcuts-open", HTMLButtonElement).addEventListener("click", () => this.openShortcuts());
    byId("legend-toggle", HTMLButtonElement).addEventListener("click", () => this.toggleLegend());
    renderShortcutList(byId("shortcuts-list", HTMLElement));
    const gallery = new ExamplesGallery(byId("examples-dialog", HTMLDialogElement), byId("examples-list", HTMLElement), byId("examples-open", HTMLButtonElement));
    gallery.onPick = (example, practice) => {
      if (example.cells) {
        // a lesson is a notebook
        window.location.assign(`/notebook#lesson=${encodeURIComponent(example.id)}${practice ? "&practice=1" : ""}`);
        return;
      }
      this.editor.setText(example.source);
      this.store.set({ source: example.source, step: null, pass: null, practice }, "push");
      this.showPractice();
      this.run(false);
    };
    document.addEventListener("keydown", (e) => this.onPageKey(e));
    window.addEventListener("popstate", () => this.restoreFromUrl());
    window.addEventListener("hashchange", () => this.restoreFromUrl());
    // A window resized (a tablet turned, a window dragged to the projector): perhaps another
    // arrangement now shows the graph bigger. (Not the caption's growth, which would re-lay the
    // graph out under a walk in progress.)
    window.addEventListener("resize", () => this.rearrangeSoon());
    this.devices.onChange = (device) => {
      this.store.set({ device }, "replace");
      this.run(true);
    };
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
  /** After a resize settles, perhaps another arrangement shows the graph bigger. */
  private readonly rearrangeSoon = debounce(() => this.walk.paneSettled(), 250);

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
    const { compare, practice } = this.store.state;
    return { source, device, seed, bindings: sent, ...(compare ? { compare: true } : {}), ...(practice ? { practice: true } : {}) };
  }

  /**
   * Run the program; `keepStep` keeps the walk position (URL restore, slider moves). At most one
   * run is in flight: a run asked for meanwhile waits, and only the latest waiting one is sent.
   */
  private run(keepStep: boolean): void {
    this.refreshBindings();
    if (!keepStep) this.store.set({ step: null, pass: null }, "push");
    // Run pressed (not a slider's re-run, not the page's first run): on a phone the graph is a
    // screen below the program, so the answer is brought into view.
    this.revealGraph = !keepStep && window.matchMedia(ONE_COLUMN).matches;
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
    this.runPanel.finished(response);
    // A run that failed before recording a graph keeps the one on screen (the last good run's).
    const drawn = this.keeper.accept(response, request.source);
    this.showError(response.error, drawn === null ? null : response.graph);
    this.showGraphNote();
    if (drawn !== null) {
      this.response = response;
      await this.showPass();
      if (this.response !== response) return; // a newer response is being drawn
    }
    // (An error stays in sight instead: its panel is above, by the program.)
    if (this.revealGraph && drawn !== null && response.error === null) this.bringGraphIntoView();
    this.revealGraph = false;
    this.runCount += 1;
    this.svg.dataset.runCount = String(this.runCount);
    this.svg.dataset.state = this.runs.running ? "loading" : "ready";
  }

  /** Scroll the page so the graph pane (its note, graph and walk bar) fills the screen. */
  private bringGraphIntoView(): void {
    const reduced = window.matchMedia("(prefers-reduced-motion: reduce)").matches;
    const stage = this.svg.closest<HTMLElement>(".stage") ?? this.svg;
    // The focus stays where it was (the editor, Run): only the view moves.
    stage.scrollIntoView({ block: "start", behavior: reduced ? "auto" : "smooth" });
  }

  /** Show `error` in the panel and the editor; an error that names a node of `graph` links to it. */
  private showError(error: RunError | null, graph: Graph | null): void {
    this.errorPanel.hidden = error === null;
    this.editor.showError(error ? { line: error.line, col: error.col, endLine: error.end_line ?? null, endCol: error.end_col ?? null } : null);
    const node = error?.node ? graph?.nodes.find((n) => n.id === error.node) : undefined;
    this.walk.markFailed(node);
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

  /** Show the response's pass the URL asks for, at its step. */
  private async showPass(): Promise<void> {
    const { pass, step } = this.store.state;
    await this.walk.show(this.response, step, pass);
  }

  /** The URL changed under us (back button, pasted link): load its state and re-run. */
  private restoreFromUrl(): void {
    const decoded = decodeState(window.location.hash, DEFAULTS);
    const state = { ...decoded, device: this.devices.resolve(decoded.device) };
    if (JSON.stringify(state) === JSON.stringify(this.store.state)) return;
    this.store.set(state, state.device === decoded.device ? "none" : "replace");
    this.showPractice();
    this.editor.setText(state.source);
    this.run(true);
  }

  private async share(): Promise<void> {
    this.store.writeUrl("replace");
    await offerLink(this.store.link(), (message) => this.runPanel.say(message));
  }

  /** Practice mode on or off: the program runs again (asking for the walk's questions when on)
   * and the walk opens at its first step. */
  private setPractice(on: boolean): void {
    this.store.set({ practice: on, step: null }, "replace");
    this.showPractice();
    this.run(true);
  }

  /** The toggle and the walk view follow the state's practice flag. */
  private showPractice(): void {
    const on = this.store.state.practice;
    byId("practice-toggle", HTMLButtonElement).setAttribute("aria-pressed", String(on));
    document.body.classList.toggle("practicing", on);
    this.walk.setPractice(on);
  }

  private setPresenting(on: boolean): void {
    this.presentingNow = on;
    document.body.classList.toggle("presenting", on);
    byId("present", HTMLButtonElement).setAttribute("aria-pressed", String(on));
    // The legend folds away while presenting (its button brings it back).
    this.setLegend(!on);
    this.walk.setPresenting(on);
    if (on) this.svg.focus();
  }

  private setLegend(open: boolean): void {
    byId("legend", HTMLElement).hidden = !open;
    byId("legend-toggle", HTMLButtonElement).setAttribute("aria-expanded", String(open));
  }

  private toggleLegend(): void {
    this.setLegend(byId("legend", HTMLElement).hidden === true);
    requestAnimationFrame(() => this.walk.refocus());
  }

  private openShortcuts(): void {
    if (!this.shortcutsDialog.open) this.shortcutsDialog.showModal();
  }

  /** Page-wide shortcuts (common/shortcuts.ts), except where the focused control owns the key. */
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
    const page: Partial<Record<Action, () => void>> = {
      present: () => this.setPresenting(!this.presentingNow),
      practice: () => this.setPractice(!this.store.state.practice),
      leave: () => {
        if (this.walk.detailsOpen) this.walk.unselect();
        else if (this.presentingNow) this.setPresenting(false);
      },
      help: () => this.openShortcuts(),
    };
    const own = page[action];
    if (own) own();
    else if (!this.walk.act(action)) return;
    e.preventDefault();
  }
}

setupTheme(byId("theme-toggle", HTMLButtonElement));
new Playground();
