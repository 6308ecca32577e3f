/**
 * Practice mode's panel under the walk's caption: the question of the step the walk stopped at
 * (the gradient of the node it reaches), the field the learner types it in (Enter checks), the
 * feedback that names the mistake, the Hint (the rule with symbols) and Show answer buttons, the
 * walk's score and the "next mistake" review. It reads and updates a PracticeSession
 * (practice/session.ts); the walk view re-draws the step when a question closes.
 */
import { byId, el } from "../common/dom";
import { formatShape, formatShort } from "../common/format";
import { formulaLine } from "../formula/typeset";
import { gradOwner, nodeWord } from "../graph/model";
import { flatten, type Diagnosis } from "./answers";
import { hintLine, stepLines } from "./questions";
import { type AskState, type PracticeSession } from "./session";

/** What the learner is told for each verdict (`this`/`input` name the step's nodes). */
export function feedbackText(diagnosis: Diagnosis, words: { step: string; input: string; answer: string; count: number; shape: string }): string {
  const { step, input, answer, count, shape } = words;
  switch (diagnosis) {
    case "right":
      return `Right: ${input}.grad = ${answer}.`;
    case "accumulation":
      return "You gave one contribution; this node feeds several consumers — add them (+=).";
    case "local_forgotten":
      return `You passed the upstream gradient on: multiply by the local derivative ∂(${step})/∂${input}.`;
    case "upstream_forgotten":
      return `You gave the local derivative alone: multiply it by the upstream gradient that reached ${step} (the chain rule).`;
    case "local_inverted":
      return `You divided by the local derivative: the chain rule multiplies, upstream × ∂(${step})/∂${input}.`;
    case "broadcast":
      return "Sum the gradient over the broadcast axes back to the input's shape.";
    case "transpose":
      return `Transposed: ${input}.grad has ${input}'s shape ${shape}; check the order of the matrix product.`;
    case "sign":
      return "The sign is flipped: check the local derivative's sign (a minus, a subtraction).";
    case "digits":
      return "Right as far as it goes: give at least 3 significant digits.";
    case "shape":
      return `${input}.grad has ${count} number${count === 1 ? "" : "s"}${shape ? ` (shape ${shape})` : ""}: type each, separated by spaces or commas.`;
    default:
      return "Not right, and not a mistake we can name: try the Hint.";
  }
}

/** The practice panel of a page's walk (the stage's `practice-*` elements). */
export class PracticeView {
  private readonly panel = byId("practice-panel", HTMLElement);
  private readonly form = byId("practice-form", HTMLFormElement);
  private readonly prompt = byId("practice-prompt", HTMLLabelElement);
  private readonly guess = byId("practice-guess", HTMLInputElement);
  private readonly hintButton = byId("practice-hint", HTMLButtonElement);
  private readonly showButton = byId("practice-show", HTMLButtonElement);
  private readonly feedback = byId("practice-feedback", HTMLElement);
  private readonly hintBox = byId("practice-hint-text", HTMLElement);
  private readonly next = byId("practice-next", HTMLButtonElement);
  private readonly score = byId("practice-score", HTMLElement);
  private readonly review = byId("practice-review", HTMLButtonElement);

  private session: PracticeSession | null = null;
  private position = 0;
  /** The question on screen (the feedback and hint belong to it). */
  private shownAsk: AskState | null = null;

  /** A question closed (right or shown): the walk view re-draws the step, unmasked. */
  onAnswered: () => void = () => {};
  /** The learner asks for the next step. */
  onNext: () => void = () => {};
  /** The learner asks for walk position `position` (the next mistake to review). */
  onSeek: (position: number) => void = () => {};

