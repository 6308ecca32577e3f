/**
 * The notebook page (/notebook): markdown and code cells; Shift+Enter runs a cell,
 * which runs cells 1..k in one jailed worker from the seed (POST /api/v1/notebook/run/stream)
 * so each cell sees the state the cells above it left; its output streams under it and the
 * graph it recorded is drawn beside it with the walk. The lessons open as notebooks; .ipynb
 * files come in and go out; a share link carries the cells. This file connects the modules:
 * the model (notebook/model.ts), the cells (notebook/cell-view.ts), the graph pane
 * (notebook/graph-pane.ts), the run controller shared with the playground, and the URL state
 * (notebook/state.ts).
 */
import { ApiError, fetchExamples, runNotebookLive } from "../api/client";
import { CellView } from "./cell-view";
import { byId, el, offerLink } from "../common/dom";
import { GraphPane } from "./graph-pane";
import { IpynbError, parseIpynb, toIpynb, type CellOutputs } from "./ipynb";
import { isExercise, NotebookModel } from "./model";
import { decodeNotebookState, NotebookStore, packCells, PackError, unpackCells } from "./state";
import { RunController } from "../run/controller";
import { actionFor, ownedByFocus, renderShortcutList } from "../common/shortcuts";
import { setupTheme } from "../common/theme";
import type { Example, NotebookCell, NotebookRunRequest, NotebookRunResponse } from "../api/types";

/** A notebook of one's own, when the link names none: the lessons' tiny example, in cells. */
const STARTER: NotebookCell[] = [
  {
    kind: "markdown",
    source:
      "# A notebook of your own\n\nEach code cell runs with what the cells above it left: **Shift+Enter** runs a cell (the cells above it run first, in order, from the same seed every time), shows what it printed under it and draws the graph it recorded beside it, with its backward walk. Open **Lessons** for the course's lessons as notebooks, or **Import .ipynb** for one of yours.",
  },
  { kind: "code", source: "import torch\n\nw = torch.tensor(0.5, requires_grad=True)\nb = torch.tensor(0.0, requires_grad=True)\nx, y = torch.tensor(2.0), torch.tensor(7.0)" },
  { kind: "code", source: "p = w * x + b\nerr = p - y\nprint(err)" },
  { kind: "code", source: "loss = err ** 2\nloss.backward()\nprint(w.grad, b.grad)   # dL/dw = 2·err·x = -24, dL/db = -12" },
];

/** A run in flight: what was sent, for which cell, and what each cell printed so far. */
interface Run {
  request: NotebookRunRequest;
  index: number;
  seed: number;
  printed: Map<number, string>;
  live: number | null;
  started: number;
}

class NotebookPage {
  private readonly store = new NotebookStore(decodeNotebookState(window.location.hash));
  private readonly pane = new GraphPane();
  private readonly list = byId("cells", HTMLElement);
  private readonly status = byId("notebook-status", HTMLElement);
  private readonly title = byId("notebook-title", HTMLElement);
  private readonly graphTitle = byId("graph-cell", HTMLElement);
  private readonly graphNote = byId("graph-note", HTMLElement);
  private readonly stopButton = byId("stop", HTMLButtonElement);
  private model = new NotebookModel([], 0);
  private views: CellView[] = [];
  private selected: number | null = null;
  private run: Run | null = null;
  private readonly runs: RunController<Run, NotebookRunResponse>;
  private lessons: Example[] | null = null;
  private packToken = 0;
  /** A link named a cell and its walk position: shown once that cell's run answers. */
  private linked: { cell: number; step: number | null; pass: number | null } | null = null;
  /** The code cells a Run all still has to run, in order (their indices). */
  private chain: number[] = [];

