/**
 * When to try again after the server said "busy" or the connection failed. DOM-free.
 *
 * A told wait (Retry-After, or the live endpoint's close reason) is never cut short, and up to
 * half of it again is added at random, so a classroom told to wait does not come back in step.
 * Without one, the wait doubles from 1 s up to 30 s, with the same jitter.
 */

export const BACKOFF = {
  firstS: 1,
  maxS: 30,
  /** The random part: up to this fraction of the wait, added. */
  jitter: 0.5,
};

/** Milliseconds to wait before attempt `attempt` (0-based) of reconnecting. */
export function retryDelayMs(retryAfterS: number | null, attempt: number, random: () => number = Math.random): number {
  const base = retryAfterS !== null && retryAfterS > 0 ? retryAfterS : Math.min(BACKOFF.maxS, BACKOFF.firstS * 2 ** attempt);
  return Math.round(1000 * base * (1 + BACKOFF.jitter * random()));
}

/** A Retry-After header's seconds (delay-seconds or an HTTP date), or null without one. */
export function parseRetryAfter(header: string | null, now: number = Date.now()): number | null {
  if (header === null || header.trim() === "") return null;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