  constructor() {
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    });
    this.hintButton.addEventListener("click", () => this.showHint());
    this.showButton.addEventListener("click", () => this.showAnswer());
    this.next.addEventListener("click", () => this.onNext());
    this.review.addEventListener("click", () => {
      const target = this.session?.nextMistake(this.position);
      if (target !== null && target !== undefined) this.onSeek(target);
    });
  }

  /** Show `session` (null: practice mode off, the panel hidden) at walk `position`. */
  show(session: PracticeSession | null, position: number): void {
    this.panel.hidden = session === null;
    this.session = session;
    const moved = position !== this.position;
    this.position = position;
    if (!session) return;
    const ask = session.current(position);
    const asks = session.asksAt(position);
    const total = session.graph.walk.length;
    const changed = ask !== this.shownAsk;
    this.shownAsk = ask;
    this.form.hidden = ask === null;
    this.next.hidden = ask !== null || position >= total;
    if (changed || moved) {
      this.hintBox.hidden = true;
      this.hintBox.replaceChildren();
      this.guess.value = "";
      this.feedback.textContent = ask === null ? this.summary(asks, position, total) : "";
    }
    if (ask) {
      this.prompt.textContent = this.question(ask);
      this.guess.setAttribute("aria-describedby", "practice-feedback");
      if (changed && wantsFocus()) this.guess.focus();
    } else if (changed && this.guess === document.activeElement) this.next.focus();
    this.showScore();
  }

  /** The learner pressed → at a step still asking: say so, and put the cursor in the field. */
  nudge(): void {
    if (!this.shownAsk) return;
    this.feedback.textContent = "Type this gradient first (Enter checks), or press Show answer.";
    this.guess.focus();
  }

  private submit(): void {
    const session = this.session;
    const ask = this.shownAsk;
    if (!session || !ask) {
      this.onNext();
      return;
    }
    if (this.guess.value.trim() === "") {
      this.feedback.textContent = "Type a number first (for a tensor, its numbers separated by spaces).";
      return;
    }
    const diagnosis = session.check(ask, this.guess.value);
    this.feedback.textContent = feedbackText(diagnosis, this.words(ask));
    this.feedback.dataset.diagnosis = diagnosis;
    if (diagnosis !== "right") {
      this.guess.select();
      this.showScore();
      return;
    }
    this.closed();
  }

  private showAnswer(): void {
    const ask = this.shownAsk;
    if (!this.session || !ask) return;
    this.session.reveal(ask);
    this.feedback.textContent = `The answer: ${this.words(ask).input}.grad = ${formatShort(ask.ask.answer as never)} (the caption shows how).`;
    this.feedback.dataset.diagnosis = "shown";
    this.closed();
  }

  /** A question closed: the step is re-drawn; the next question (or Next step) gets the focus. */
  private closed(): void {
    const said = this.feedback.textContent ?? "";
    const diagnosis = this.feedback.dataset.diagnosis;
    this.onAnswered();
    // The re-draw showed the step's next question (or none): keep what was said about this one.
    const after = this.session?.current(this.position) ?? null;
    const last = this.position >= (this.session?.graph.walk.length ?? 0);
    const more = after ? ` Next: ${this.words(after).input}.grad.` : last ? ` ${this.doneText()}` : " → or Enter: the next step.";
    this.feedback.textContent = `${said}${more}`;
    if (diagnosis) this.feedback.dataset.diagnosis = diagnosis;
    if (after) this.guess.focus();
    else if (!this.next.hidden) this.next.focus();
    else if (!this.review.disabled) this.review.focus(); // the walk is done: review its mistakes
    else this.score.focus();
  }

  private showHint(): void {
    const session = this.session;
    const ask = this.shownAsk;
    if (!session || !ask) return;
    ask.hinted = true;
    const step = session.graph.walk[ask.position - 1];
    const lines = step ? stepLines(step).filter((line) => line.to === ask.ask.to) : [];
    const hints = lines.map(hintLine).filter((h): h is NonNullable<typeof h> => h !== null);
    const children: Node[] = [el("span", "practice-hint-head", "The rule:")];
    if (hints.length) for (const h of hints) children.push(formulaLine(h.text, h.tex));
    else {
      const c = step?.contributions.find((x) => x.to === ask.ask.to);
      const words = this.words(ask);
      children.push(el("span", "", `${words.input}.grad = ∂(${words.step})/∂${words.input} · upstream, the local derivative being ${c?.local_symbolic ?? "the op's"}.`));
    }
    if (this.heldBefore(ask)) children.push(el("span", "practice-hint-note", `${this.words(ask).input} already holds a gradient from an earlier step: add to it (+=).`));
    this.hintBox.replaceChildren(...children);
    this.hintBox.hidden = false;
    this.guess.focus();
  }

  /** The asked node held a gradient before this step (an earlier consumer's). */
  private heldBefore(ask: AskState): boolean {
    const graph = this.session?.graph;
    if (!graph) return false;
    return graph.walk.slice(0, ask.position - 1).some((s) => s.contributions.some((c) => c.to === ask.ask.to)) || (graph.walk[ask.position - 1]?.contributions.filter((c) => c.to === ask.ask.to).length ?? 0) > 1;
  }

  /** "Step 3 of 4 · w.grad = ?" with how to type it. */
  private question(ask: AskState): string {
    const { input, count, shape } = this.words(ask);
    const total = this.session?.graph.walk.length ?? 0;
    const rows = ask.ask.shape.length > 1 ? ", row by row" : "";
    const how = count === 1 ? "a number" : `${count} numbers, shape ${shape}${rows}, separated by spaces`;
    return `Step ${ask.position} of ${total}: what is ${gradOwner(input)}.grad now? (${how})`;
  }

  private words(ask: AskState): { step: string; input: string; answer: string; count: number; shape: string } {
    const graph = this.session?.graph;
    const word = (id: string | undefined): string => {
      const node = id ? graph?.nodes.find((n) => n.id === id) : undefined;
      return node ? nodeWord(node) : (id ?? "");
    };
    return {
      step: word(graph?.walk[ask.position - 1]?.node),
      input: word(ask.ask.to),
      answer: formatShort(ask.ask.answer as never),
      count: flatten(ask.ask.answer).length,
      shape: ask.ask.shape.length ? formatShape(ask.ask.shape) : "",
    };
  }

  /** What an answered step says when the walk comes back to it (the review). */
  private summary(asks: AskState[], position: number, total: number): string {
    if (asks.length === 0) {
      if (position === 0) return "The forward pass is done: → starts the walk.";
      return position >= total ? this.doneText() : "This step asks nothing (its gradients are too large to type): → goes on.";
    }
    const parts = asks.map((a) => {
      const input = this.words(a).input;
      if (a.status === "given") return `${input}.grad: not asked (the link opened the walk after it).`;
      const tries = a.tries.map((t) => `${t.typed} (${t.diagnosis === "right" ? "right" : t.diagnosis.replace(/_/g, " ")})`);
      const how = a.status === "shown" ? "answer shown" : "";
      return `${input}.grad: ${[...tries, how].filter(Boolean).join(", then ")}.`;
    });
    return position >= total ? `${parts.join(" ")} ${this.doneText()}` : parts.join(" ");
  }

  private doneText(): string {
    const s = this.session?.score();
    return s ? `Walk done: ${s.firstTry} of ${s.asked} right at the first try.` : "";
  }

  private showScore(): void {
    const s = this.session?.score();
    this.score.textContent = s ? `Score ${s.firstTry} / ${s.asked} right at the first try (${s.total} question${s.total === 1 ? "" : "s"})` : "";
    this.review.disabled = !this.session || this.session.nextMistake(this.position) === null;
  }
}

/** The focus may move to the guess field: it is not in the editor or another field. */
function wantsFocus(): boolean {
  const active = document.activeElement;
  if (!active || active === document.body) return true;
  if (active.closest(".editor-host, .cm-editor, dialog")) return false;
  const tag = active.tagName;
  return !(tag === "TEXTAREA" || tag === "SELECT" || (tag === "INPUT" && active.id !== "practice-guess"));
}
