/**
 * Practice mode's words for a step: which caption line concerns which node, the question a
 * hidden line becomes (`∂loss/∂w = ?`), and the hint (the line's rule before its numbers are
 * put in: `∂loss/∂w = x · ∂loss/∂(w · x)`). Everything is cut from the server's
 * caption (its text and trees); nothing is re-derived. DOM-free.
 */
import { formulaLines } from "../graph/model";
import { captionTex, mathTex } from "../formula/mathtree";
import type { CaptionLine, MathNode, WalkStep } from "../api/types";

/** One caption line of a step: its text, its tree (when sent) and the node it concerns. */
export interface StepLine {
  text: string;
  tree: CaptionLine | null;
  to: string | null;
}

/** A step's caption lines with the node each concerns (the tree's `to`, else the
 * contribution of the same index). */
export function stepLines(step: WalkStep): StepLine[] {
  const texts = formulaLines(step);
  const trees = step.caption ?? [];
  return texts.map((text, i) => {
    const tree = trees.length === texts.length ? (trees[i] ?? null) : null;
    return { text, tree, to: tree?.to ?? step.contributions[i]?.to ?? null };
  });
}

/** The part of a line before its relation: `∂loss/∂w` of `∂loss/∂w = x · … = −24`. */
function lhsText(text: string): { lhs: string; op: string } {
  const match = / (\+?=) /.exec(text);
  return match ? { lhs: text.slice(0, match.index), op: match[1] ?? "=" } : { lhs: text, op: "=" };
}

/** A hidden line as a question: `∂loss/∂w = ?` (`+= ?` for a gradient added to one held). */
export function questionLine(line: StepLine): { text: string; tex: string | null } {
  const { lhs, op } = lhsText(line.text);
  const tex = line.tree ? `${mathTex(line.tree.lhs)}${line.tree.op === "+=" ? " \\mathrel{+}= " : " = "}\\,?` : null;
  return { text: `${lhs} ${op} ?`, tex };
}

/** Whether a caption tree names a derivative (`∂loss/∂u`): a form of the rule, not of its numbers. */
function symbolic(node: MathNode): boolean {
  return node.k === "d" || (node.a ?? []).some(symbolic);
}

/**
 * The rule of a line with symbols only: its left side and the forms that still name the upstream
 * derivative, before the numbers are put in (`∂loss/∂w = x · ∂loss/∂(w · x)`; a constant stays:
 * `∂loss/∂x += 2 · ∂loss/∂u`); null when no form does.
 */
export function hintLine(line: StepLine): { text: string; tex: string | null } | null {
  const head = line.text.split(/\s+→\s+/)[0] ?? line.text;
  const parts = head.split(/ (\+?=) /);
  if (line.tree) {
    const forms: MathNode[] = [];
    for (const form of line.tree.forms) {
      if (!symbolic(form)) break;
      forms.push(form);
    }
    if (forms.length === 0) return null;
    return { text: joinParts(parts, forms.length), tex: captionTex({ ...line.tree, forms, total: null }) };
  }
  // No tree (an older recording): the forms that name a derivative, in its text.
  const forms = parts.filter((_, i) => i > 0 && i % 2 === 0);
  const count = forms.findIndex((f) => !f.includes("∂"));
  const kept = count < 0 ? forms.length : count;
  return kept > 0 ? { text: joinParts(parts, kept), tex: null } : null;
}

/** `lhs op form1 = form2 …` from split parts (`[lhs, op, form1, "=", form2, …]`), `count` forms. */
function joinParts(parts: string[], count: number): string {
  return parts.slice(0, 1 + 2 * count).join(" ");
}
