/**
 * One notebook cell on the page: a markdown cell (rendered safely by notebook/markdown.ts; Edit, or
 * double-click, shows its text) or a code cell (the playground's editor; Shift+Enter runs it),
 * with its output, its Out[n] value, its error and whether they are stale. A view only: the
 * notebook page (notebook/main.ts) owns the model and the runs. Printed text, values and errors are
 * set as text, never as HTML.
 */
import { el } from "../common/dom";
import { Editor } from "../editor/code-editor";
import { parseMarkdown, renderMarkdown } from "./markdown";
import { type CellOutput, type CellState, isExercise } from "./model";

/** Said to screen readers on each code cell's editor. */
export const CELL_HELP = "Code cell. Shift+Enter runs it (and the cells above it, in order); Tab indents; Escape, then Tab, leaves the editor.";

export interface CellHooks {
  /** Run this cell; `next`: then move to the next cell (Shift+Enter). */
  run: (cell: CellView, next: boolean) => void;
  edit: (cell: CellView, source: string) => void;
  showGraph: (cell: CellView) => void;
  insert: (cell: CellView, kind: "markdown" | "code") => void;
  remove: (cell: CellView) => void;
  move: (cell: CellView, by: -1 | 1) => void;
  stop: () => void;
}

/** How the page sees a cell now. */
export interface CellLook {
  /** Its number among the code cells. */
  number: number | null;
  /** Its output is from other code (it, or a cell above it, was edited since). */
  stale: boolean;
  /** It runs now (its output is arriving). */
  running: boolean;
  /** Its graph is the one in the pane. */
  selected: boolean;
  /** It has a graph to show. */
  hasGraph: boolean;
}

function button(text: string, testid: string, title: string, onClick: () => void): HTMLButtonElement {
  const b = el("button", "tool cell-tool", text);
  b.type = "button";
  b.dataset.testid = testid;
  b.title = title;
  b.setAttribute("aria-label", title);
  b.addEventListener("click", onClick);
  return b;
}

export class CellView {
  readonly root = el("article", "cell");
  private readonly gutter = el("div", "cell-gutter");
  private readonly body = el("div", "cell-body");
  private readonly tools = el("div", "cell-tools");
  private readonly status = el("p", "cell-status");
  private readonly output = el("pre", "cell-output");
  private readonly truncated = el("p", "output-truncated");
  private readonly notice = el("p", "notice cell-notice");
  private readonly result = el("div", "result cell-result");
  private readonly resultText = el("pre", "result-text");
  private readonly error = el("section", "panel error-panel cell-error");
  private readonly runButton: HTMLButtonElement;
  private readonly stopButton: HTMLButtonElement;
  private readonly graphButton: HTMLButtonElement;
  private editor: Editor | null = null;
  private markdownView: HTMLElement | null = null;
  private textarea: HTMLTextAreaElement | null = null;

  constructor(
    readonly state: CellState,
    private readonly hooks: CellHooks,
  ) {
    const code = state.kind === "code";
    this.root.dataset.testid = "cell";
    this.root.dataset.kind = state.kind;
    this.root.dataset.cellId = String(state.id);
    this.runButton = button("▶", "cell-run", "Run this cell and the cells above it (Shift+Enter)", () => hooks.run(this, false));
    this.stopButton = button("■", "cell-stop", "Stop the run", () => hooks.stop());
    this.stopButton.classList.add("stop");
    this.graphButton = button("Graph", "cell-graph", "Show this cell's graph", () => hooks.showGraph(this));
    this.tools.setAttribute("role", "toolbar");
    this.tools.setAttribute("aria-label", "Cell");
    if (code) this.tools.append(this.runButton, this.stopButton, this.graphButton);
    else this.tools.append(button("Edit", "cell-edit", "Edit this text cell", () => this.editMarkdown()));
    this.tools.append(
      button("↑", "cell-up", "Move the cell up", () => hooks.move(this, -1)),
      button("↓", "cell-down", "Move the cell down", () => hooks.move(this, 1)),
      button("+ Code", "cell-add-code", "Add a code cell below", () => hooks.insert(this, "code")),
      button("+ Text", "cell-add-text", "Add a text cell below", () => hooks.insert(this, "markdown")),
      button("×", "cell-delete", "Delete the cell", () => hooks.remove(this)),
    );
    this.status.dataset.testid = "cell-status";
    this.status.setAttribute("role", "status");
    this.output.dataset.testid = "cell-output";
    this.output.tabIndex = 0;
    this.truncated.dataset.testid = "cell-output-truncated";
    this.notice.dataset.testid = "cell-notice";
    this.result.dataset.testid = "cell-result";
    this.error.dataset.testid = "cell-error";
    this.error.setAttribute("role", "alert");
    this.result.append(el("span", "result-label", "Out"), this.resultText);
    this.root.append(this.gutter, this.body);
    this.body.append(this.tools);
    if (code) {
      const host = el("div", "editor-host cell-editor-host");
      this.body.append(host, this.status, this.notice, this.truncated, this.output, this.result, this.error);
      this.editor = new Editor({
        parent: host,
        doc: state.source,
        onRun: () => hooks.run(this, false),
        keys: [{ key: "Shift-Enter", run: () => hooks.run(this, true) }],
        onChange: (source) => hooks.edit(this, source),
        label: "Code cell",
        testId: "cell-editor",
        help: CELL_HELP,
      });
    } else {
      this.markdownView = el("div", "markdown");
      this.markdownView.dataset.testid = "cell-markdown";
      this.markdownView.addEventListener("dblclick", () => this.editMarkdown());
      this.body.append(this.markdownView);
      this.renderMarkdown();
    }
    for (const part of [this.status, this.output, this.truncated, this.notice, this.result, this.error]) part.hidden = true;
  }

