/**
 * Caption trees (the server's recorder/caption.py) as TeX for KaTeX. The server has already put
 * brackets where precedence needs them (`paren` nodes), so this only spells each node out: the
 * tree is never re-parsed and no bracket is added or dropped here. Labels (a node's text, such
 * as `model[0].weight` or `(… + b)^2`) are set by the text converter of tex.ts. DOM-free.
 */
import { labelToTex } from "./text-to-tex";
import { FUNCTION_TEX as ROW_FUNCTION_TEX } from "../generated/ops.gen";
import type { CaptionLine, MathNode } from "../api/types";

/** Functions typeset as TeX's own: those the op table's rows declare, and the normal
 * distribution's Φ and φ of the captions' notation. */
const FUNCTION_TEX: Record<string, string> = { ...ROW_FUNCTION_TEX, Φ: "\\Phi", φ: "\\varphi" };
const NAME_TEX: Record<string, string> = { π: "\\pi", e: "e", δ: "\\delta", σ: "\\sigma", N: "N", s: "s", "x̂": "\\hat{x}", ĝ: "\\hat{g}", Π: "\\Pi" };
const COMPARE_TEX: Record<string, string> = { ">": ">", "≥": "\\ge", "<": "<", "≤": "\\le", "=": "=", "≠": "\\ne" };
const BINARY_TEX: Record<string, string> = { "+": " + ", "−": " - ", "·": " \\cdot ", "/": " / ", "@": " \\mathbin{@} " };

/** Characters that need escaping inside \text{}. */
function escapeText(text: string): string {
  return text.replace(/[\\{}$&#%_^~]/g, (c) => (c === "\\" ? "\\textbackslash{}" : c === "^" ? "\\textasciicircum{}" : c === "~" ? "\\textasciitilde{}" : `\\${c}`));
}

/** A number's printed text (`−1.5`, `5.81e−4`, `∞`) in TeX. */
function numberTex(text: string): string {
  if (text === "∞") return "\\infty";
  if (text === "−∞") return "-\\infty";
  if (text === "NaN") return "\\text{NaN}";
  const [mantissa = "", exponent] = text.replace(/−/g, "-").split("e");
  return exponent === undefined ? mantissa : `${mantissa}\\mathrm{e}{${exponent}}`;
}

/** A node as TeX. */
export function mathTex(node: MathNode): string {
  const a = node.a ?? [];
  const arg = (i: number): string => mathTex(a[i] ?? { k: "text", t: "?" });
  switch (node.k) {
    case "num":
      return numberTex(String(node.t ?? node.v ?? ""));
    case "name":
      return NAME_TEX[node.t ?? ""] ?? labelToTex(node.t ?? "");
    case "const":
      return node.t === "π" ? "\\pi" : "\\mathrm{e}";
    case "text":
      return `\\text{${escapeText(node.t ?? "")}}`;
    case "paren":
      return `\\left(${arg(0)}\\right)`;
    case "neg":
      return `-${arg(0)}`;
    case "^":
      return `{${arg(0)}}^{${arg(1)}}`;
    case "T":
      return `{${arg(0)}}^{\\top}`;
    case "fn": {
      const f = node.f ?? "";
      const head = FUNCTION_TEX[f] ?? `\\operatorname{${escapeText(f)}}`;
      return `${head}\\left(${a.map(mathTex).join(",\\, ")}\\right)`;
    }
    case "sqrt":
      return `\\sqrt{${arg(0)}}`;
    case "abs":
      return `\\left|${arg(0)}\\right|`;
    case "sum":
      return `\\sum${node.sub ? `_{\\text{${escapeText(node.sub)}}}` : ""} ${arg(0)}`;
    case "iv":
      return `\\left[${arg(0)}\\right]`;
    case "idx":
      return `${arg(0)}[${arg(1)}]`;
    case "cmp":
      return a.map((x, i) => (i === 0 ? mathTex(x) : ` ${COMPARE_TEX[node.ops?.[i - 1] ?? "="] ?? "="} ${mathTex(x)}`)).join("");
    case "d":
      return `\\dfrac{\\partial ${arg(0)}}{\\partial ${arg(1)}}`;
    case "seq":
      return a.map(mathTex).join("\\ ");
    default: {
      const op = BINARY_TEX[node.k];
      if (op && a.length === 2) return `${arg(0)}${op}${arg(1)}`;
      return `\\text{${escapeText(node.k)}}`;
    }
  }
}

/** A caption line as TeX: `lhs = form = form …  →  before + sent = after`. */
export function captionTex(line: CaptionLine): string {
  const relation = line.op === "+=" ? " \\mathrel{+}= " : " = ";
  let tex = `${mathTex(line.lhs)}${relation}${line.forms.map(mathTex).join(" = ")}`;
  if (line.total && line.total.length === 2) tex += ` \\;\\rightarrow\\; ${line.total.map(mathTex).join(" = ")}`;
  return tex;
}
