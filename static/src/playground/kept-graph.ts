/**
 * Graphs kept: a run that fails before it records a graph (a SyntaxError, a timeout,
 * Stop, a program that records nothing, such as a NumPy-only one) keeps the previous graph on
 * screen, marked as the last good run, instead of wiping it; a graph whose program has been
 * edited since is marked stale. DOM-free: it decides what to show and what the note says.
 */
import type { RunResponse } from "../api/types";

/** What the graph pane says about the graph it shows (null: nothing, it is the current run's). */
export interface GraphNote {
  kind: "kept" | "stale";
  text: string;
}

/** True when a response has a graph to show (a kept pass, or the graph a failed call left). */
export function hasGraph(response: RunResponse): boolean {
  return response.graph !== null || (response.passes ?? []).length > 0;
}

/** Why the latest run has no graph, in a few words. */
function why(response: RunResponse | "stopped"): string {
  if (response === "stopped") return "the latest run was stopped";
  const error = response.error;
  if (error) return `the latest run stopped with ${error.type}${error.line ? ` (line ${error.line})` : ""}`;
  return "the latest run recorded no graph (no tensor that requires grad, nor a Value of yours)";
}

export class GraphKeeper {
  /** The response whose graph is on screen, and the program it ran. */
  private shownResponse: RunResponse | null = null;
  private shownSource = "";
  /** Set while the graph on screen is not the latest run's: why not. */
  private keptBecause: string | null = null;

  /** The response whose graphs the page shows. */
  get shown(): RunResponse | null {
    return this.shownResponse;
  }

  /**
   * A run answered. Returns the response to draw: this one when it has a graph (or when there
   * is nothing to keep), else null, which means "keep the graph on screen".
   */
  accept(response: RunResponse, source: string): RunResponse | null {
    if (hasGraph(response) || this.shownResponse === null || !hasGraph(this.shownResponse)) {
      this.shownResponse = response;
      this.shownSource = source;
      this.keptBecause = null;
      return response;
    }
    this.keptBecause = why(response);
    return null;
  }

  /** The run was stopped: the graph on screen stays (if there is one). */
  stopped(): void {
    if (this.shownResponse !== null && hasGraph(this.shownResponse)) this.keptBecause = why("stopped");
  }

  /** What to say over the graph while the editor holds `source`. */
  note(source: string): GraphNote | null {
    if (this.shownResponse === null || !hasGraph(this.shownResponse)) return null;
    if (this.keptBecause !== null) return { kind: "kept", text: `Last good run: ${this.keptBecause}.` };
    if (source !== this.shownSource) return { kind: "stale", text: "The program has changed since this graph was drawn: run it to update." };
    return null;
  }
}

/** Show `note` in `element` (the strip above the graph) and mark the graph `svg` with its kind. */
export function showNote(note: GraphNote | null, element: HTMLElement, svg: SVGSVGElement): void {
  element.hidden = note === null;
  element.textContent = note?.text ?? "";
  if (note) {
    element.dataset.kind = note.kind;
    svg.dataset.note = note.kind;
  } else {
    delete element.dataset.kind;
    delete svg.dataset.note;
  }
}
