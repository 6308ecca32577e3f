/**
 * The walk's formula text, as the server writes it in Unicode (`∂L/∂w = x · ∂L/∂p = 2 · (−12) =
 * −24`), converted to TeX for KaTeX: derivatives as fractions, transposes, sums and powers set
 * unambiguously (`∂L/∂sub^2` is a derivative with respect to a square, not a second derivative,
 * so the square is bracketed). DOM-free; anything it does not understand is set as text.
 */

/** Single letters that have a TeX name. */
const GREEK: Record<string, string> = { σ: "\\sigma", δ: "\\delta", μ: "\\mu", α: "\\alpha", β: "\\beta", λ: "\\lambda", ε: "\\varepsilon", η: "\\eta", θ: "\\theta", π: "\\pi" };

/** Characters that need escaping inside \mathrm{} / \text{}. */
function escapeText(text: string): string {
  return text.replace(/[\\{}$&#%_^~]/g, (c) => {
    if (c === "\\") return "\\textbackslash{}";
    if (c === "^") return "\\textasciicircum{}";
    if (c === "~") return "\\textasciitilde{}";
    return `\\${c}`;
  });
}

/** A name as math: one letter in italic, a longer name upright (`loss`, `model.4.weight`). */
function nameTex(name: string): string {
  const greek = GREEK[name];
  if (greek) return greek;
  if (/^[A-Za-z]$/.test(name)) return name;
  return `\\mathrm{${escapeText(name).replace(/…/g, "\\ldots{}")}}`;
}

