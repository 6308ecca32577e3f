/**
 * One program run at a time, stoppable (issue 20): Stop ends the run in flight, and a new run
 * replaces it instead of waiting behind it. Both abort the request, and the server kills the
 * program's worker as its connection closes, so the next run does not queue behind a loop.
 * A busy server (429/503, or a `busy` event) is waited out as `Retry-After` says, with jitter;
 * a run asked for meanwhile replaces the one waiting. DOM-free: the transport and the clock are
 * passed in (the playground streams; a notebook's cells can use the same controller).
 */
import { BusyError, retryDelayS } from "./runner";

/** Sends one request; `output` gets what the program prints while it runs. */
export type RunTransport<Req, Res> = (request: Req, signal: AbortSignal, output: (text: string, elapsedMs: number) => void) => Promise<Res>;

export interface RunControllerHooks<Req, Res> {
  send: RunTransport<Req, Res>;
  /** A request was sent (also each retry after a busy answer). */
  onStart?: (request: Req) => void;
  /** The running program printed `text`. */
  onOutput?: (text: string, elapsedMs: number, request: Req) => void;
  /** The latest request's answer (an older one's never comes once it is replaced). */
  onResult: (response: Res, request: Req) => void;
  /** The latest request failed (not for busy answers, which are retried, nor for aborts). */
  onError: (error: unknown, request: Req) => void;
  /** The server is busy: seconds until the retry (0 when it starts). */
  onBusy?: (seconds: number) => void;
  /** Stop ended a run in flight (or a wait for a busy server). */
  onStopped?: (request: Req) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

type Phase = "idle" | "running" | "waiting";

export class RunController<Req, Res> {
  private phase: Phase = "idle";
  /** Bumped by every submit and stop: a run whose generation is old is ignored from then on. */
  private generation = 0;
  private abort: AbortController | null = null;
  private request: Req | null = null;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly hooks: RunControllerHooks<Req, Res>) {
    this.sleep = hooks.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = hooks.random ?? Math.random;
  }

  /** True while a request is in flight or waiting out a busy server. */
  get running(): boolean {
    return this.phase !== "idle";
  }

  /** Run `request` now, ending the run in flight (if any); while waiting out a busy server, it
   * replaces the request that was waiting and goes when the wait ends. */
  submit(request: Req): void {
    this.request = request;
    if (this.phase === "waiting") return;
    this.abort?.abort();
    void this.drive(++this.generation);
  }

  /** End the run in flight (or the wait for a busy server). False when nothing was running. */
  stop(): boolean {
    if (this.phase === "idle" || this.request === null) return false;
    const request = this.request;
    this.generation += 1;
    this.abort?.abort();
    this.abort = null;
    this.phase = "idle";
    this.hooks.onStopped?.(request);
    return true;
  }

  private async drive(generation: number): Promise<void> {
    const current = () => generation === this.generation;
    for (;;) {
      const request = this.request as Req;
      const abort = new AbortController();
      this.abort = abort;
      this.phase = "running";
      this.hooks.onStart?.(request);
      try {
        const response = await this.hooks.send(request, abort.signal, (text, ms) => {
          if (current()) this.hooks.onOutput?.(text, ms, request);
        });
        if (!current()) return;
        this.finish();
        this.hooks.onResult(response, request);
        return;
      } catch (error) {
        if (!current()) return; // replaced by a newer run, or stopped: its answer is not wanted
        if (!(error instanceof BusyError)) {
          this.finish();
          this.hooks.onError(error, request);
          return;
        }
        this.abort = null;
        this.phase = "waiting";
        let seconds = retryDelayS(error.retryAfterS, this.random);
        // Count down in whole seconds so the page can say "retrying in N s".
        while (seconds > 0) {
          this.hooks.onBusy?.(Math.ceil(seconds));
          const step = Math.min(1, seconds);
          await this.sleep(step * 1000);
          if (!current()) return;
          seconds -= step;
        }
        this.hooks.onBusy?.(0);
      }
    }
  }

  private finish(): void {
    this.abort = null;
    this.phase = "idle";
  }
}
