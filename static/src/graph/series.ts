/**
 * Repetition in a recorded graph, found from the program's own structure (TensorBoard's
 * "series"): the same module called again and again (an RNN cell's time steps), or the same
 * sequence of operations recorded again and again (a loop's iterations, identical blocks). The
 * forward order of the graph is read as a sequence of units (a module call, or a lone operation),
 * each with a signature; runs of a block of units repeated back to back form a series. DOM-free.
 */

/** One unit of the forward sequence: a module call or a lone operation. */
export interface Unit {
  /** Equal for units that do the same thing (the same module, the same op in the same place). */
  signature: string;
  /** Module calls only: the module's name ("cell", "model[0]"), for a series' title. */
  moduleName: string | null;
}

/** A run of `count` repetitions of a block of `period` units, starting at unit `start`. */
export interface Run {
  start: number;
  period: number;
  count: number;
}

/** The longest block a series may repeat (units); longer loop bodies are not looked for. */
export const MAX_PERIOD = 64;

/**
 * Whether a run is worth a series box: a module called twice or more; a block of lone operations
 * three times or more, over six units at least (so `w·x + b + (−1)·y` keeps its two products and
 * sums, and `a + b + c + d` its adds). `chained` says whether each repetition reads what the one
 * before it computed, which a loop of lone operations must (two unrelated `x·y + z` are no loop).
 */
export function worthGrouping(units: readonly Unit[], run: Run, chained: (run: Run) => boolean = () => true): boolean {
  if (run.count < 2) return false;
  const block = units.slice(run.start, run.start + run.period);
  if (block.some((u) => u.moduleName !== null)) return true;
  return run.count >= 3 && run.period * run.count >= 6 && chained(run);
}

/**
 * Runs of repeated blocks, left to right, none overlapping: at each unit the block (of up to
 * MAX_PERIOD units) that repeats over the most units from there, the shortest such block on a
 * tie; the search then goes on after the run. Linear in practice: a run is skipped whole, and a
 * block that does not repeat fails at its first unit.
 */
export function findRuns(units: readonly Unit[], chained?: (run: Run) => boolean): Run[] {
  const ids = internSignatures(units);
  const runs: Run[] = [];
  let i = 0;
  while (i < ids.length) {
    let best: Run | null = null;
    const maxPeriod = Math.min(MAX_PERIOD, Math.floor((ids.length - i) / 2));
    for (let period = 1; period <= maxPeriod; period++) {
      let count = 1;
      while (i + (count + 1) * period <= ids.length && sameBlock(ids, i, i + count * period, period)) count++;
      const run = { start: i, period, count };
      if (count >= 2 && (!best || period * count > best.period * best.count) && worthGrouping(units, run, chained)) best = run;
    }
    if (best) {
      runs.push(best);
      i += best.period * best.count;
    } else i++;
  }
  return runs;
}

function internSignatures(units: readonly Unit[]): number[] {
  const table = new Map<string, number>();
  return units.map((u) => {
    let id = table.get(u.signature);
    if (id === undefined) {
      id = table.size;
      table.set(u.signature, id);
    }
    return id;
  });
}

function sameBlock(ids: readonly number[], a: number, b: number, length: number): boolean {
  for (let k = 0; k < length; k++) if (ids[a + k] !== ids[b + k]) return false;
  return true;
}

/**
 * A series' title: the modules its block calls ("cell", "model · cell"), else what one iteration
 * computes last (its output's name or op: "loop → h").
 */
export function seriesTitle(units: readonly Unit[], run: Run, outputWord: string): string {
  const names: string[] = [];
  for (const unit of units.slice(run.start, run.start + run.period)) {
    const top = unit.moduleName?.replace(/\[[^\]]*\]$/, "").replace(/\.[^.[\]]+$/, "") ?? null;
    if (top && !names.includes(top)) names.push(top);
  }
  return names.length ? names.join(" · ") : `loop → ${outputWord}`;
}
