/** The Unicode formula text of the walk, converted to TeX for KaTeX. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { formulaToTex } from "../src/formula/text-to-tex";

/** TeX without its spaces, which do not change what KaTeX sets in math mode. */
const tight = (tex: string): string => tex.replace(/ +/g, "");

test("a derivative becomes a fraction, numbers and products kept", () => {
  assert.equal(
    tight(formulaToTex("∂L/∂w = x · ∂L/∂p = 2 · (−12) = −24")),
    tight("\\dfrac{\\partial L}{\\partial w} = x \\cdot \\dfrac{\\partial L}{\\partial p} = 2 \\cdot \\left( - 12\\right) = - 24"),
  );
});

test("a derivative with respect to a power is bracketed, never a second derivative", () => {
  const tex = formulaToTex("∂L/∂sub#6^2 = 2·sub#6^1 · ∂L/∂x^2");
  assert.match(tex, /\\partial \\left\(\{\\mathrm\{sub\\#6\}\}\^\{2\}\\right\)/);
  assert.match(tex, /\\partial \\left\(\{x\}\^\{2\}\\right\)/);
  assert.match(formulaToTex("∂L/∂(p − y)^2 = 1"), /\\partial \\left\(\\left\(p - y\\right\)\^\{2\}\\right\)/);
});

test("transposes, matrix products, sums over rows, names with dots", () => {
  const tex = formulaToTex("∂loss/∂model.4.weight = ∂loss/∂linear#11ᵀ @ relu(linear#7)");
  assert.match(tex, /\\mathrm\{model\.4\.weight\}/);
  // The transpose is of the gradient, not of the variable in its denominator.
  assert.match(tex, /\\left\(\\dfrac\{\\partial \\mathrm\{loss\}\}\{\\partial \\mathrm\{linear\\#11\}\}\\right\)\^\{\\top\}/);
  assert.match(tex, /\\mathbin\{@\}/);
  assert.match(tex, /\\mathrm\{relu\}\\left\(\\mathrm\{linear\\#7\}\\right\)/);
  assert.match(formulaToTex("∂loss/∂b = Σ_rows ∂loss/∂p"), /\\sum_\{\\text\{rows\}\}/);
});

test("accumulation, prose and labels from the source", () => {
  const tex = formulaToTex("∂L/∂err += err · ∂L/∂loss = (−6) · 1 = −6  → −12, twice (loss = err · err)");
  assert.match(tex, /\\mathrel\{\+\}=/);
  assert.match(tex, /\\rightarrow/);
  assert.match(tex, /\\text\{ twice \}/);
  assert.match(formulaToTex("1 / N to every element of log_probs[…]"), /\\text\{ to every element of \}\\mathrm\{log\\_probs\}\[\\ldots\]/);
  assert.match(formulaToTex("∂L/∂model[0](X) = 1"), /\\partial \\mathrm\{model\}\[0\]\\left\(X\\right\)/);
  assert.match(formulaToTex("∂L/∂σ(h) = σ(h)·(1 − σ(h))"), /\\sigma\\left\(h\\right\)/);
});

test("exponents and odd characters are escaped, never raw TeX", () => {
  assert.match(formulaToTex("g = 5.81e−4"), /5\.81\\mathrm\{e\}\{-4\}/);
  assert.doesNotMatch(formulaToTex("a $ b & c"), /(^|[^\\])[$&]/);
});

test("an attribute after an index stays in the name (a micrograd model's Values)", () => {
  const tex = formulaToTex("∂loss/∂layers[0].neurons[1].w[1] += (−1) · 0.002162 = −0.002162");
  assert.match(tight(tex), /\{\\partial\\mathrm\{layers\}\[0\]\\mathrm\{\.neurons\}\[1\]\\mathrm\{\.w\}\[1\]\}/);
  assert.ok(!tight(tex).includes("}.neurons"), tex);
});
