/**
 * Watches the training loss for divergence, DOM-free: the page warns once it trips and offers
 * a learning rate at least ten times lower.
 *
 * Diverged, on any path (a rate set before the run or changed during it, points added, any
 * optimizer):
 * - "nan": the loss is NaN or infinite (the server sends null: the weights are no longer
 *   numbers, and no step brings them back);
 * - "growing": it has grown tenfold from the best loss since the run (or the rate) started and
 *   is worse than the first loss seen then;
 * - "thrashing": over the last `window` steps its median is more than `aboveChance` times the
 *   loss of guessing (ln C for C classes: cross-entropy of the uniform prediction). A rate that
 *   swings the loss between 3 and 49 trips this even when the first loss seen was already high
 *   (a rate set mid-run, at a peak), which the growth rule alone missed.
 * A single spike of a high but workable rate (Adam at 0.3 on moons jumps from 0.7 to 5 once,
 * then learns) stays below both; rates of 1 and more, which keep the loss in the tens, trip them
 * within a few steps.
 */

import type { OptimizerName } from "./types";

export type Verdict = "nan" | "growing" | "thrashing";

export const DIVERGENCE = {
  /** Loss over best loss that counts as blowing up. */
  growth: 10,
  /** Steps whose median loss is compared with guessing's. */
  window: 20,
  /** Median loss over guessing's (ln C) that counts as thrashing. */
  aboveChance: 3,
};

export class DivergenceWatch {
  private initial: number | null = null;
  private best = Infinity;
  private verdict: Verdict | null = null;
  private recent: number[] = [];
  /** The loss of guessing uniformly among the classes: ln C (2 classes until told). */
  private chance = Math.log(2);

  /** Forget the run (a reset, or a new learning rate). */
  reset(): void {
    this.initial = null;
    this.best = Infinity;
    this.verdict = null;
    this.recent = [];
  }

  /** How many classes the model predicts (the response says). */
  set classes(count: number) {
    if (count >= 2) this.chance = Math.log(count);
  }

  /** The verdict once tripped (it stays until `reset`). */
  get tripped(): Verdict | null {
    return this.verdict;
  }

  /** Feed one history row's train loss; returns the verdict if this row trips it. */
  observe(loss: number | null): Verdict | null {
    if (this.verdict) return null;
    if (loss === null || !Number.isFinite(loss)) {
      // No loss without a training set; after a finite one, null is a NaN on the server.
      if (this.initial !== null) this.verdict = "nan";
      return this.verdict;
    }
    if (this.initial === null) this.initial = loss;
    this.best = Math.min(this.best, loss);
    if (loss >= DIVERGENCE.growth * this.best && loss > this.initial) this.verdict = "growing";
    this.recent.push(loss);
    if (this.recent.length > DIVERGENCE.window) this.recent.shift();
    if (!this.verdict && this.recent.length === DIVERGENCE.window && median(this.recent) > DIVERGENCE.aboveChance * this.chance) {
      this.verdict = "thrashing";
    }
    return this.verdict;
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? (sorted[mid] ?? 0) : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}

/**
 * The most that usually trains these toy models without blowing up, by optimizer (measured on
 * moons, 2-16-16-2: Adam diverges at 1 and spikes once at 0.3; plain SGD learns at 1).
 */
export const SAFE_LR: Record<OptimizerName, number> = { adam: 0.1, momentum: 0.3, sgd: 1 };

/**
 * The learning rate to offer instead of `lr`: the largest choice at most a tenth of it and
 * at most the optimizer's safe rate, so that one click gives a run that learns.
 */
export function lowerRate(lr: number, optimizer: OptimizerName, choices: readonly number[]): number {
  const limit = Math.min(lr / 10, SAFE_LR[optimizer]) * (1 + 1e-9);
  const below = choices.filter((c) => c <= limit);
  return below.length ? Math.max(...below) : lr / 10;
}