  constructor() {
    this.runs = new RunController<Run, NotebookRunResponse>({
      send: (run, signal, output, stoppable) => runNotebookLive(run.request, signal, output, (cell) => this.cellStarted(run, cell), stoppable),
      onStart: (run) => this.started(run),
      onOutput: (text, _ms, run) => this.printed(run, text),
      onResult: (response, run) => this.answered(response, run),
      onError: (error, run) => this.failed(error, run),
      onBusy: (seconds) => this.say(seconds > 0 ? `The server is busy: retrying in ${seconds} s. Your cells are kept.` : "Retrying…", "busy"),
      onStopped: (run) => this.stopped(run),
      onStopping: () => this.say("Stopping… keeping what the cells printed and recorded (Stop again to stop at once)", "stopping"),
    });
    this.pane.onPosition = (step, pass) => this.store.set({ step, pass }, "replace");
    byId("run-all", HTMLButtonElement).addEventListener("click", () => this.runAll());
    this.stopButton.addEventListener("click", () => this.runs.stop());
    byId("add-code", HTMLButtonElement).addEventListener("click", () => this.insert(this.model.cells.length, "code"));
    byId("add-text", HTMLButtonElement).addEventListener("click", () => this.insert(this.model.cells.length, "markdown"));
    byId("export-ipynb", HTMLButtonElement).addEventListener("click", () => this.exportIpynb());
    const file = byId("import-ipynb", HTMLInputElement);
    file.addEventListener("change", () => {
      const chosen = file.files?.[0];
      if (chosen) void this.importIpynb(chosen);
      file.value = "";
    });
    byId("share", HTMLButtonElement).addEventListener("click", () => void this.share());
    byId("practice-toggle", HTMLButtonElement).addEventListener("click", () => this.setPractice(!this.store.state.practice));
    byId("examples-open", HTMLButtonElement).addEventListener("click", () => void this.openLessons());
    byId("shortcuts-open", HTMLButtonElement).addEventListener("click", () => byId("shortcuts-dialog", HTMLDialogElement).showModal());
    renderShortcutList(byId("shortcuts-list", HTMLElement));
    document.addEventListener("keydown", (e) => this.onKey(e));
    window.addEventListener("hashchange", () => void this.fromUrl());
    void this.fromUrl();
  }

  // ---- opening ------------------------------------------------------------------------------

  /** Open what the link says: a lesson, the cells it carries, or the starter notebook. */
  private async fromUrl(): Promise<void> {
    const state = decodeNotebookState(window.location.hash);
    const same = state.lesson === this.store.state.lesson && state.nb === this.store.state.nb && this.views.length > 0;
    this.store.set(state, "none");
    this.showPractice();
    if (same) return;
    try {
      if (state.nb) this.open(await unpackCells(state.nb), "Notebook from a link");
      else if (state.lesson) {
        const lesson = (await this.lessonList()).find((e) => e.id === state.lesson);
        if (!lesson?.cells) throw new PackError(`there is no lesson "${state.lesson}"`);
        this.open(lesson.cells, lesson.title, lesson.id);
      } else this.open(STARTER, "Your notebook");
      // A link to a cell's graph: run that cell (and those above it) and open its walk there.
      const index = state.cell === null ? -1 : this.model.indexOf(state.cell);
      if (state.cell !== null && index >= 0) {
        this.linked = { cell: state.cell, step: state.step, pass: state.pass };
        this.runCell(index);
      }
    } catch (error) {
      this.open(STARTER, "Your notebook");
      this.say(`Could not open the link: ${error instanceof Error ? error.message : String(error)}`, "error");
    }
  }

  private async lessonList(): Promise<Example[]> {
    this.lessons ??= (await fetchExamples()).filter((e) => Array.isArray(e.cells));
    return this.lessons;
  }

  /** Show `cells` as the notebook (their outputs unknown until they run). */
  private open(cells: NotebookCell[], title: string, lesson = ""): void {
    this.runs.stop();
    this.model = new NotebookModel(cells, this.store.state.seed);
    this.title.textContent = title;
    this.title.dataset.lesson = lesson;
    this.views = [];
    this.list.replaceChildren();
    for (const cell of this.model.cells) this.views.push(this.view(cell));
    this.list.append(...this.views.map((v) => v.root));
    this.selected = null;
    this.refresh();
    void this.pane.show(null, null, null);
    this.showGraphTitle();
    this.list.dataset.state = "ready";
  }

  private view(cell: NotebookModel["cells"][number]): CellView {
    return new CellView(cell, {
      run: (view, next) => {
        const index = this.indexOf(view);
        if (view.state.kind === "code") this.runCell(index);
        if (next) this.views[index + 1]?.focus();
      },
      edit: (view, source) => this.edited(this.indexOf(view), source),
      showGraph: (view) => void this.showGraph(this.indexOf(view), null, null),
      insert: (view, kind) => this.insert(this.indexOf(view) + 1, kind),
      remove: (view) => this.remove(this.indexOf(view)),
      move: (view, by) => this.move(this.indexOf(view), by),
      stop: () => this.runs.stop(),
    });
  }

