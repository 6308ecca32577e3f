/**
 * The live connection (WebSocket /api/v1/train/live) with its reconnects. DOM-free.
 *
 * The link opens when there is something to send and says hello with a `start` built by its
 * owner from the run it holds (the settings and the last state received), so a dropped or
 * closed connection is resumed, on whatever server answers, where the page's run stood. A
 * server that is busy (close 1013 with a retry_after, or a refused handshake that a probe finds
 * to be a 429/503 with Retry-After) is retried after the wait it asked for, with jitter.
 */
import { parseRetryAfter, retryDelayMs } from "./backoff";
import type { LiveClientMessage, LiveServerMessage } from "./types";

/** Where the link stands, for the page's status line. */
export type LinkStatus =
  | { kind: "ok" }
  | { kind: "connecting" }
  /** The server asked to wait: retrying at `retryAt` (epoch ms). */
  | { kind: "busy"; retryAt: number }
  /** The connection failed: retrying at `retryAt`. */
  | { kind: "offline"; retryAt: number }
  /** The server refused this page's messages: not retried (a bug to report). */
  | { kind: "broken"; message: string };

const CLOSE = { normal: 1000, goingAway: 1001, policy: 1008, tooBig: 1009, tryLater: 1013 };

/** The endpoint's URL on this page's server. */
export function liveUrl(): string {
  const scheme = window.location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${window.location.host}/api/v1/train/live`;
}

export class LiveLink {
  /** Every message from the server, in order. */
  onMessage: (message: LiveServerMessage) => void = () => {};
  onStatus: (status: LinkStatus) => void = () => {};
  private socket: WebSocket | null = null;
  private open = false;
  private retryTimer = 0;
  private attempt = 0;

  /**
   * `hello` builds what every new connection sends first: the `start` restating the run, and
   * any step still unanswered. `wanted` says whether the run needs the connection now
   * (playing, or waiting for an answer), so that an idle close is reopened only when needed.
   */
  constructor(
    private readonly url: string,
    private readonly hello: () => LiveClientMessage[],
    private readonly wanted: () => boolean,
  ) {}

  /** Send on the open connection and return true; false when it is not open (the next
   * hello restates the run). */
  trySend(message: LiveClientMessage): boolean {
    if (!this.isOpen() || !this.socket) return false;
    this.socket.send(JSON.stringify(message));
    return true;
  }

  /** Open and not closing (a server's close frame makes it CLOSING before `close` fires). */
  private isOpen(): boolean {
    return this.open && this.socket?.readyState === WebSocket.OPEN;
  }

  /** Say hello again on the open connection (a new run), or connect (which says it). */
  restart(): void {
    if (this.isOpen() && this.socket) for (const message of this.hello()) this.socket.send(JSON.stringify(message));
    else this.connect();
  }

  /** Open the connection unless it is open, opening, or waiting out a retry. */
  connect(): void {
    if (this.socket || this.retryTimer) return;
    this.onStatus({ kind: "connecting" });
    const socket = new WebSocket(this.url);
    this.socket = socket;
    socket.addEventListener("open", () => {
      this.open = true;
      this.attempt = 0;
      this.onStatus({ kind: "ok" });
      for (const message of this.hello()) socket.send(JSON.stringify(message));
    });
    socket.addEventListener("message", (event) => {
      if (typeof event.data === "string") this.onMessage(JSON.parse(event.data) as LiveServerMessage);
    });
    socket.addEventListener("close", (event) => void this.closed(socket, event));
  }

  private async closed(socket: WebSocket, event: CloseEvent): Promise<void> {
    if (socket !== this.socket) return;
    const wasOpen = this.open;
    this.socket = null;
    this.open = false;
    if (event.code === CLOSE.policy || event.code === CLOSE.tooBig) {
      this.onStatus({ kind: "broken", message: `The server refused this page's message (${event.reason || event.code}).` });
      return;
    }
    if (event.code === CLOSE.tryLater) return this.retry("busy", readRetryAfter(event.reason));
    if (event.code === CLOSE.goingAway || event.code === CLOSE.normal) {
      // Idle, or the connection's age: reopen now if the run is going, else when needed.
      this.onStatus({ kind: "ok" });
      if (this.wanted()) this.connect();
      return;
    }
    if (wasOpen && this.attempt === 0) {
      // Dropped mid-run (a restart, a network blip): one quick retry before backing off.
      this.attempt = 1;
      return this.retry("offline", null, 250);
    }
    // The handshake failed: a plain GET says whether the server is refusing on purpose.
    const told = await this.probe();
    if (told !== null) return this.retry("busy", told);
    this.retry("offline", null);
  }

  /** GET the endpoint: a 429 or 503 names its Retry-After (seconds); anything else null. */
  private async probe(): Promise<number | null> {
    try {
      const response = await fetch(this.url.replace(/^ws/, "http"), { cache: "no-store" });
      if (response.status === 429 || response.status === 503) return parseRetryAfter(response.headers.get("retry-after")) ?? 1;
    } catch {
      /* offline */
    }
    return null;
  }

  private retry(kind: "busy" | "offline", retryAfterS: number | null, fixedMs?: number): void {
    const delay = fixedMs ?? retryDelayMs(retryAfterS, this.attempt);
    this.attempt += 1;
    // A quick first retry is not worth a notice that would flash for a quarter second.
    this.onStatus(fixedMs === undefined ? { kind, retryAt: Date.now() + delay } : { kind: "connecting" });
    this.retryTimer = window.setTimeout(() => {
      this.retryTimer = 0;
      if (this.wanted()) this.connect();
      else this.onStatus({ kind: "ok" });
    }, delay);
  }
}

function readRetryAfter(reason: string): number | null {
  try {
    const parsed = JSON.parse(reason) as { retry_after?: unknown };
    return typeof parsed.retry_after === "number" ? parsed.retry_after : null;
  } catch {
    return null;
  }
}
