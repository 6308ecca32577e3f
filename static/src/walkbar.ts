/**
 * The walk bar: caption with the step's formula, the contributions sent, and the controls of the
 * backward walk player and of the forward replay.
 */
import { PLAYER } from "./config";
import { byId, el } from "./dom";
import { formatShort } from "./format";
import { nodeExpression, type ForwardFrame, type WalkFrame } from "./graphmodel";
import type { Player } from "./player";
import type { Graph } from "./types";

export class WalkBar {
  private readonly caption = byId("walk-caption", HTMLElement);
  private readonly flows = byId("walk-flows", HTMLElement);
  private readonly scrub = byId("walk-scrub", HTMLInputElement);
  private readonly position = byId("walk-pos", HTMLElement);
  private readonly play = byId("walk-play", HTMLButtonElement);
  private readonly forward = byId("forward-play", HTMLButtonElement);
  /** Buttons that move the backward walk: disabled while there is no walk to move through. */
  private readonly walkButtons = ["walk-first", "walk-prev", "walk-play", "walk-next", "walk-last"].map((id) => byId(id, HTMLButtonElement));
  private readonly speed = byId("walk-speed", HTMLSelectElement);
  private readonly passPicker = byId("pass-picker", HTMLElement);
  private readonly passSelect = byId("pass-select", HTMLSelectElement);

  /** Called with the pass index the user picked. */
  onPass: (pass: number) => void = () => {};
  /** Called when the user presses the forward replay button. */
  onForward: () => void = () => {};
  /** Set when backward() stopped with an autograd error, so an empty walk is explained as such. */
  failed = false;

  /** `player` drives the backward walk, `forward` the forward replay (they share the speed). */
  constructor(player: Player, forward: Player) {
    this.forward.addEventListener("click", () => this.onForward());
    byId("walk-prev", HTMLButtonElement).addEventListener("click", () => player.prev());
    byId("walk-next", HTMLButtonElement).addEventListener("click", () => player.next());
    byId("walk-first", HTMLButtonElement).addEventListener("click", () => player.first());
    byId("walk-last", HTMLButtonElement).addEventListener("click", () => player.last());
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

  /** Offer a pass picker when the run recorded several backward passes. */
  setPasses(count: number, selected: number): void {
    this.passPicker.hidden = count < 2;
    this.passSelect.replaceChildren(
      ...Array.from({ length: count }, (_, i) => {
        const option = el("option", "", `pass ${i + 1} of ${count}`);
        option.value = String(i);
        option.selected = i === selected;
        return option;
      }),
    );
  }

  /** Show `frame` of `graph`; `playing` flips the play button. */
  update(graph: Graph | null, frame: WalkFrame | null, playing: boolean): void {
    const total = frame?.total ?? 0;
    this.scrub.max = String(total);
    this.scrub.value = String(frame?.position ?? 0);
    this.scrub.disabled = total === 0;
    this.position.textContent = `${frame?.position ?? 0} / ${total}`;
    this.play.textContent = playing ? "‖ Pause" : "▶ Play";
    this.play.setAttribute("aria-pressed", String(playing));
    for (const button of this.walkButtons) button.disabled = total === 0;
    this.setForwardButton(graph, false);
    this.flows.replaceChildren();
    if (!graph || !frame) {
      this.caption.textContent = "Run a program to record its graph and backward walk.";
      return;
    }
    if (total === 0 && this.failed) {
      this.caption.textContent = "backward() stopped with an error: there is no walk to replay. The node it concerns is marked in red.";
      return;
    }
    if (total === 0) {
      this.caption.textContent = "No backward pass was recorded: call backward() or end with a scalar that requires grad.";
      return;
    }
    if (frame.position === 0) {
      this.caption.textContent = "Forward pass done: every value is known, no gradient yet. Step → to walk backward.";
      return;
    }
    const names = new Map(graph.nodes.map((n) => [n.id, n.name ?? n.label ?? n.grad_fn ?? n.op ?? n.id]));
    this.caption.textContent = frame.formula ?? "";
    const seen = new Map<string, number>();
    for (const flow of frame.flows) {
      const count = (seen.get(flow.to) ?? 0) + 1;
      seen.set(flow.to, count);
      const to = names.get(flow.to) ?? flow.to;
      const op = flow.accumulates ? "+=" : "=";
      const item = el("li", flow.accumulates ? "accumulates" : "");
      item.append(
        el("span", "flow-to", `${to}.grad ${op} ${formatShort(flow.grad)}`),
        el(
          "span",
          "flow-local",
          flow.localSymbolic && flow.localSymbolic !== flow.local ? `local ${flow.localSymbolic} = ${flow.local}` : `local ${flow.local}`,
        ),
      );
      if (flow.accumulates) item.append(el("span", "flow-total", `→ ${formatShort(flow.accumulated)}`));
      this.flows.append(item);
    }
  }

  /** Show the forward replay at `frame`: the caption names the node just computed and its value. */
  showForward(graph: Graph, frame: ForwardFrame, playing: boolean): void {
    this.setForwardButton(graph, playing);
    this.flows.replaceChildren();
    const node = graph.nodes.find((n) => n.id === frame.active);
    const head = `Forward ${frame.position} / ${frame.total}`;
    if (!node) {
      this.caption.textContent = `${head}: nothing computed yet.`;
      return;
    }
    const expression = nodeExpression(graph, node.id);
    const value = formatShort(node.value);
    const what = node.is_leaf ? (node.requires_grad ? "input, requires grad" : "constant") : (node.grad_fn ?? node.op ?? "op");
    this.caption.textContent = expression === value ? `${head}: ${value}  (${what})` : `${head}: ${expression} = ${value}  (${what})`;
  }

  private setForwardButton(graph: Graph | null, playing: boolean): void {
    this.forward.disabled = !graph || graph.nodes.length === 0;
    this.forward.textContent = playing ? "■ Stop" : "▶ Forward";
    this.forward.setAttribute("aria-pressed", String(playing));
  }
}