  private indexOf(view: CellView): number {
    return this.views.indexOf(view);
  }

  // ---- editing ------------------------------------------------------------------------------

  private edited(index: number, source: string): void {
    this.model.edit(index, source);
    this.refresh();
    this.showGraphTitle();
    this.cellsChanged();
  }

  private insert(index: number, kind: "markdown" | "code"): void {
    const cell = this.model.insert(index, kind);
    const view = this.view(cell);
    this.views.splice(index, 0, view);
    const after = this.views[index + 1];
    if (after) this.list.insertBefore(view.root, after.root);
    else this.list.append(view.root);
    this.afterStructureChange();
    view.focus();
  }

  private remove(index: number): void {
    const [view] = this.views.splice(index, 1);
    view?.root.remove();
    this.model.remove(index);
    if (this.selected === index) this.selected = null;
    else if (this.selected !== null && this.selected > index) this.selected -= 1;
    this.afterStructureChange();
  }

  private move(index: number, by: -1 | 1): void {
    const to = index + by;
    const view = this.views[index];
    if (!view || to < 0 || to >= this.views.length) return;
    this.model.move(index, by);
    this.views.splice(index, 1);
    this.views.splice(to, 0, view);
    const next = this.views[to + 1];
    if (next) this.list.insertBefore(view.root, next.root);
    else this.list.append(view.root);
    if (this.selected === index) this.selected = to;
    else if (this.selected === to) this.selected = index;
    this.afterStructureChange();
    view.focus();
  }

  private afterStructureChange(): void {
    this.refresh();
    this.showGraphTitle();
    this.cellsChanged();
  }

  /** The cells changed: the link carries them from now on (packed, compressed when long). */
  private cellsChanged(): void {
    const token = ++this.packToken;
    this.title.dataset.lesson = "";
    void packCells(this.model.toCells()).then((nb) => {
      if (token === this.packToken) this.store.set({ nb, lesson: "" }, "replace");
    });
  }

  // ---- running ------------------------------------------------------------------------------

  /**
   * Run every code cell, each as the cell shown, one after the other (1, then 1..2, ...): the
   * server records only the last cell of a run, and each cell keeps its own graph. The chain
   * ends at an error, at Stop, or when another run is asked for.
   */
  private runAll(): void {
    const code = this.model.cells.flatMap((c, index) => (c.kind === "code" ? [index] : []));
    const first = code.shift();
    if (first === undefined) return;
    this.runCell(first);
    this.chain = code;
  }

  /** Run code cell `index`: cells 1..k go to the server, which runs them in order. */
  private runCell(index: number): void {
    this.chain = []; // a run asked for ends a Run all in progress
    const { cells, cell } = this.model.request(index);
    const seed = this.store.state.seed;
    const practice = this.practiceFor(index);
    const request: NotebookRunRequest = { cells, cell, device: "cpu", seed, ...(practice ? { practice: true } : {}) };
    this.pane.loadingState();
    this.runs.submit({ request, index, seed, printed: new Map(), live: null, started: performance.now() });
  }

  private started(run: Run): void {
    this.run = run;
    run.printed.clear();
    run.live = null;
    run.started = performance.now();
    this.stopButton.hidden = false;
    this.list.dataset.state = "running";
    this.say(`Running cells 1–${run.request.cell}…`, "running");
    this.refresh();
  }

  /** The server says cell `cell` starts: its output is what comes next. */
  private cellStarted(run: Run, cell: number): void {
    if (this.run !== run) return;
    run.live = cell;
    run.printed.set(cell, "");
    const view = this.views[this.model.indexOf(cell)];
    view?.startOutput();
    this.refresh();
  }

  private printed(run: Run, text: string): void {
    if (run.live === null) return;
    run.printed.set(run.live, (run.printed.get(run.live) ?? "") + text);
    this.views[this.model.indexOf(run.live)]?.appendOutput(text);
  }

  private finish(): void {
    this.run = null;
    this.stopButton.hidden = true;
    this.list.dataset.state = "ready";
    for (const view of this.views) view.endOutput();
  }

