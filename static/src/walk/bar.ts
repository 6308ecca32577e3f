/**
 * The walk bar: the caption (the step's formulas, typeset), the contributions sent (one row per
 * receiver, the same numbers as the boxes), and the controls of the backward walk player and of
 * the forward replay. In presentation mode CSS keeps a compact row of it: step, play, counter.
 */
import { PLAYER } from "../common/config";
import { byId, el } from "../common/dom";
import { clipMiddle, formatShort, passLabel } from "../common/format";
import { formulaLine } from "../formula/typeset";
import { formulaLines, gradOwner, nodeExpression, nodeWord, type ForwardFrame, type WalkFrame } from "../graph/model";
import { captionTex } from "../formula/mathtree";
import { questionLine, stepLines } from "../practice/questions";
import { iterationOf } from "../graph/modules";
import type { Player } from "./player";
import type { Graph } from "../api/types";

export class WalkBar {
  private readonly caption = byId("walk-caption", HTMLElement);
  private readonly flows = byId("walk-flows", HTMLElement);
  private readonly scrub = byId("walk-scrub", HTMLInputElement);
  private readonly position = byId("walk-pos", HTMLElement);
  private readonly play = byId("walk-play", HTMLButtonElement);
  private readonly forward = byId("forward-play", HTMLButtonElement);
  /** Buttons that move the backward walk: disabled while there is no walk to move through. */
  private readonly walkButtons = ["walk-first", "walk-prev", "walk-play", "walk-next", "walk-last", "walk-over"].map((id) => byId(id, HTMLButtonElement));
  private readonly over = byId("walk-over", HTMLButtonElement);
  private readonly speed = byId("walk-speed", HTMLSelectElement);
  private readonly passPicker = byId("pass-picker", HTMLElement);
  private readonly passSelect = byId("pass-select", HTMLSelectElement);

  /** Called with the pass the user picked (its index in the program when the server says). */
  onPass: (pass: number) => void = () => {};
  /** Called when the user presses the forward replay button. */
  onForward: () => void = () => {};
  /** Called when the user asks to step over a collapsed module (or back over one: -1). */
  onStepOver: (direction: 1 | -1) => void = () => {};
  /** Set when backward() stopped with an autograd error, so an empty walk is explained as such. */
  failed = false;
  /** Set when the program stopped before any backward pass (a forward error). */
  forwardFailed = false;

  /** `player` drives the backward walk, `forward` the forward replay (they share the speed). */
  constructor(player: Player, forward: Player) {
    this.forward.addEventListener("click", () => this.onForward());
    byId("walk-prev", HTMLButtonElement).addEventListener("click", () => player.prev());
    byId("walk-next", HTMLButtonElement).addEventListener("click", () => player.next());
    byId("walk-first", HTMLButtonElement).addEventListener("click", () => player.first());
    byId("walk-last", HTMLButtonElement).addEventListener("click", () => player.last());
    this.over.addEventListener("click", () => this.onStepOver(1));
    this.play.addEventListener("click", () => player.toggle());
    this.scrub.addEventListener("input", () => {
      player.stop();
      player.seek(Number(this.scrub.value));
    });
    for (const speed of PLAYER.speeds) {
      const option = el("option", "", `${speed}×`);
      option.value = String(speed);
      option.selected = speed === 1;
      this.speed.append(option);
    }
    this.speed.addEventListener("change", () => {
      player.speed = Number(this.speed.value);
      forward.speed = player.speed;
    });
    this.passSelect.addEventListener("change", () => this.onPass(Number(this.passSelect.value)));
  }

  /**
   * Offer a pass picker when the run recorded several backward passes: each labelled with its
   * index in the program, saying how many of how many were kept. `keys` are the
   * options' values (the URL's `pass`), `selected` a list index;
   * `failedLast` says the last view is the graph a failed call left (after the passes that ran);
   * `stoppedBy` names what stopped the run mid-way (Stop, the wall clock), when one did: the last
   * pass recorded is then marked as where it stopped.
   */
  setPasses(views: Graph[], keys: number[], total: number | null | undefined, selected: number, failedLast: boolean, stoppedBy: string | null = null): void {
    const passes = failedLast ? views.length - 1 : views.length;
    // How many passes ran: the server says, else at least the last kept pass's index + 1.
    const lastIndex = Math.max(-1, ...views.slice(0, passes).map((g, i) => g.pass_index ?? i));
    const ran = Math.max(total ?? 0, lastIndex + 1, passes);
    this.passPicker.hidden = views.length < 2;
    this.passSelect.replaceChildren(
      ...views.map((pass, i) => {
        const index = pass.pass_index ?? i;
        const failed = failedLast && i === views.length - 1;
        let label = failed ? "where it failed" : passLabel(index, ran, passes);
        if (stoppedBy !== null && !failedLast && i === views.length - 1) label += ` — stopped here (${stoppedBy})`;
        const option = el("option", "", label);
        option.value = String(keys[i] ?? index);
        option.selected = i === selected;
        return option;
      }),
    );
  }

  /** The step-over button is offered while the next step is inside a collapsed module. */
  setStepOver(available: boolean, moduleName: string | null): void {
    this.over.hidden = !available;
    this.over.title = moduleName ? `Step over ${moduleName} as one step (Shift+→)` : "Step over a collapsed module (Shift+→)";
  }

