/**
 * A notebook's cells and what is known of their runs, DOM-free.
 *
 * Code cells are numbered among themselves (1-based, as the API counts them). Running cell k
 * sends cells 1..k (one-shot: the server runs them all, in order, from the seed) and every cell
 * that ran gets its output; cell k (or the earlier one that failed) gets the graph. An output or
 * a graph belongs to the code it came from: it records the sources of cells 1..k and the seed it
 * ran with, and it is stale as soon as they differ, so editing cell j marks j..n stale and
 * nothing before j.
 */
import { CUT_MARK, outputCutNotice } from "../run/output-cut";
import type { NotebookCell, NotebookRunResponse, RunError } from "../api/types";

/**
 * A code cell marked as an exercise (its first line is the comment `# exercise`): its graph is
 * walked in practice mode, the learner computing each gradient. The mark is in the code, so
 * links, lessons and .ipynb files keep it.
 */
export function isExercise(source: string): boolean {
  const first = source.split("\n").find((line) => line.trim() !== "") ?? "";
  return /^\s*#\s*exercise\b/i.test(first);
}

/** What one code cell printed and returned the last time it ran. */
export interface CellOutput {
  stdout: string;
  result: string | null;
  /** The error that stopped the run in this cell. */
  error: RunError | null;
  /** The run was stopped (Stop) while this cell ran: `stdout` is what it printed until then. */
  stopped: boolean;
  /** Warnings and notes the run gave for this cell. */
  notice: string | null;
  /** The output was cut at the budget (the run went on). */
  truncated: string | null;
  /** The code cells' sources (1..this one) and the seed it ran with. */
  ranWith: string[];
  seed: number;
}

/** The graphs a cell recorded the last time it was the cell shown. */
export interface CellGraph {
  response: NotebookRunResponse;
  ranWith: string[];
  seed: number;
}

export interface CellState {
  /** Stable for the page's life (DOM ids, focus): not the position. */
  id: number;
  kind: "markdown" | "code";
  source: string;
  output: CellOutput | null;
  graph: CellGraph | null;
}

/** A notice line that names its cell: "Cell 2, line 3: UserWarning: ...". */
const CELL_NOTICE = /^Cell (\d+), line \d+: /;

export class NotebookModel {
  readonly cells: CellState[] = [];
  private nextId = 1;

  constructor(
    cells: NotebookCell[],
    public seed = 0,
  ) {
    for (const cell of cells) this.cells.push(this.make(cell.kind, cell.source));
  }

  private make(kind: "markdown" | "code", source: string): CellState {
    return { id: this.nextId++, kind, source, output: null, graph: null };
  }

  /** The cells as plain data (export, share links). */
  toCells(): NotebookCell[] {
    return this.cells.map((c) => ({ kind: c.kind, source: c.source }));
  }

  /** The code cells' sources, in order. */
  code(): string[] {
    return this.cells.filter((c) => c.kind === "code").map((c) => c.source);
  }

  /** The 1-based number of the code cell at `index` (null for a markdown cell). */
  numberOf(index: number): number | null {
    if (this.cells[index]?.kind !== "code") return null;
    return this.cells.slice(0, index + 1).filter((c) => c.kind === "code").length;
  }

  /** The position of code cell `number` in `cells` (-1 when there is none). */
  indexOf(number: number): number {
    let seen = 0;
    return this.cells.findIndex((c) => c.kind === "code" && ++seen === number);
  }

  /** The request that runs code cell `index` (cells 1..k, and k). */
  request(index: number): { cells: string[]; cell: number } {
    const number = this.numberOf(index);
    if (number === null) throw new Error(`cell ${index} is not a code cell`);
    return { cells: this.code().slice(0, number), cell: number };
  }

  /** True when a run with `ranWith` and `seed` is the current code's. */
  private current(ranWith: string[], seed: number): boolean {
    const code = this.code();
    return seed === this.seed && ranWith.every((source, i) => code[i] === source);
  }

  /** The cell's output no longer belongs to its code (it, or a cell before it, changed). */
  outputStale(index: number): boolean {
    const output = this.cells[index]?.output;
    return output != null && (!this.current(output.ranWith, output.seed) || output.ranWith.length !== this.numberOf(index));
  }

