/**
 * One program run at a time, stoppable: Stop ends the run in flight, and a new run replaces it
 * instead of waiting behind it. A new run aborts the request, and the server kills the
 * program's worker as its connection closes, so the next run does not queue behind a loop.
 * Stop asks a run to stop softly where its transport can (the /run/live WebSocket): the
 * program stops where it is and its answer still comes, with what it printed and the passes it
 * recorded; a second Stop, or a transport that cannot, aborts at once.
 * A busy server (429/503, or a `busy` event) is waited out as `Retry-After` says, with jitter;
 * a run asked for meanwhile replaces the one waiting. DOM-free: the transport and the clock are
 * passed in (the playground streams; a notebook's cells can use the same controller).
 */
import { BusyError, retryDelayS } from "../api/retry-after";

/** Sends one request; `output` gets what the program prints while it runs. A transport that
 * can stop a run softly (its answer still comes, keeping what the program recorded) hands the
 * function that does so to `stoppable` once the run has started. */
export type RunTransport<Req, Res> = (
  request: Req,
  signal: AbortSignal,
  output: (text: string, elapsedMs: number) => void,
  stoppable: (softStop: () => void) => void,
) => Promise<Res>;

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
  /** Stop ended a run in flight (or a wait for a busy server): no answer will come. */
  onStopped?: (request: Req) => void;
  /** Stop asked a run to stop softly: its answer (what it recorded until then) is coming. */
  onStopping?: (request: Req) => void;
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

type Phase = "idle" | "running" | "waiting";

export class RunController<Req, Res> {
  private phase: Phase = "idle";
  /** Bumped by every submit and stop: a run whose generation is old is ignored from then on. */
  private generation = 0;
  private abort: AbortController | null = null;
  /** How the run in flight stops softly (null: it can only be aborted), and whether it was. */
  private softStop: (() => void) | null = null;
  private softStopped = false;
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

  /** True once Stop asked the run in flight to stop softly (its answer is still coming). */
  get stopping(): boolean {
    return this.softStopped;
  }

  /**
   * End the run in flight (or the wait for a busy server). A run that can stop softly is asked
   * to, and its answer (what it printed and recorded until then) still arrives; a second Stop,
   * or a run that cannot, ends at once and answers nothing. False when nothing was running.
   */
  stop(): boolean {
    if (this.phase === "idle" || this.request === null) return false;
    const request = this.request;
    if (this.phase === "running" && this.softStop !== null && !this.softStopped) {
      this.softStopped = true;
      this.softStop();
      this.hooks.onStopping?.(request);
      return true;
    }
    this.generation += 1;
    this.abort?.abort();
    this.abort = null;
    this.softStop = null;
    this.softStopped = false;
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
      this.softStop = null;
      this.softStopped = false;
      this.phase = "running";
      this.hooks.onStart?.(request);
      try {
        const response = await this.hooks.send(
          request,
          abort.signal,
          (text, ms) => {
            if (current()) this.hooks.onOutput?.(text, ms, request);
          },
          (softStop) => {
            if (current()) this.softStop = softStop;
          },
        );
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
        this.softStop = null;
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
    this.softStop = null;
    this.softStopped = false;
    this.phase = "idle";
  }
}
