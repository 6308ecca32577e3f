/**
 * Practice the walk: checking what the learner typed against the recorded walk's answer and
 * the mistakes it names (RunRequest.practice: each pass's `practice`, from
 * server/program/practice.py). The page compares numbers only; every value compared is the
 * engine's. DOM-free, and the same rules as the server's `diagnose`: the two are tested on one
 * table of typed answers (tests/unit/practice_cases.json).
 */

/** One mistake's kind and the numbers it gives. */
export interface PracticeMistake {
  kind: string;
  value: unknown;
}

/** One question of a walk step: the gradient of node `to` after the step. */
export interface PracticeAsk {
  to: string;
  answer: unknown;
  shape: number[];
  mistakes: PracticeMistake[];
}

/** What walk step `step` asks. */
export interface PracticeStep {
  step: number;
  asks: PracticeAsk[];
}

/** The verdict on a typed answer: right, a mistake's kind, or digits / shape / wrong. */
export type Diagnosis = string;

/** A number as a learner types it ("−" read as "-"). */
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
/** float32's rounding: a typed number this close (relatively) to a value is that value. */
const EPS32 = 4 * 2 ** -23;

/** The number `text` spells, or null. */
export function parseNumber(text: string): number | null {
  const cleaned = text.trim().replace(/−/g, "-");
  return NUMBER.test(cleaned) ? Number(cleaned) : null;
}

/** How many significant digits a typed number has ("-0.00963": 3; "0.004000": 4). */
export function significantDigits(text: string): number {
  const mantissa = text.trim().replace(/^[+\-−]+/, "").toLowerCase().split("e")[0] ?? "";
  const digits = mantissa.replace(".", "").replace(/^0+/, "");
  return Math.max(1, digits.length);
}

/** `value` rounded to the significant digits typed is what was typed (any count of them). */
export function roundsTo(typed: string, value: number): boolean {
  const guess = parseNumber(typed);
  if (guess === null) return false;
  if (guess === 0) return value === 0;
  const unit = 10 ** (Math.floor(Math.log10(Math.abs(guess))) - significantDigits(typed) + 1);
  return Math.abs(guess - value) <= (unit / 2) * (1 + 1e-9);
}

/** `typed` is `value` as far as its digits go (at least 3 significant, or exactly it). */
export function matches(typed: string, value: number): boolean {
  const guess = parseNumber(typed);
  if (guess === null) return false;
  if (Math.abs(guess - value) <= EPS32 * Math.abs(value)) return true;
  return significantDigits(typed) >= 3 && roundsTo(typed, value);
}

/** A recorded value's numbers in order (a number, or nested lists of them). */
export function flatten(value: unknown): number[] {
  if (typeof value === "number") return [value];
  if (Array.isArray(value)) return value.flatMap(flatten);
  return [Number.NaN];
}

/** The typed numbers split as a learner separates them (spaces, commas, brackets). */
export function splitTyped(text: string): string[] {
  return text
    .replace(/[[\](),;]/g, " ")
    .split(/\s+/)
    .filter((part) => part !== "");
}

/**
 * `right`, the kind of the mistake the typed numbers give, `digits` (right as far as it goes,
 * fewer than 3 significant digits), `shape` (as many numbers as neither the answer nor any
 * mistake) or `wrong`.
 */
export function diagnose(typed: string[], ask: PracticeAsk): Diagnosis {
  const fits = (value: unknown, check: (t: string, v: number) => boolean = matches) => {
    const flat = flatten(value);
    return flat.length === typed.length && flat.every((v, i) => check(typed[i] ?? "", v));
  };
  if (fits(ask.answer)) return "right";
  for (const mistake of ask.mistakes) if (fits(mistake.value)) return mistake.kind;
  if (fits(ask.answer, roundsTo)) return "digits";
  if (flatten(ask.answer).length !== typed.length) return "shape";
  return "wrong";
}
