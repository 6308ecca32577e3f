/**
 * Runs requests one at a time, politely (issue 12's "pages back off"): at most one request in
 * flight; a request made meanwhile waits, and a newer one replaces it (the latest wins, so a
 * slider dragged across ten values costs two runs, not ten). When the server is busy (429/503)
 * it waits as long as `Retry-After` says, plus jitter so a classroom does not retry in lockstep,
 * and then sends the latest request. DOM-free: the transport and the clock are passed in.
 */
import { RUN } from "./config";

/** The server refused for load: retry after `retryAfterS` seconds (null when it did not say). */
export class BusyError extends Error {
  constructor(
    readonly status: number,
    readonly retryAfterS: number | null,
  ) {
    super(`the server is busy (${status})`);
  }
}

/** Seconds to wait before retrying, from Retry-After (seconds or an HTTP date) with jitter. */
export function retryDelayS(retryAfterS: number | null, random: () => number): number {
  const base = Math.min(RUN.retryMaxS, Math.max(0, retryAfterS ?? RUN.retryDefaultS));
  return base * (1 + RUN.retryJitter * random());
}

/** Parse a Retry-After header: delta-seconds or an HTTP date (null when absent or unreadable). */
export function parseRetryAfter(header: string | null, now = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, (date - now) / 1000);
}

export interface RunnerHooks<Req, Res> {
  /** Send one request. Throws BusyError on 429/503. */
  send: (request: Req) => Promise<Res>;
  /** Called with each response, in the order the requests were made (never an older after a newer). */
  onResult: (response: Res, request: Req) => void;
  /** Called with any other failure of a request. */
  onError: (error: unknown, request: Req) => void;
  /** Called when the server is busy, with the seconds until the retry (0 when it starts). */
  onBusy: (seconds: number) => void;
  /** Resolves after `ms` (tests pass a fake clock). */
  sleep?: (ms: number) => Promise<void>;
  random?: () => number;
}

export class Runner<Req, Res> {
  private inflight = false;
  private next: Req | null = null;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly random: () => number;

  constructor(private readonly hooks: RunnerHooks<Req, Res>) {
    this.sleep = hooks.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.random = hooks.random ?? Math.random;
  }

  /** True while a request is in flight or waiting out a busy server. */
  get busy(): boolean {
    return this.inflight;
  }

  /** True when a newer request is waiting to be sent (the response being shown is not the last). */
  get pending(): boolean {
    return this.next !== null;
  }

  /** Ask for `request` to run: now if nothing is in flight, else after it (replacing any waiting). */
  submit(request: Req): void {
    this.next = request;
    if (!this.inflight) void this.drain();
  }

  private async drain(): Promise<void> {
    this.inflight = true;
    try {
      while (this.next !== null) {
        const request = this.next;
        this.next = null;
        await this.attempt(request);
      }
    } finally {
      this.inflight = false;
    }
  }

  /** Send `request`, waiting out busy answers; a newer request submitted meanwhile is sent instead. */
  private async attempt(first: Req): Promise<void> {
    let request = first;
    for (;;) {
      try {
        const response = await this.hooks.send(request);
        this.hooks.onResult(response, request);
        return;
      } catch (error) {
        if (!(error instanceof BusyError)) {
          this.hooks.onError(error, request);
          return;
        }
        let seconds = retryDelayS(error.retryAfterS, this.random);
        // Count down in whole seconds so the page can say "retrying in N s".
        while (seconds > 0) {
          this.hooks.onBusy(Math.ceil(seconds));
          const step = Math.min(1, seconds);
          await this.sleep(step * 1000);
          seconds -= step;
        }
        this.hooks.onBusy(0);
        if (this.next !== null) {
          request = this.next;
          this.next = null;
        }
      }
    }
  }
}
