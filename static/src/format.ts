/** Turning tensor values (numbers, nested lists, summaries, "NaN" strings) into short text. */
import { FORMAT } from "./config";
import type { TensorSummary, TensorValue } from "./types";

const MINUS = "\u2212";

/** True for the summary object the server sends for big tensors. */
export function isSummary(value: TensorValue): value is TensorSummary {
  return typeof value === "object" && value !== null && !Array.isArray(value) && "shape" in value;
}

/** One number with a few significant digits and a real minus sign; strings pass through. */
export function formatScalar(value: number | string): string {
  if (typeof value === "string") return value === "-Infinity" ? `${MINUS}∞` : value === "Infinity" ? "∞" : value;
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value) && Math.abs(value) < 1e6) return String(value).replace("-", MINUS);
  const abs = Math.abs(value);
  let text: string;
  if (abs !== 0 && (abs < 1e-3 || abs >= 1e6)) text = value.toExponential(2);
  else text = String(Number(value.toPrecision(FORMAT.digits)));
  return text.replace("-", MINUS);
}

function flatten(value: TensorValue, out: (number | string)[]): void {
  if (Array.isArray(value)) for (const item of value) flatten(item, out);
  else if (typeof value === "number" || typeof value === "string") out.push(value);
}

/** Number of scalars in a (nested-list) value. */
export function elementCount(value: TensorValue): number {
  const flat: (number | string)[] = [];
  flatten(value, flat);
  return flat.length;
}

/** Short text for a node row: the number, a small list in full, or min/mean/max. */
export function formatShort(value: TensorValue): string {
  if (value === null || value === undefined) return "—";
  if (typeof value === "number" || typeof value === "string") return formatScalar(value);
  if (isSummary(value)) {
    return `μ ${formatScalar(value.mean)} [${formatScalar(value.min)}, ${formatScalar(value.max)}]`;
  }
  const flat: (number | string)[] = [];
  flatten(value, flat);
  if (flat.length <= FORMAT.inlineElements) return `[${flat.map(formatScalar).join(", ")}]`;
  return `[${flat.slice(0, 3).map(formatScalar).join(", ")}, … ${flat.length}]`;
}

/** Full text for the details panel: nested lists kept nested, summaries spelled out. */
export function formatFull(value: TensorValue): string {
  if (value === null || value === undefined) return "None";
  if (typeof value === "number" || typeof value === "string") return formatScalar(value);
  if (isSummary(value)) {
    const preview = JSON.stringify(value.preview);
    return (
      `shape ${formatShape(value.shape)}\nmin ${formatScalar(value.min)}  mean ${formatScalar(value.mean)}` +
      `  max ${formatScalar(value.max)}\npreview ${preview ?? ""}`
    );
  }
  const render = (v: TensorValue): string =>
    Array.isArray(v) ? `[${v.map(render).join(", ")}]` : formatShort(v);
  return render(value);
}

/** "()" for a scalar, "(3, 4)" otherwise. */
export function formatShape(shape: number[] | null | undefined): string {
  if (!shape || shape.length === 0) return "()";
  return `(${shape.join(", ")}${shape.length === 1 ? "," : ""})`;
}

/** Cut text to `max` characters with an ellipsis. */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