  /** Show `frame` of `graph`; `playing` flips the play button. */
  update(graph: Graph | null, frame: WalkFrame | null, playing: boolean): void {
    const total = frame?.total ?? 0;
    this.scrub.max = String(total);
    this.scrub.value = String(frame?.position ?? 0);
    this.scrub.disabled = total === 0;
    this.scrub.setAttribute("aria-valuetext", `step ${frame?.position ?? 0} of ${total}`);
    this.position.textContent = `${frame?.position ?? 0} / ${total}`;
    this.play.textContent = playing ? "‖ Pause" : "▶ Play";
    this.play.setAttribute("aria-pressed", String(playing));
    for (const button of this.walkButtons) button.disabled = total === 0;
    this.setForwardButton(graph, false);
    this.flows.replaceChildren();
    const say = (text: string) => this.caption.replaceChildren(el("div", "caption-text", text));
    if (!graph || !frame) {
      say("Run a program to record its graph and backward walk.");
      return;
    }
    if (total === 0 && this.forwardFailed) {
      say("The program stopped before backward(): the graph shows what was recorded up to the error, the failing operation in red.");
      return;
    }
    if (total === 0 && this.failed) {
      say("backward() stopped with an error: there is no walk to replay. The node it concerns is marked in red.");
      return;
    }
    if (total === 0) {
      say("No backward pass was recorded: call backward() or end with a scalar that requires grad.");
      return;
    }
    if (frame.position === 0) {
      say("Forward pass done: every value is known, no gradient yet. Step → to walk backward.");
      return;
    }
    const byId = new Map(graph.nodes.map((n) => [n.id, n]));
    const word = (id: string): string => {
      const node = byId.get(id);
      return node ? nodeWord(node) : id;
    };
    const active = frame.active ? word(frame.active) : "";
    const head = el("span", "sr-only", `Step ${frame.position} of ${total}, at ${active}: `);
    let lines = frame.formulaLines.length ? frame.formulaLines : [`the gradient reaches ${active}`];
    // Each step's lines typeset from its caption trees (the server's brackets, nothing re-parsed).
    let tex = frame.steps.flatMap((step) => {
      const count = formulaLines(step).length;
      const trees = step.caption ?? [];
      return Array.from({ length: count }, (_, i) => (trees.length === count && trees[i] ? captionTex(trees[i]) : null));
    });
    // Practice mode: a line whose gradient is asked for becomes its question (`∂loss/∂w = ?`).
    const asked = frame.asked;
    if (asked && asked.size > 0 && frame.formulaLines.length) {
      const questions = frame.steps.flatMap(stepLines).map((line) => (line.to !== null && asked.has(line.to) ? questionLine(line) : null));
      lines = lines.map((line, i) => questions[i]?.text ?? line);
      tex = tex.map((t, i) => (questions[i] ? questions[i].tex : t));
    }
    // Lines are separated by a space in the caption's text, as they are on screen.
    this.caption.replaceChildren(head, ...lines.flatMap((line, i) => [...(i ? [" "] : []), formulaLine(line, tex?.[i] ?? null)]));
    // Inside a series (a loop's iterations, an RNN's time steps): which iteration this step is in.
    const where = iterationOf(graph, frame.active);
    if (where) {
      const tag = el("span", "walk-iteration", `t = ${where.index}`);
      tag.dataset.testid = "walk-iteration";
      tag.title = `${where.series}: iteration t = ${where.index} of 0 … ${where.count - 1}`;
      this.caption.prepend(tag, " ");
    }
    for (const flow of frame.flows) {
      const owner = `${gradOwner(clipMiddle(word(flow.to), 28))}.grad`;
      const item = el("li", flow.accumulates ? "accumulates" : "");
      item.dataset.to = flow.to;
      const hidden = frame.asked?.has(flow.to) ?? false;
      let sent = flow.accumulates ? `${owner} += ${formatShort(flow.grad)} → ${formatShort(flow.accumulated)}` : `${owner} = ${formatShort(flow.grad)}`;
      if (hidden) sent = flow.accumulates ? `${owner} += ?` : `${owner} = ?`;
      const to = el("span", "flow-to", sent);
      to.dataset.testid = "flow-value";
      const local = flow.localSymbolic && flow.localSymbolic !== flow.local ? `local ${flow.localSymbolic} = ${flow.local}` : `local ${flow.local}`;
      // Practice mode: the local derivative is the hint's to give.
      item.append(to, ...(hidden ? [] : [el("span", "flow-local", local)]));
      this.flows.append(item);
    }
  }

  /** Show the forward replay at `frame`: the caption names the node just computed and its value. */
  showForward(graph: Graph, frame: ForwardFrame, playing: boolean): void {
    this.setForwardButton(graph, playing);
    this.flows.replaceChildren();
    const node = graph.nodes.find((n) => n.id === frame.active);
    const head = `Forward ${frame.position} / ${frame.total}`;
    const say = (text: string) => this.caption.replaceChildren(el("div", "caption-text", text));
    if (!node) {
      say(`${head}: nothing computed yet.`);
      return;
    }
    const expression = nodeExpression(graph, node.id);
    const value = node.kind === "error" ? "(failed)" : formatShort(node.value);
    const what = node.is_leaf ? (node.requires_grad ? "input, requires grad" : "constant") : (node.grad_fn ?? node.op ?? "op");
    say(expression === value ? `${head}: ${value}  (${what})` : `${head}: ${expression} = ${value}  (${what})`);
  }

  private setForwardButton(graph: Graph | null, playing: boolean): void {
    this.forward.disabled = !graph || graph.nodes.length === 0;
    this.forward.textContent = playing ? "■ Stop" : "▶ Forward";
    this.forward.setAttribute("aria-pressed", String(playing));
  }
}
