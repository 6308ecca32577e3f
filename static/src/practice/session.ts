/**
 * Practice mode's model: one walk's questions (the pass's recorded `practice`, from
 * server/program/practice.py), what the learner typed for each, which gradients the walk still
 * hides, how far it may go, the score and the review of mistakes. DOM-free (practice/panel.ts
 * draws it). Every number here is the engine's: the answers and mistakes are compared with
 * what was typed (practice/answers.ts), and a hidden gradient is put back to the value it had
 * before the step (an earlier frame of the recorded walk); nothing computes a gradient.
 */
import { diagnose, splitTyped, type Diagnosis, type PracticeAsk, type PracticeStep } from "./answers";
import { walkFrame, type WalkFrame } from "../graph/model";
import type { Graph, TensorValue } from "../api/types";

/** Where one question stands: open, answered right, its answer shown, or given (a link opened
 * the walk past it: neither asked nor scored). */
export type AskStatus = "open" | "right" | "shown" | "given";

/** One question of the walk and what the learner did with it. */
export interface AskState {
  /** The walk position whose step asks it (step index + 1). */
  position: number;
  ask: PracticeAsk;
  status: AskStatus;
  /** Each check: what was typed and the verdict. */
  tries: { typed: string; diagnosis: Diagnosis }[];
  /** The hint was asked for. */
  hinted: boolean;
}

/** A walk's score: questions answered right at the first try, of those asked so far. */
export interface Score {
  firstTry: number;
  asked: number;
  total: number;
}

/** The learner's work through one pass's walk. */
export class PracticeSession {
  /** The questions by walk position, in the order each step asks them. */
  private readonly byPosition = new Map<number, AskState[]>();

  constructor(
    readonly graph: Graph,
    steps: readonly PracticeStep[],
  ) {
    for (const step of steps) {
      const position = step.step + 1;
      if (position < 1 || position > graph.walk.length) continue;
      this.byPosition.set(
        position,
        step.asks.map((ask) => ({ position, ask, status: "open", tries: [], hinted: false })),
      );
    }
  }

  /** Every question, in walk order. */
  get all(): AskState[] {
    return [...this.byPosition.entries()].sort((a, b) => a[0] - b[0]).flatMap(([, asks]) => asks);
  }

  /** The questions of the step at walk `position` (none at 0, or a step too large to type). */
  asksAt(position: number): AskState[] {
    return this.byPosition.get(position) ?? [];
  }

  /** The question the step at `position` asks now (its first open one), or null. */
  current(position: number): AskState | null {
    return this.asksAt(position).find((a) => a.status === "open") ?? null;
  }

  /** The furthest position the walk may reach: the first step with an open question. */
  limit(): number {
    const open = this.all.find((a) => a.status === "open");
    return open ? open.position : this.graph.walk.length;
  }

  /** A link opened the walk at `position`: the steps before it are given, not asked. */
  giveBefore(position: number): void {
    for (const a of this.all) if (a.position < position && a.status === "open") a.status = "given";
  }

  /** Check what was typed for `ask`: the verdict (right closes the question). */
  check(ask: AskState, text: string): Diagnosis {
    const diagnosis = diagnose(splitTyped(text), ask.ask);
    ask.tries.push({ typed: text.trim(), diagnosis });
    if (diagnosis === "right") ask.status = "right";
    return diagnosis;
  }

  /** Show `ask`'s answer (it counts as not right at the first try, unless it already was). */
  reveal(ask: AskState): void {
    if (ask.status === "open") ask.status = "shown";
  }

  /** The nodes whose gradient the frame at `position` must hide (their questions are open). */
  hiddenAt(position: number): Set<string> {
    return new Set(this.asksAt(position).filter((a) => a.status === "open").map((a) => a.ask.to));
  }

  /** Right at the first try, of the questions asked so far (given ones are not counted). */
  score(): Score {
    const all = this.all.filter((a) => a.status !== "given");
    const asked = all.filter((a) => a.status !== "open");
    return { firstTry: asked.filter(firstTryRight).length, asked: asked.length, total: all.length };
  }

  /** The next position after `from` (round again after the last) with a question the learner
   * got wrong (or had shown) at the first try; null when there is none. */
  nextMistake(from: number): number | null {
    const positions = [...new Set(this.all.filter(isMistake).map((a) => a.position))].sort((a, b) => a - b);
    if (positions.length === 0) return null;
    return positions.find((p) => p > from) ?? positions[0] ?? null;
  }
}

/** Answered, and right at the first try. */
export function firstTryRight(ask: AskState): boolean {
  return ask.tries[0]?.diagnosis === "right";
}

/** Answered, but not right at the first try (wrong first, or shown). */
export function isMistake(ask: AskState): boolean {
  return (ask.status === "right" || ask.status === "shown") && !firstTryRight(ask);
}

/**
 * `frame` with the gradients of `hidden` nodes put back to what they held before the step (the
 * previous frame's), and `asked` naming them with that value (undefined: none yet).
 */
export function maskFrame(frame: WalkFrame, graph: Graph, marks: boolean[][], hidden: ReadonlySet<string>): WalkFrame {
  if (hidden.size === 0 || frame.position === 0) return frame;
  const before = walkFrame(graph, frame.position - 1, marks);
  const grads = new Map(frame.grads);
  const asked = new Map<string, TensorValue | undefined>();
  for (const id of hidden) {
    const value = before.grads.get(id);
    asked.set(id, value);
    if (value === undefined) grads.delete(id);
    else grads.set(id, value);
  }
  return { ...frame, grads, asked };
}