const NAME_CHAR = /(?!ᵀ)[\p{L}\p{N}_.#]/u;

class Converter {
  private i = 0;
  constructor(private readonly s: string) {}

  private peek(offset = 0): string {
    return this.s[this.i + offset] ?? "";
  }

  private startsWith(text: string): boolean {
    return this.s.startsWith(text, this.i);
  }

  /** The text of a balanced group starting at an opening bracket; the index moves past it. */
  private balanced(open: string, close: string): string {
    let depth = 0;
    const start = this.i;
    for (; this.i < this.s.length; this.i++) {
      const c = this.s[this.i];
      if (c === open) depth++;
      else if (c === close && --depth === 0) {
        this.i++;
        return this.s.slice(start + 1, this.i - 1);
      }
    }
    return this.s.slice(start + 1);
  }

  /** A name with its calls and indexing: `mean(sub#6^2)`, `log_probs[…]`, `model[0](X)`. */
  private name(): { tex: string; compound: boolean } {
    let text = "";
    while (this.i < this.s.length && NAME_CHAR.test(this.peek())) text += this.s[this.i++];
    let tex = nameTex(text);
    let compound = false;
    for (;;) {
      if (this.peek() === "[") {
        const inner = this.balanced("[", "]");
        tex += `[${inner === "…" ? "\\ldots" : convert(inner)}]`;
      } else if (this.peek() === "." && text !== "" && NAME_CHAR.test(this.peek(1))) {
        // an attribute after an index: `layers[0].neurons[1].w[1]` is one name
        let more = "";
        while (this.i < this.s.length && NAME_CHAR.test(this.peek())) more += this.s[this.i++];
        tex += nameTex(more);
      } else if (this.peek() === "(" && text !== "") {
        tex += `\\left(${convert(this.balanced("(", ")"))}\\right)`;
      } else break;
    }
    // A power belongs to the name (`sub#6^2` is the square); a transpose after a derivative's
    // variable belongs to the whole derivative, so it is left for the caller.
    const power = this.postfix(false);
    if (power) {
      tex = `{${tex}}${power}`;
      compound = true;
    }
    return { tex, compound };
  }

  /** Transpose marks and powers after an operand (`transpose` false leaves a ᵀ unread). */
  private postfix(transpose = true): string {
    let out = "";
    for (;;) {
      if (this.peek() === "ᵀ" && transpose) {
        this.i++;
        out += "^{\\top}";
      } else if (this.peek() === "^" && /[\d(−-]/.test(this.peek(1))) {
        this.i++;
        if (this.peek() === "(") out += `^{${convert(this.balanced("(", ")"))}}`;
        else {
          let digits = "";
          if (this.peek() === "−" || this.peek() === "-") digits += this.s[this.i++] === "−" ? "-" : "-";
          while (/\d/.test(this.peek())) digits += this.s[this.i++];
          out += `^{${digits}}`;
        }
      } else return out;
    }
  }

  /** What follows a ∂: a bracketed expression or a name, bracketed when it carries a power. */
  private operand(): string {
    if (this.peek() === "(") {
      const inner = convert(this.balanced("(", ")"));
      const power = this.postfix(false);
      return power ? `\\left(\\left(${inner}\\right)${power}\\right)` : `\\left(${inner}\\right)`;
    }
    const { tex, compound } = this.name();
    return compound ? `\\left(${tex}\\right)` : tex;
  }

  /** A run of plain words ("to every element of", "twice"): set as text, spaces kept. */
  private words(): string | null {
    const rest = this.s.slice(this.i);
    const match = /^[a-z]+(?: [a-z]+)+(?![\w(.#[])/.exec(rest) ?? /^(?:twice|and|or|where|for)(?= |$)/.exec(rest);
    if (!match) return null;
    this.i += match[0].length;
    return `\\text{ ${match[0]} }`;
  }

  run(): string {
    let out = "";
    while (this.i < this.s.length) {
      const c = this.peek();
      if (c === " ") {
        this.i++;
        continue;
      }
      if (c === "∂") {
        this.i++;
        const top = this.operand();
        if (this.peek() === "/" && this.peek(1) === "∂") {
          this.i += 2;
          const bottom = this.operand();
          const fraction = `\\dfrac{\\partial ${top}}{\\partial ${bottom}}`;
          const after = this.postfix();
          out += after ? `\\left(${fraction}\\right)${after}` : fraction;
        } else out += `\\partial ${top}`;
        continue;
      }
      if (this.startsWith("Σ_rows")) {
        this.i += "Σ_rows".length;
        out += "\\sum_{\\text{rows}}";
        continue;
      }
      if (this.startsWith("+=")) {
        this.i += 2;
        out += " \\mathrel{+}= ";
        continue;
      }
      if (/[a-z]/.test(c)) {
        const prose = this.words();
        if (prose !== null) {
          out += prose;
          continue;
        }
      }
      if (NAME_CHAR.test(c) && !/\d/.test(c)) {
        out += this.name().tex;
        continue;
      }
      if (/\d/.test(c)) {
        let number = "";
        while (/[\d.]/.test(this.peek())) number += this.s[this.i++];
        if (this.peek() === "e" && /[−+\-\d]/.test(this.peek(1))) {
          this.i++;
          let exponent = "";
          if (/[−+-]/.test(this.peek())) exponent += this.s[this.i++] === "+" ? "" : "-";
          while (/\d/.test(this.peek())) exponent += this.s[this.i++];
          number += `\\mathrm{e}{${exponent}}`;
        }
        out += `${number}${this.postfix()}`;
        continue;
      }
      if (c === "(") {
        out += `\\left(${convert(this.balanced("(", ")"))}\\right)${this.postfix()}`;
        continue;
      }
      if (c === "[") {
        out += `[${convert(this.balanced("[", "]"))}]`;
        continue;
      }
      this.i++;
      out += SYMBOLS[c] ?? (/[A-Za-z0-9+=<>,;:!|/]/.test(c) ? c : `\\text{${escapeText(c)}}`);
    }
    return out;
  }
}

const SYMBOLS: Record<string, string> = {
  "·": " \\cdot ",
  "×": " \\times ",
  "@": " \\mathbin{@} ",
  "−": " - ",
  "-": " - ",
  "→": " \\;\\rightarrow\\; ",
  "Σ": "\\sum ",
  "…": "\\ldots ",
  "ᵀ": "^{\\top}",
  "≥": " \\ge ",
  "≤": " \\le ",
  "≠": " \\ne ",
  "∞": "\\infty ",
  "'": "'",
  ",": ",\\,",
  "/": " / ",
  "%": "\\% ",
};

/** One line of the server's formula text as TeX. */
export function formulaToTex(line: string): string {
  return convert(line.trim());
}

function convert(text: string): string {
  return new Converter(text).run().replace(/ {2,}/g, " ").trim();
}

/** A node's label (`w`, `model[0].weight`, `(… + b)^2`) as TeX: a name, or the label's text. */
export function labelToTex(label: string): string {
  return /^[^\W\d][\w.[\]…#]*$/u.test(label) && !/\[/.test(label) ? nameTex(label) : convert(label);
}
