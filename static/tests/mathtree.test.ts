/** Caption trees typeset as the server bracketed them: nothing re-parsed, no bracket lost. */
import assert from "node:assert/strict";
import { test } from "node:test";
import katex from "katex";
import { captionTex, mathTex } from "../src/formula/mathtree";
import { FUNCTION_TEX } from "../src/generated/ops.gen";
import type { CaptionLine, MathNode } from "../src/api/types";

const num = (v: number, t: string): MathNode => ({ k: "num", v, t });
const name = (t: string): MathNode => ({ k: "name", t });
const d = (top: MathNode, wrt: MathNode): MathNode => ({ k: "d", a: [top, wrt] });
const paren = (x: MathNode): MathNode => ({ k: "paren", a: [x] });
const tight = (tex: string): string => tex.replace(/ +/g, "");

/** The server's tree for tanh's step (tests/unit/test_captions.py checks its arithmetic). */
const TANH: CaptionLine = {
  lhs: d(name("loss"), paren(name("w · x"))),
  op: "=",
  forms: [
    { k: "·", a: [paren({ k: "−", a: [num(1, "1"), { k: "^", a: [name("a"), num(2, "2")] }] }), d(name("loss"), name("a"))] },
    { k: "·", a: [paren({ k: "−", a: [num(1, "1"), { k: "^", a: [num(0.8005, "0.8005"), num(2, "2")] }] }), paren(num(-0.4034, "−0.4034"))] },
    num(-0.1449, "−0.1449"),
  ],
};

test("tanh's 1 − a² stays bracketed in the product, as the tree says", () => {
  const tex = tight(captionTex(TANH));
  assert.ok(tex.includes(tight("\\left(1 - {a}^{2}\\right) \\cdot \\dfrac{\\partial \\mathrm{loss}}{\\partial a}")), tex);
  assert.ok(tex.includes(tight("\\left(1 - {0.8005}^{2}\\right) \\cdot \\left(-0.4034\\right) = -0.1449")), tex);
  assert.ok(tex.startsWith(tight("\\dfrac{\\partial \\mathrm{loss}}{\\partial \\left(w \\cdot x\\right)}")), tex);
  assert.ok(katex.renderToString(captionTex(TANH), { throwOnError: true, strict: "ignore" }).length > 0);
});

test("no bracket the tree does not hold: a product of atoms reads bare", () => {
  assert.equal(tight(mathTex({ k: "·", a: [num(2, "2"), name("x")] })), tight("2 \\cdot x"));
  assert.equal(tight(mathTex({ k: "neg", a: [name("x")] })), "-x");
});

test("an accumulation shows the sum it makes", () => {
  const line: CaptionLine = {
    lhs: d(name("loss"), name("err")),
    op: "+=",
    forms: [{ k: "·", a: [num(-6, "−6"), num(1, "1")] }, num(-6, "−6")],
    total: [{ k: "+", a: [num(-6, "−6"), paren(num(-6, "−6"))] }, num(-12, "−12")],
  };
  const tex = tight(captionTex(line));
  assert.ok(tex.includes(tight("\\mathrel{+}= -6 \\cdot 1 = -6 \\;\\rightarrow\\; -6 + \\left(-6\\right) = -12")), tex);
  assert.ok(katex.renderToString(captionTex(line), { throwOnError: true, strict: "ignore" }).length > 0);
});

test("every kind of node typesets", () => {
  const all: MathNode = {
    k: "seq",
    a: [
      { k: "iv", a: [{ k: "cmp", ops: ["≤", "<"], a: [num(-0.5, "−0.5"), name("a"), { k: "const", t: "π" }] }] },
      { k: "fn", f: "σ", a: [{ k: "sqrt", a: [name("x")] }] },
      { k: "sum", sub: "rows", a: [{ k: "T", a: [name("g")] }] },
      { k: "abs", a: [{ k: "/", a: [name("a"), num(5.81e-4, "5.81e−4")] }] },
      { k: "idx", a: [{ k: "fn", f: "Square.backward", a: [name("g")] }, num(0, "0")] },
      { k: "text", t: "reshaped to the shape of" },
      { k: "@", a: [name("a"), name("b")] },
    ],
  };
  assert.ok(katex.renderToString(mathTex(all), { throwOnError: true, strict: "ignore" }).length > 0);
});

test("every function the op table's rows typeset is set as TeX's own, and KaTeX reads it", () => {
  assert.ok(Object.keys(FUNCTION_TEX).length > 0);
  for (const [f, tex] of Object.entries(FUNCTION_TEX)) {
    const set = mathTex({ k: "fn", f, a: [name("x")] });
    assert.ok(set.startsWith(`${tex}\\left(`), `${f}: ${set}`);
    katex.renderToString(set, { throwOnError: true });
  }
});