  /** The same for the cell's graph. */
  graphStale(index: number): boolean {
    const graph = this.cells[index]?.graph;
    return graph != null && (!this.current(graph.ranWith, graph.seed) || graph.ranWith.length !== this.numberOf(index));
  }

  /** The user edited cell `index`. */
  edit(index: number, source: string): void {
    const cell = this.cells[index];
    if (cell) cell.source = source;
  }

  /** A new cell of `kind` at `index`; returns it. */
  insert(index: number, kind: "markdown" | "code", source = ""): CellState {
    const cell = this.make(kind, source);
    this.cells.splice(Math.max(0, Math.min(index, this.cells.length)), 0, cell);
    return cell;
  }

  remove(index: number): void {
    this.cells.splice(index, 1);
  }

  /** Move cell `index` one place up (-1) or down (1). */
  move(index: number, by: -1 | 1): void {
    const to = index + by;
    if (to < 0 || to >= this.cells.length) return;
    const [cell] = this.cells.splice(index, 1);
    if (cell) this.cells.splice(to, 0, cell);
  }

  /**
   * A run answered: `sent` are the code sources it ran (cells 1..k). Each cell that ran gets its
   * output; the cell the graphs are for gets them. Returns the index of that cell.
   */
  apply(response: NotebookRunResponse, sent: string[], seed: number): number {
    const notices = new Map<number, string[]>();
    for (const line of (response.notice ?? "").split("\n").filter(Boolean)) {
      const named = CELL_NOTICE.exec(line);
      const number = named ? Number(named[1]) : response.cell;
      notices.set(number, [...(notices.get(number) ?? []), line]);
    }
    const lastRan = response.cells[response.cells.length - 1]?.cell ?? null;
    // The cell whose output the budget cut: the one whose text holds the cut's mark (else the
    // last that ran: a run stopped before the mark was sent).
    const cutCell = response.output_truncated ? (response.cells.find((run) => CUT_MARK.test(run.stdout))?.cell ?? lastRan) : null;
    for (const run of response.cells) {
      const cell = this.cells[this.indexOf(run.cell)];
      if (!cell) continue;
      const failed = !run.ok && response.error !== null;
      cell.output = {
        stdout: run.stdout,
        result: run.result ?? null,
        error: failed ? response.error : null,
        // Stop, softly: the cell ran until then, and what it printed and recorded is kept
        stopped: failed && response.error?.type === "KeyboardInterrupt",
        notice: notices.get(run.cell)?.join("\n") ?? null,
        truncated: run.cell === cutCell ? outputCutNotice(run.stdout, response.output_chars, "the cells") : null,
        ranWith: sent.slice(0, run.cell),
        seed,
      };
    }
    const shown = this.indexOf(response.cell);
    const cell = this.cells[shown];
    if (cell) {
      if (response.cells.length === 0 && response.error) {
        // nothing ran (a cell did not compile): the error is that cell's
        cell.output = {
          stdout: "",
          result: null,
          error: response.error,
          stopped: false,
          notice: null,
          truncated: null,
          ranWith: sent.slice(0, response.cell),
          seed,
        };
      }
      cell.graph = { response, ranWith: sent.slice(0, response.cell), seed };
    }
    return shown;
  }

  /**
   * Stop ended a run: `printed` is what each cell printed (by number, in order), the last one
   * being the cell that was running. The cells before it ran to their end; an output they
   * already had from the same code stays (it is the same: the run is deterministic).
   */
  stopped(printed: Map<number, string>, sent: string[], seed: number, seconds: number): void {
    const numbers = [...printed.keys()];
    const running = numbers[numbers.length - 1];
    for (const number of numbers) {
      const index = this.indexOf(number);
      const cell = this.cells[index];
      if (!cell) continue;
      const ranWith = sent.slice(0, number);
      if (number !== running && cell.output && this.current(cell.output.ranWith, cell.output.seed) && cell.output.ranWith.length === number) continue;
      cell.output = {
        stdout: printed.get(number) ?? "",
        result: null,
        error: null,
        stopped: number === running,
        notice: number === running ? `Stopped after ${seconds.toFixed(1)} s.` : null,
        truncated: null,
        ranWith,
        seed,
      };
    }
  }
}
