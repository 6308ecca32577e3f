/**
 * The run's own controls and what it prints: Run and Stop, the status line with the time the
 * program has been running, the output as it arrives, and the notice when the output was cut.
 * A view only: the RunController decides, this shows (printed text is set as text, never HTML).
 */
import { byId } from "../common/dom";
import { outputCutNotice } from "./output-cut";
import type { RunResponse } from "../api/types";

/** How often the elapsed time is redrawn while a program runs. */
const TICK_MS = 100;

export class RunPanel {
  private readonly runButton = byId("run", HTMLButtonElement);
  private readonly stopButton = byId("stop", HTMLButtonElement);
  private readonly status = byId("run-status", HTMLElement);
  private readonly elapsed = byId("run-elapsed", HTMLElement);
  private readonly stdout = byId("stdout", HTMLElement);
  private readonly truncated = byId("output-truncated", HTMLElement);
  private readonly notice = byId("run-notice", HTMLElement);
  private readonly result = byId("result", HTMLElement);
  private readonly resultText = byId("result-text", HTMLElement);
  private startedAt = 0;
  private ticker: ReturnType<typeof setInterval> | undefined;

  /** Called when the user presses Run / Stop. */
  constructor(onRun: () => void, onStop: () => void) {
    this.runButton.addEventListener("click", onRun);
    this.stopButton.addEventListener("click", onStop);
  }

  /** The state of the status line ("running", "busy", "done", "error", "stopped"). */
  get state(): string {
    return this.status.dataset.state ?? "";
  }

  /**
   * A run was sent: clear what the previous run left (its output, its notice, its `Out` value:
   * none of it belongs to this run, which may be stopped before it answers), offer Stop, start
   * the clock. The output fills as the program prints.
   */
  started(): void {
    if (this.state !== "busy") this.setStatus("Running…", "running");
    this.stdout.textContent = "";
    this.stdout.classList.remove("empty");
    this.stdout.dataset.state = "live";
    this.truncated.hidden = true;
    this.showNotice(null);
    this.showResult(null);
    this.stopButton.hidden = false;
    this.startedAt = performance.now();
    this.tick();
    clearInterval(this.ticker);
    this.ticker = setInterval(() => this.tick(), TICK_MS);
  }

  /** Text the running program printed. */
  output(text: string): void {
    const pinned = this.stdout.scrollHeight - this.stdout.scrollTop - this.stdout.clientHeight < 8;
    this.stdout.append(text);
    if (pinned) this.stdout.scrollTop = this.stdout.scrollHeight;
  }

  /** The run's answer: the whole output as the server kept it, its notice and `Out` value, and
   * how long it took. */
  finished(response: RunResponse): void {
    const ms = Math.round(performance.now() - this.startedAt);
    this.end();
    this.showNotice(response.notice ?? null);
    this.showResult(response.result ?? null);
    this.stdout.textContent = response.stdout;
    this.stdout.classList.toggle("empty", response.stdout === "" && !response.result);
    if (response.output_truncated) this.truncated.textContent = outputCutNotice(response.stdout, response.output_chars, "the program");
    this.truncated.hidden = !response.output_truncated;
    if (response.error?.type === "KeyboardInterrupt") this.setStatus(`Stopped after ${(ms / 1000).toFixed(1)} s`, "stopped");
    else this.setStatus(response.ok ? `Ran on ${response.device} in ${ms} ms` : `Stopped with an error (on ${response.device})`, response.ok ? "done" : "error");
    this.status.dataset.device = response.device;
  }

  /** Stop asked the program to stop where it is: its answer, with what it recorded, is
   * coming. A second press stops it at once (and keeps only what it printed). */
  stopping(): void {
    this.setStatus("Stopping… keeping what it printed and recorded", "stopping");
    this.stopButton.textContent = "■ Stop now";
    this.stopButton.title = "Stop at once: what it printed stays, the passes it recorded are not kept";
  }

  /** Stop ended the run: what it printed stays. */
  stopped(): void {
    const seconds = (performance.now() - this.startedAt) / 1000;
    this.end();
    this.stdout.classList.toggle("empty", this.stdout.textContent === "");
    this.setStatus(`Stopped after ${seconds.toFixed(1)} s`, "stopped");
  }

  /** The request failed (not the program: the server could not be reached, or refused it). */
  failed(): void {
    this.end();
    this.setStatus("", "error");
  }

  /** The server asked us to come back later: say so calmly; the program and walk stay as they are. */
  busy(seconds: number): void {
    if (seconds > 0) this.setStatus(`The server is busy: retrying in ${seconds} s. Your program is kept.`, "busy");
    else this.setStatus("Retrying…", "running");
  }

  /** A one-off message in the status line (e.g. "Link copied"). */
  say(text: string): void {
    this.setStatus(text, "done");
  }

  private showNotice(text: string | null): void {
    this.notice.textContent = text ?? "";
    this.notice.hidden = !text;
  }

  private showResult(text: string | null): void {
    this.resultText.textContent = text ?? "";
    this.result.hidden = !text;
  }

  private end(): void {
    clearInterval(this.ticker);
    this.ticker = undefined;
    this.stopButton.hidden = true;
    this.stopButton.textContent = "■ Stop";
    this.stopButton.title = "Stop the running program";
    this.elapsed.textContent = "";
    delete this.stdout.dataset.state;
  }

  private tick(): void {
    this.elapsed.textContent = `${((performance.now() - this.startedAt) / 1000).toFixed(1)} s`;
  }

  private setStatus(text: string, state: string): void {
    this.status.textContent = text;
    this.status.dataset.state = state;
  }
}
