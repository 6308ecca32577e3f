/**
 * The ecosystem's notebook format, nbformat 4 (Jupyter, Colab): a learner brings a notebook in
 * and takes one out. Importing keeps markdown and code cells (a raw cell becomes a fenced block
 * of prose; IPython's `%magics` and `!shell` lines, which are not Python, are commented out and
 * counted). Exporting writes nbformat 4.5 with each code cell's outputs as the page shows them
 * (stream text, the Out[n] value, the error), for cells whose outputs belong to their code.
 * DOM-free (its tests run in Node; the export is validated with Python's nbformat in the tests).
 */
import type { NotebookCell } from "../api/types";

/** A file that is not a notebook this page can open; the message says why. */
export class IpynbError extends Error {}

/** What the page knows of one code cell's last run, for the export. */
export interface CellOutputs {
  /** Its number among the code cells (the execution count). */
  number: number;
  stdout: string;
  result: string | null;
  error: { type: string; message: string; traceback: string | null } | null;
}

export interface Imported {
  cells: NotebookCell[];
  /** How many IPython magic or shell lines were commented out. */
  magics: number;
}

/** The most cells a notebook may have (the API's limit). */
export const MAX_CELLS = 200;

function sourceText(source: unknown, where: string): string {
  if (typeof source === "string") return source;
  if (Array.isArray(source) && source.every((s) => typeof s === "string")) return source.join("");
  throw new IpynbError(`${where}: its source is neither text nor a list of lines`);
}

/** `%matplotlib inline`, `!pip install torch`, `%%time`: IPython's, not Python's. */
const MAGIC = /^(\s*)([%!].*)$/;

function withoutMagics(code: string): [string, number] {
  let count = 0;
  const lines = code.split("\n").map((line) => {
    const match = MAGIC.exec(line);
    if (!match) return line;
    count++;
    return `${match[1] ?? ""}# ${match[2] ?? ""}  (IPython, not Python: not run here)`;
  });
  return [lines.join("\n"), count];
}

/** The cells of an .ipynb file's text (nbformat 4); IpynbError says what is wrong otherwise. */
export function parseIpynb(text: string): Imported {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new IpynbError(`not a notebook: the file is not JSON (${error instanceof Error ? error.message : String(error)})`);
  }
  if (typeof data !== "object" || data === null || Array.isArray(data)) throw new IpynbError("not a notebook: the file is not a JSON object");
  const notebook = data as { nbformat?: unknown; cells?: unknown; worksheets?: unknown };
  if (notebook.nbformat !== 4) {
    const version = typeof notebook.nbformat === "number" ? `nbformat ${notebook.nbformat}` : "no nbformat version";
    throw new IpynbError(`${version}: this page opens nbformat 4 notebooks (save it again from Jupyter or Colab)`);
  }
  if (!Array.isArray(notebook.cells)) throw new IpynbError("not a notebook: it has no list of cells");
  if (notebook.cells.length > MAX_CELLS) throw new IpynbError(`the notebook has ${notebook.cells.length} cells, at most ${MAX_CELLS}`);
  const cells: NotebookCell[] = [];
  let magics = 0;
  notebook.cells.forEach((raw: unknown, i: number) => {
    const where = `cell ${i + 1}`;
    if (typeof raw !== "object" || raw === null) throw new IpynbError(`${where} is not an object`);
    const cell = raw as { cell_type?: unknown; source?: unknown };
    const source = sourceText(cell.source, where);
    if (cell.cell_type === "markdown") cells.push({ kind: "markdown", source });
    else if (cell.cell_type === "code") {
      const [code, count] = withoutMagics(source);
      magics += count;
      cells.push({ kind: "code", source: code });
    } else if (cell.cell_type === "raw") cells.push({ kind: "markdown", source: "```\n" + source + "\n```" });
    else throw new IpynbError(`${where}: unknown cell type ${JSON.stringify(cell.cell_type)}`);
  });
  return { cells, magics };
}

/** Text as nbformat stores it: lines, each with its "\n" but the last. */
export function lines(text: string): string[] {
  if (text === "") return [];
  const parts = text.split("\n");
  return parts.map((line, i) => (i < parts.length - 1 ? `${line}\n` : line)).filter((line) => line !== "");
}

function outputsOf(run: CellOutputs | undefined): unknown[] {
  if (!run) return [];
  const outputs: unknown[] = [];
  if (run.stdout) outputs.push({ output_type: "stream", name: "stdout", text: lines(run.stdout) });
  if (run.result !== null)
    outputs.push({ output_type: "execute_result", execution_count: run.number, data: { "text/plain": lines(run.result) }, metadata: {} });
  if (run.error)
    outputs.push({
      output_type: "error",
      ename: run.error.type,
      evalue: run.error.message,
      traceback: (run.error.traceback ?? `${run.error.type}: ${run.error.message}`).split("\n"),
    });
  return outputs;
}

/**
 * The notebook as an nbformat 4.5 object (JSON.stringify it to save). `runs` has, by index in
 * `cells`, the outputs of each code cell whose outputs belong to its current code.
 */
export function toIpynb(cells: NotebookCell[], runs: ReadonlyMap<number, CellOutputs>): Record<string, unknown> {
  return {
    nbformat: 4,
    nbformat_minor: 5,
    metadata: {
      kernelspec: { name: "python3", display_name: "Python 3", language: "python" },
      language_info: { name: "python" },
    },
    cells: cells.map((cell, i) => {
      const id = `cell-${i + 1}`;
      if (cell.kind === "markdown") return { cell_type: "markdown", id, metadata: {}, source: lines(cell.source) };
      const run = runs.get(i);
      return { cell_type: "code", id, metadata: {}, execution_count: run ? run.number : null, outputs: outputsOf(run), source: lines(cell.source) };
    }),
  };
}
