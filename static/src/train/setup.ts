/**
 * The setup column: data, model and optimizer controls bound to the settings store, both ways.
 * A control's change is one `store.set`; `show` puts settings (from the URL) into the controls.
 */
import { byId, el } from "../common/dom";
import { CHOICES, CLASS_RGB, LIMITS } from "./config";
import { LayerBuilder } from "./layers";
import type { SettingsStore, TrainSettings } from "./state";

function fillSelect(select: HTMLSelectElement, values: readonly number[], current: number, label: (v: number) => string = String): void {
  const all = values.includes(current) ? [...values] : [...values, current].sort((a, b) => a - b);
  select.replaceChildren(...all.map((v) => {
    const option = el("option", "", label(v));
    option.value = String(v);
    return option;
  }));
  select.value = String(current);
}

/** Whether `settings` asks for a number of classes (the others have 2). */
export function multiclass(settings: TrainSettings): boolean {
  return settings.dataset === "spiral" || settings.dataset === "blobs" || settings.dataset === "points";
}

export class SetupPanel {
  /** Reports a message for the page to show (e.g. too many points). */
  onNotice: (message: string) => void = () => {};
  private readonly layers = new LayerBuilder(byId("layers", HTMLElement), byId("add-layer", HTMLButtonElement), byId("model-shape", HTMLElement));
  /** Output classes of the model (2, or the setting for multi-class data). */
  private classes = 2;
  private pointClass = 0;

  constructor(private readonly store: SettingsStore) {
    this.layers.onChange = (hidden) => store.set({ hidden });
    this.bind();
  }

  /** Show the model's real number of classes (the server's answer). */
  setClasses(classes: number): void {
    if (classes === this.classes) return;
    this.classes = classes;
    this.layers.render(this.store.settings.hidden, classes);
    this.showPointClasses();
  }

  /** Put `s` into every control. */
  show(s: TrainSettings): void {
    byId("dataset", HTMLSelectElement).value = s.dataset;
    byId("classes-field", HTMLElement).hidden = !multiclass(s);
    byId("classes", HTMLInputElement).value = String(s.classes);
    for (const [id, value, digits] of [["samples", s.samples, 0], ["noise", s.noise, 2], ["split", s.split, 2]] as const) {
      byId(id, HTMLInputElement).value = String(value);
      byId(`${id}-out`, HTMLOutputElement).textContent = value.toFixed(digits);
    }
    byId("data-seed", HTMLInputElement).value = String(s.dataSeed);
    byId("activation", HTMLSelectElement).value = s.activation;
    byId("seed", HTMLInputElement).value = String(s.seed);
    byId("optimizer", HTMLSelectElement).value = s.optimizer;
    fillSelect(byId("lr", HTMLSelectElement), CHOICES.lr, s.lr);
    fillSelect(byId("batch", HTMLSelectElement), CHOICES.batch, s.batch);
    fillSelect(byId("speed", HTMLSelectElement), CHOICES.speed, s.speed, (v) => `${v} step${v > 1 ? "s" : ""}`);
    this.classes = multiclass(s) ? s.classes : 2;
    this.layers.render(s.hidden, this.classes);
    this.showPointClasses();
    byId("point-count", HTMLElement).textContent = s.points.length ? `${s.points.length} added` : "";
  }

  /** A click on the plot at data coordinates (x, y): a point of the chosen class. */
  addPoint(x: number, y: number): void {
    const points = this.store.settings.points;
    if (points.length >= LIMITS.maxPoints) return this.onNotice(`At most ${LIMITS.maxPoints} points.`);
    this.store.set({ points: [...points, [Math.round(x * 1000) / 1000, Math.round(y * 1000) / 1000, this.pointClass]] });
  }

  private bind(): void {
    const on = <T extends HTMLElement>(id: string, type: { new (): T }, event: string, read: (e: T) => Partial<TrainSettings>): void => {
      const element = byId(id, type);
      element.addEventListener(event, () => this.store.set(read(element)));
    };
    on("dataset", HTMLSelectElement, "change", (e) => ({ dataset: e.value as TrainSettings["dataset"] }));
    on("classes", HTMLInputElement, "change", (e) => ({ classes: Math.min(8, Math.max(2, Math.round(Number(e.value)) || 2)) }));
    on("samples", HTMLInputElement, "change", (e) => ({ samples: Number(e.value) }));
    on("noise", HTMLInputElement, "change", (e) => ({ noise: Number(e.value) }));
    on("split", HTMLInputElement, "change", (e) => ({ split: Number(e.value) }));
    on("data-seed", HTMLInputElement, "change", (e) => ({ dataSeed: Math.max(0, Math.round(Number(e.value)) || 0) }));
    on("activation", HTMLSelectElement, "change", (e) => ({ activation: e.value as TrainSettings["activation"] }));
    on("seed", HTMLInputElement, "change", (e) => ({ seed: Math.max(0, Math.round(Number(e.value)) || 0) }));
    on("optimizer", HTMLSelectElement, "change", (e) => ({ optimizer: e.value as TrainSettings["optimizer"] }));
    on("lr", HTMLSelectElement, "change", (e) => ({ lr: Number(e.value) }));
    on("batch", HTMLSelectElement, "change", (e) => ({ batch: Number(e.value) }));
    on("speed", HTMLSelectElement, "change", (e) => ({ speed: Number(e.value) }));
    // Sliders show their value while dragging; the setting changes on release.
    for (const [id, digits] of [["samples", 0], ["noise", 2], ["split", 2]] as const) {
      const input = byId(id, HTMLInputElement);
      input.addEventListener("input", () => (byId(`${id}-out`, HTMLOutputElement).textContent = Number(input.value).toFixed(digits)));
    }
    byId("clear-points", HTMLButtonElement).addEventListener("click", () => this.store.set({ points: [] }));
  }

  /** The class picker for new points: native radio buttons (arrow keys move between them). */
  private showPointClasses(): void {
    this.pointClass = Math.min(this.pointClass, this.classes - 1);
    const host = byId("point-classes", HTMLElement);
    host.replaceChildren(...Array.from({ length: this.classes }, (_, k) => {
      const label = el("label", "point-class");
      label.dataset.testid = `train-point-class-${k}`;
      const radio = el("input");
      radio.type = "radio";
      radio.name = "point-class";
      radio.value = String(k);
      radio.checked = k === this.pointClass;
      radio.addEventListener("change", () => {
        if (radio.checked) this.pointClass = k;
      });
      const swatch = el("span", `swatch class-${k % CLASS_RGB.length}`);
      swatch.setAttribute("aria-hidden", "true");
      label.append(radio, swatch, document.createTextNode(`class ${k}`));
      return label;
    }));
  }
}
