/** The bindings panel: one slider + number field + "requires grad" box per free variable. */
import { BINDING } from "../common/config";
import { el } from "../common/dom";
import { startingValues } from "./freevars";
import type { BindingState } from "./state";

export class BindingsPanel {
  /** Called with the full new bindings whenever the user moves a control. */
  onChange: (bindings: Record<string, BindingState>) => void = () => {};
  private current: Record<string, BindingState> = {};

  constructor(
    private readonly section: HTMLElement,
    private readonly list: HTMLElement,
  ) {}

  /** Show controls for `names`, valued from `bindings` (new names get distinct defaults). */
  render(names: string[], bindings: Record<string, BindingState>): Record<string, BindingState> {
    const bound = Object.fromEntries(names.filter((name) => bindings[name]).map((name) => [name, bindings[name]!.value]));
    const fresh = startingValues(names, bound, BINDING.defaults, BINDING.defaultValue);
    const next: Record<string, BindingState> = {};
    for (const name of names) next[name] = bindings[name] ?? { value: fresh[name] ?? BINDING.defaultValue, requires_grad: true };
    const same = JSON.stringify(Object.keys(next)) === JSON.stringify(Object.keys(this.current));
    this.current = next;
    this.section.hidden = names.length === 0;
    if (same) {
      this.syncValues();
      return next;
    }
    this.list.replaceChildren(...names.map((name) => this.row(name)));
    return next;
  }

  private row(name: string): HTMLElement {
    const binding = this.current[name] ?? { value: BINDING.defaultValue, requires_grad: true };
    const row = el("div", "binding");
    row.dataset.binding = name;
    const label = el("label", "binding-name", name);
    const id = `binding-${name}`;
    label.htmlFor = id;
    const slider = el("input", "binding-slider");
    slider.type = "range";
    slider.id = id;
    slider.dataset.testid = `binding-${name}`;
    const lo = Math.min(BINDING.sliderMin, Math.floor(binding.value));
    const hi = Math.max(BINDING.sliderMax, Math.ceil(binding.value));
    slider.min = String(lo);
    slider.max = String(hi);
    slider.step = String(BINDING.sliderStep);
    slider.value = String(binding.value);
    const number = el("input", "binding-number");
    number.type = "number";
    number.step = "any";
    number.value = String(binding.value);
    number.dataset.testid = `binding-${name}-value`;
    number.setAttribute("aria-label", `${name} value`);
    const gradBox = el("input");
    gradBox.type = "checkbox";
    gradBox.checked = binding.requires_grad;
    gradBox.dataset.testid = `binding-${name}-grad`;
    const gradLabel = el("label", "binding-grad");
    gradLabel.title = "requires_grad: a leaf that gets a gradient";
    gradLabel.append(gradBox, document.createTextNode(" grad"));

    const commit = (value: number) => {
      if (!Number.isFinite(value)) return;
      const old = this.current[name];
      this.current = { ...this.current, [name]: { value, requires_grad: old?.requires_grad ?? true } };
      this.onChange(this.current);
    };
    slider.addEventListener("input", () => {
      number.value = slider.value;
      commit(Number(slider.value));
    });
    number.addEventListener("input", () => {
      if (number.value === "") return;
      slider.value = number.value;
      commit(Number(number.value));
    });
    gradBox.addEventListener("change", () => {
      const old = this.current[name];
      this.current = { ...this.current, [name]: { value: old?.value ?? BINDING.defaultValue, requires_grad: gradBox.checked } };
      this.onChange(this.current);
    });
    row.append(label, slider, number, gradLabel);
    return row;
  }

  /** Put the stored values back into existing controls (after a URL change). */
  private syncValues(): void {
    for (const row of Array.from(this.list.children) as HTMLElement[]) {
      const binding = this.current[row.dataset.binding ?? ""];
      if (!binding) continue;
      const [slider, number] = Array.from(row.querySelectorAll("input")) as HTMLInputElement[];
      const box = row.querySelector<HTMLInputElement>("input[type=checkbox]");
      if (slider && document.activeElement !== slider) slider.value = String(binding.value);
      if (number && document.activeElement !== number) number.value = String(binding.value);
      if (box) box.checked = binding.requires_grad;
    }
  }
}
