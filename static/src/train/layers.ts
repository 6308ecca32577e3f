/** The layer builder: hidden layers with − / + neuron buttons, remove, and "+ layer". */
import { el } from "../common/dom";
import { LIMITS } from "./config";

/** Renders the hidden widths as rows of controls; reports every edit through `onChange`. */
export class LayerBuilder {
  /** Called with the new hidden widths after each edit. */
  onChange: (hidden: number[]) => void = () => {};
  private hidden: number[] = [];

  constructor(
    private readonly host: HTMLElement,
    private readonly addButton: HTMLButtonElement,
    private readonly shape: HTMLElement,
  ) {
    addButton.addEventListener("click", () => {
      const last = this.hidden[this.hidden.length - 1] ?? 8;
      this.commit([...this.hidden, last]);
    });
  }

  /** Show `hidden` (widths) for a model with `classes` outputs. */
  render(hidden: number[], classes: number): void {
    this.hidden = [...hidden];
    this.host.replaceChildren(
      ...hidden.map((width, i) => {
        const row = el("div", "layer-row");
        row.dataset.testid = `train-layer-${i}`;
        row.append(el("span", "layer-name", `Hidden ${i + 1}`));
        row.append(this.button("−", `Remove a neuron from layer ${i + 1}`, width <= 1, () => this.resize(i, -1), `train-layer-${i}-minus`));
        const count = el("span", "layer-width mono", String(width));
        count.dataset.testid = `train-layer-${i}-width`;
        row.append(count);
        row.append(this.button("+", `Add a neuron to layer ${i + 1}`, width >= LIMITS.maxWidth, () => this.resize(i, 1), `train-layer-${i}-plus`));
        row.append(this.button("×", `Remove layer ${i + 1}`, false, () => this.commit(this.hidden.filter((_, j) => j !== i)), `train-layer-${i}-remove`));
        return row;
      }),
    );
    if (!hidden.length) this.host.append(el("p", "muted", "No hidden layer: a linear classifier."));
    this.addButton.disabled = hidden.length >= LIMITS.maxLayers;
    this.shape.textContent = [2, ...hidden, classes].join("-");
  }

  private resize(i: number, delta: number): void {
    const next = [...this.hidden];
    next[i] = Math.min(LIMITS.maxWidth, Math.max(1, next[i]! + delta));
    this.commit(next);
  }

  private commit(hidden: number[]): void {
    this.onChange(hidden);
  }

  private button(text: string, label: string, disabled: boolean, action: () => void, testid: string): HTMLButtonElement {
    const b = el("button", "tool small", text);
    b.type = "button";
    b.title = label;
    b.setAttribute("aria-label", label);
    b.disabled = disabled;
    b.dataset.testid = testid;
    b.addEventListener("click", action);
    return b;
  }
}
