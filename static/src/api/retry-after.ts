/**
 * Backing off politely: a server that is busy (429/503) says when
 * to come back (`Retry-After`); the pages wait that long plus jitter, so a classroom does not
 * retry in lockstep (run/controller.ts for the playground's runs). DOM-free.
 */
import { RUN } from "../common/config";

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