  private answered(response: NotebookRunResponse, run: Run): void {
    const next = response.ok ? this.chain.shift() : undefined;
    if (next === undefined) this.chain = [];
    this.finish();
    const shown = this.model.apply(response, run.request.cells, run.seed);
    const ms = Math.round(performance.now() - run.started);
    if (response.ok) this.say(`Ran cells 1–${response.cell} in ${ms} ms`, "done");
    else if (response.error?.type === "KeyboardInterrupt") this.say(`Stopped after ${(ms / 1000).toFixed(1)} s in cell ${response.error.cell ?? response.cell}`, "stopped");
    else this.say(`Cell ${response.error?.cell ?? response.cell} stopped with ${response.error?.type ?? "an error"}`, "error");
    this.refresh();
    const linked = this.linked?.cell === response.cell ? this.linked : null;
    this.linked = null;
    void this.showGraph(shown, linked?.step ?? null, linked?.pass ?? null);
    if (next !== undefined) {
      const rest = this.chain;
      this.runCell(next); // Run all goes on with the next code cell
      this.chain = rest;
    }
  }

  private failed(error: unknown, run: Run): void {
    this.chain = [];
    this.finish();
    void run;
    const message = error instanceof ApiError ? error.message : `the server could not be reached (${String(error)})`;
    this.say(`The run failed: ${message}`, "error");
    this.refresh();
    this.pane.svg.dataset.state = "ready";
  }

  private stopped(run: Run): void {
    this.chain = [];
    this.finish();
    const seconds = (performance.now() - run.started) / 1000;
    this.model.stopped(run.printed, run.request.cells, run.seed, seconds);
    this.say(`Stopped after ${seconds.toFixed(1)} s`, "stopped");
    this.refresh();
    this.pane.svg.dataset.state = "ready";
  }