  /** Move the keyboard focus into the cell (its editor, or its first control). */
  focus(): void {
    if (this.editor) this.editor.focus();
    else if (this.textarea) this.textarea.focus();
    else this.root.querySelector<HTMLButtonElement>("button")?.focus();
  }

  private renderMarkdown(): void {
    if (!this.markdownView) return;
    this.markdownView.replaceChildren(renderMarkdown(parseMarkdown(this.state.source)));
    if (!this.state.source.trim()) this.markdownView.append(el("p", "muted", "Empty text cell: Edit to write in it."));
  }

  /** Show the markdown's text for editing; Shift+Enter (or leaving it) renders it again. */
  private editMarkdown(): void {
    if (!this.markdownView || this.textarea) return;
    const area = el("textarea", "markdown-editor");
    area.dataset.testid = "cell-markdown-editor";
    area.value = this.state.source;
    area.rows = Math.min(24, Math.max(3, this.state.source.split("\n").length + 1));
    area.setAttribute("aria-label", "Text cell (markdown). Shift+Enter shows it.");
    area.addEventListener("input", () => this.hooks.edit(this, area.value));
    const done = () => {
      if (this.textarea !== area) return;
      this.textarea = null;
      area.replaceWith(this.markdownView as HTMLElement);
      this.renderMarkdown();
    };
    area.addEventListener("keydown", (e) => {
      if (e.key === "Enter" && e.shiftKey) {
        e.preventDefault();
        done();
        this.hooks.run(this, true);
      }
    });
    area.addEventListener("blur", done);
    this.textarea = area;
    this.markdownView.replaceWith(area);
    area.focus();
  }

  /** Show the cell's look and its output. */
  update(look: CellLook): void {
    const output = this.state.output;
    this.root.dataset.cell = look.number === null ? "" : String(look.number);
    this.root.dataset.stale = String(look.stale);
    this.root.dataset.running = String(look.running);
    this.root.dataset.selected = String(look.selected);
    this.root.dataset.exercise = String(this.state.kind === "code" && isExercise(this.state.source));
    const exercise = this.root.dataset.exercise === "true" ? ", an exercise (practice mode)" : "";
    this.root.setAttribute("aria-label", look.number === null ? "Text cell" : `Code cell ${look.number}${exercise}`);
    this.gutter.textContent = look.number === null ? "" : `[${look.number}]`;
    this.stopButton.hidden = !look.running;
    this.graphButton.hidden = !look.hasGraph;
    this.graphButton.setAttribute("aria-pressed", String(look.selected));
    if (this.state.kind !== "code") return;
    let status = "";
    if (look.running) status = "Running…";
    else if (output && look.stale) status = "Stale: this cell or one above it changed since it ran. Run it to update.";
    else if (output?.stopped) status = "Stopped.";
    this.status.textContent = status;
    this.status.hidden = status === "";
    this.status.dataset.state = look.running ? "running" : look.stale ? "stale" : "";
    // While a run prints into this cell, its output is what arrives; the model's comes after.
    if (this.output.dataset.state !== "live") this.showOutput(output);
  }

  private showOutput(output: CellOutput | null): void {
    this.output.textContent = output?.stdout ?? "";
    this.output.hidden = !output?.stdout;
    this.truncated.textContent = output?.truncated ?? "";
    this.truncated.hidden = !output?.truncated;
    this.notice.textContent = output?.notice ?? "";
    this.notice.hidden = !output?.notice;
    this.resultText.textContent = output?.result ?? "";
    this.result.hidden = output?.result == null;
    const error = output?.error ?? null;
    this.error.hidden = error === null;
    this.editor?.showError(error ? { line: error.line, col: error.col, endLine: error.end_line ?? null, endCol: error.end_col ?? null } : null);
    if (!error) {
      this.error.replaceChildren();
      return;
    }
    const where = [error.cell ? `cell ${error.cell}` : "", error.line ? `line ${error.line}${error.col ? `:${error.col}` : ""}` : ""].filter(Boolean).join(", ");
    const head = el("div", "error-head");
    head.append(el("strong", "", error.type), " ", el("span", "error-where", where));
    this.error.replaceChildren(head, el("p", "error-message", error.message));
    if (error.traceback) {
      const traceback = el("pre", "error-traceback", error.traceback);
      traceback.dataset.testid = "cell-error-traceback";
      this.error.append(traceback);
    }
  }

  /** The run reached this cell: its old output goes, what it prints arrives. */
  startOutput(): void {
    this.output.textContent = "";
    this.output.hidden = false;
    this.output.dataset.state = "live";
    for (const part of [this.truncated, this.notice, this.result, this.error]) part.hidden = true;
    this.editor?.showError(null);
  }

  /** Text the cell printed while it runs. */
  appendOutput(text: string): void {
    this.output.append(text);
  }

  /** The run is over (answered or stopped): the output is the model's again. */
  endOutput(): void {
    delete this.output.dataset.state;
  }

  /** The code in the editor (a markdown cell: its text). */
  get source(): string {
    return this.editor ? this.editor.text : this.state.source;
  }
}
