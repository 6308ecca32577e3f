/**
 * Watches the training loss for divergence, DOM-free: the page warns once it trips and offers
 * a learning rate at least ten times lower.
 *
 * Diverged: the loss is NaN or infinite (the server sends null: the weights are no longer
 * numbers, and no step brings them back), or it has grown tenfold from the best loss of the
 * run and is worse than the untrained model's. A single spike of a high but workable rate
 * (Adam at 0.3 on moons jumps from 0.7 to 5 once, then learns) stays below that; rates of 1
 * and more, which keep the loss in the tens, trip it within a few steps.
 */

import type { OptimizerName } from "./types";

export type Verdict = "nan" | "growing";

export const DIVERGENCE = {
  /** Loss over best loss that counts as blowing up. */
  growth: 10,
};

export class DivergenceWatch {
  private initial: number | null = null;
  private best = Infinity;
  private verdict: Verdict | null = null;

  /** Forget the run (a reset, or a new learning rate). */
  reset(): void {
    this.initial = null;
    this.best = Infinity;
    this.verdict = null;
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
    return this.verdict;
  }
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