  private say(text: string, state: string): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
  }

  // ---- what is shown ------------------------------------------------------------------------

  /** Redraw every cell's look: numbers, stale marks, the running cell, the selected one. */
  private refresh(): void {
    const live = this.run?.live ?? null;
    this.views.forEach((view, index) => {
      const number = this.model.numberOf(index);
      view.update({
        number,
        stale: this.model.outputStale(index),
        running: live !== null && number === live,
        selected: this.selected === index,
        hasGraph: view.state.graph !== null,
      });
    });
  }

  /** Show the graph code cell `index` recorded when it last ran as the cell shown. */
  private async showGraph(index: number, step: number | null, pass: number | null): Promise<void> {
    this.selected = index;
    const number = this.model.numberOf(index);
    this.store.set({ cell: number, step, pass }, "replace");
    this.refresh();
    this.showGraphTitle();
    this.showPractice();
    await this.pane.show(this.model.cells[index]?.graph?.response ?? null, step, pass);
  }

  private showGraphTitle(): void {
    const index = this.selected;
    const number = index === null ? null : this.model.numberOf(index);
    const graph = index === null ? null : (this.model.cells[index]?.graph ?? null);
    this.graphTitle.textContent = number === null ? "Run a cell to see the graph it recorded." : graph ? `Graph of cell ${number}` : `Cell ${number} has not been run.`;
    this.graphTitle.dataset.cell = number === null ? "" : String(number);
    const stale = index !== null && this.model.graphStale(index);
    this.graphNote.hidden = !stale;
    this.graphNote.textContent = stale ? "This cell, or one above it, changed since this graph was recorded: run it to update." : "";
    if (stale) {
      this.graphNote.dataset.kind = "stale";
      this.pane.svg.dataset.note = "stale";
    } else {
      delete this.graphNote.dataset.kind;
      delete this.pane.svg.dataset.note;
    }
  }

  // ---- files, links, lessons ----------------------------------------------------------------

  private async importIpynb(file: File): Promise<void> {
    try {
      const imported = parseIpynb(await file.text());
      this.open(imported.cells, file.name.replace(/\.ipynb$/i, ""));
      this.cellsChanged();
      const magic = imported.magics ? ` (${imported.magics} IPython line${imported.magics === 1 ? "" : "s"} commented out: they are not Python)` : "";
      this.say(`Imported ${file.name}: ${imported.cells.length} cells${magic}`, "done");
    } catch (error) {
      this.say(`Could not import ${file.name}: ${error instanceof IpynbError ? error.message : String(error)}`, "error");
    }
  }

  private exportIpynb(): void {
    const runs = new Map<number, CellOutputs>();
    this.model.cells.forEach((cell, index) => {
      const number = this.model.numberOf(index);
      const output = cell.output;
      if (number === null || !output || this.model.outputStale(index)) return;
      const error = output.error;
      runs.set(index, {
        number,
        stdout: output.stdout,
        result: output.result,
        error: error ? { type: error.type, message: error.message, traceback: error.traceback ?? null } : null,
      });
    });
    const text = JSON.stringify(toIpynb(this.model.toCells(), runs), null, 1);
    const link = el("a");
    link.href = URL.createObjectURL(new Blob([`${text}\n`], { type: "application/x-ipynb+json" }));
    link.download = `${(this.title.textContent || "notebook").replace(/[^\w.-]+/g, "-").replace(/^-+|-+$/g, "") || "notebook"}.ipynb`;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  }

  private async share(): Promise<void> {
    if (!this.title.dataset.lesson) {
      const nb = await packCells(this.model.toCells());
      this.store.set({ nb, lesson: "" }, "replace");
    }
    this.store.writeUrl("replace");
    await offerLink(this.store.link(), (message) => this.say(message, "done"));
  }

  private async openLessons(): Promise<void> {
    const dialog = byId("examples-dialog", HTMLDialogElement);
    const list = byId("examples-list", HTMLElement);
    dialog.showModal();
    if (list.dataset.loaded === "true") return;
    list.replaceChildren(el("p", "muted", "Loading the lessons…"));
    try {
      const lessons = await this.lessonList();
      list.replaceChildren(
        ...lessons.map((lesson) => {
          const pick = (practice: boolean) => {
            dialog.close();
            this.store.set({ lesson: lesson.id, nb: "", cell: null, step: null, pass: null, practice }, "push");
            this.showPractice();
            this.open(lesson.cells ?? [], lesson.title, lesson.id);
          };
          const card = el("button", "example-card");
          card.type = "button";
          card.dataset.testid = `lesson-${lesson.id}`;
          const title = el("strong", "", lesson.title);
          title.id = `lesson-title-${lesson.id}`;
          card.append(title, el("span", "", lesson.explanation));
          card.addEventListener("click", () => pick(false));
          // its practice version: the same lesson, each walk asked of the learner
          const practice = el("button", "example-practice ghost", "✎ Practice");
          practice.type = "button";
          practice.dataset.testid = `lesson-${lesson.id}-practice`;
          practice.title = "Walk it computing each gradient yourself";
          practice.setAttribute("aria-describedby", title.id); // its name stays "Practice"
          practice.addEventListener("click", () => pick(true));
          const item = el("div", "example-item");
          item.append(card, practice);
          return item;
        }),
      );
      list.dataset.loaded = "true";
    } catch (error) {
      list.replaceChildren(el("p", "muted", `Could not load the lessons: ${String(error)}`));
    }
  }

  /** Practice mode on or off: the shown cell runs again (asking its walk's questions when on),
   * its walk from the first step. */
  private setPractice(on: boolean): void {
    this.store.set({ practice: on, step: null }, "replace");
    this.showPractice();
    if (this.selected !== null && this.model.cells[this.selected]?.kind === "code") this.runCell(this.selected);
  }

  /** Practice mode for code cell `index`: the toggle's, or the cell is marked an exercise. */
  private practiceFor(index: number | null): boolean {
    const cell = index === null ? undefined : this.model.cells[index];
    return this.store.state.practice || (cell?.kind === "code" && isExercise(cell.source));
  }

  /** The toggle and the graph pane follow the practice flag (or the shown cell's exercise mark). */
  private showPractice(): void {
    const on = this.practiceFor(this.selected);
    byId("practice-toggle", HTMLButtonElement).setAttribute("aria-pressed", String(on));
    this.pane.setPractice(on);
  }

  /** Page keys: the walk's (when no cell or field has the focus). */
  private onKey(e: KeyboardEvent): void {
    if (e.defaultPrevented || ownedByFocus(e)) return;
    const action = actionFor(e);
    if (action === "help") byId("shortcuts-dialog", HTMLDialogElement).showModal();
    else if (action === "practice") this.setPractice(!this.store.state.practice);
    else if (action === null || !this.pane.act(action)) return;
    e.preventDefault();
  }
}

setupTheme(byId("theme-toggle", HTMLButtonElement));
new NotebookPage();
