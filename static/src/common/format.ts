/**
 * Turning tensor values (numbers, nested lists, summaries, "NaN" strings) into short text.
 * One number format everywhere (node boxes, hover card, details, captions, contribution rows):
 * four significant digits, a true minus sign (U+2212), and one exponent style, `5.81e−4`.
 * Numbers inside the server's formula text are re-set in the same format (`normalizeNumbers`).
 * DOM-free.
 */
import { FORMAT } from "./config";
import type { TensorSummary, TensorValue } from "../api/types";

export const MINUS = "\u2212";

/** True for the summary object the server sends for big tensors. */
export function isSummary(value: TensorValue): value is TensorSummary {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "shape" in value;
}

/** Every ASCII hyphen-minus in a number's text as a true minus sign. */
function trueMinus(text: string): string {
  return text.replace(/-/g, MINUS);
}

/** One number: plain for integers and ordinary magnitudes, `m.mmme−N` for tiny or huge ones. */
export function formatScalar(value: number | string): string {
  if (typeof value === "string") {
    if (value === "-Infinity") return `${MINUS}∞`;
    if (value === "Infinity") return "∞";
    return value;
  }
  if (Number.isNaN(value)) return "NaN";
  if (!Number.isFinite(value)) return value > 0 ? "∞" : `${MINUS}∞`;
  if (value === 0) return "0"; // -0 too: a sign on zero teaches nothing here
  const abs = Math.abs(value);
  if (Number.isInteger(value) && abs < FORMAT.exponentAbove) return trueMinus(String(value));
  if (abs < FORMAT.exponentBelow || abs >= FORMAT.exponentAbove) {
    const [mantissa = "0", exponent = "0"] = value.toExponential(FORMAT.digits - 1).split("e");
    return trueMinus(`${Number(mantissa)}e${Number(exponent)}`);
  }
  return trueMinus(String(Number(value.toPrecision(FORMAT.digits))));
}

/** A number in text as the server or a user may write it: `−1.5`, `5.81e−04`, `1e+06`. */
const NUMBER_TEXT = /(?<![\w.#^\]])([−-]?)(\d+(?:\.\d+)?(?:e[−+-]?\d+)?)(?![\w.#])/g;

/**
 * Re-set every standalone number in `text` in the one format (so a caption from the server and a
 * node box never disagree on `5.81e−4` vs `5.810e-04`). Names (`n1`, `linear#3`, `model.4.weight`)
 * and powers (`x^2`) are left alone. A minus joins the number only where it cannot be a binary
 * operator (the server writes binary minus with spaces around it).
 */
export function normalizeNumbers(text: string): string {
  return text.replace(NUMBER_TEXT, (match, sign: string, digits: string, offset: number, whole: string) => {
    const before = offset > 0 ? whole[offset - 1] : "";
    // "a−1" with no space is a binary minus between a name and a number: keep the sign apart.
    if (sign && before && /[\w)]/.test(before)) return `${sign}${formatScalar(Number(digits.replace(/−/g, "-")))}`;
    const value = Number(`${sign ? "-" : ""}${digits.replace(/−/g, "-")}`);
    return Number.isFinite(value) ? formatScalar(value) : match;
  });
}

function flatten(value: TensorValue, out: (number | string)[]): void {
  if (Array.isArray(value)) for (const item of value) flatten(item, out);
  else if (typeof value === "number" || typeof value === "string") out.push(value);
}

/**
 * Short text for a node row: the number, a small list in full, or its mean and range (the
 * legend explains `μ 0.07 [−0.9, 0.8]`). A list longer than `shown` elements shows its first
 * `shown - 1` and how many values it holds: "[0.5775, 1.294, … 64 values]" (a bare "… 64" would
 * read as a last element).
 */
export function formatShort(value: TensorValue, shown: number = FORMAT.inlineElements): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number" || typeof value === "string") return formatScalar(value);
  if (isSummary(value)) {
    return `μ ${formatScalar(value.mean)} [${formatScalar(value.min)}, ${formatScalar(value.max)}]`;
  }
  const flat: (number | string)[] = [];
  flatten(value, flat);
  if (flat.length <= shown) return `[${flat.map(formatScalar).join(", ")}]`;
  return `[${flat.slice(0, Math.max(1, shown - 1)).map(formatScalar).join(", ")}, … ${flat.length} values]`;
}

/** Full text for the details panel and hover card: nested lists kept nested, summaries spelled out. */
export function formatFull(value: TensorValue): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "number" || typeof value === "string") return formatScalar(value);
  if (isSummary(value)) {
    const preview = Array.isArray(value.preview) ? formatFull(value.preview as TensorValue) : "";
    return (
      `shape ${formatShape(value.shape)}\nmin ${formatScalar(value.min)}  mean ${formatScalar(value.mean)}` +
      `  max ${formatScalar(value.max)}\nfirst ${preview}`
    );
  }
  const render = (v: TensorValue): string => (Array.isArray(v) ? `[${v.map(render).join(", ")}]` : formatShort(v));
  return render(value);
}

/** True when two values print the same (the test of "same number" the views agree on). */
export function sameValue(a: TensorValue, b: TensorValue): boolean {
  return formatFull(a) === formatFull(b);
}

/** "()" for a scalar, "(3, 4)" otherwise. */
export function formatShape(shape: number[] | null | undefined): string {
  if (!shape || shape.length === 0) return "()";
  return `(${shape.join(", ")}${shape.length === 1 ? "," : ""})`;
}

/** The pass picker's text: "pass 210 of 210 (20 kept)"; `index` is the program's own (0-based). */
export function passLabel(index: number, total: number, kept: number): string {
  return `pass ${index + 1} of ${total}${kept < total ? ` (${kept} kept)` : ""}`;
}

/** Cut text to `max` characters keeping both ends: "model[3](mo…[0](X))". */
export function clipMiddle(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max - 1) / 2);
  return `${text.slice(0, head)}…${text.slice(text.length - (max - 1 - head))}`;
}
