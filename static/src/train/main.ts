/**
 * The train page: wires the settings store (URL), the session (server state), the controls, the
 * boundary view and the charts. Each concern lives in its own module; this file connects them.
 */
import { DevicePicker } from "../device-picker";
import { byId, el } from "../dom";
import { setupTheme } from "../theme";
import { TrainApiError } from "./api";
import { BoundaryView } from "./boundary";
import { LineChart } from "./chart";
import { CHOICES, CLASS_RGB, LIMITS } from "./config";
import { LayerBuilder } from "./layers";
import { TrainSession } from "./session";
import { decodeSettings, DEFAULTS, SettingsStore, type TrainSettings } from "./state";
import type { HistoryRow, TrainRequest, TrainResponse } from "./types";

/** Settings whose change starts a new run (new data or a new model). */
const RESETS: (keyof TrainSettings)[] = ["dataset", "classes", "samples", "noise", "split", "dataSeed", "hidden", "activation", "seed"];

const fmt = (v: number | null | undefined, digits = 3): string => (v === null || v === undefined ? "–" : v.toFixed(digits));
const nextFrame = (): Promise<void> => new Promise((resolve) => requestAnimationFrame(() => resolve()));

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

function fillSelect(select: HTMLSelectElement, values: number[], current: number, label: (v: number) => string = String): void {
  const all = values.includes(current) ? values : [...values, current].sort((a, b) => a - b);
  select.replaceChildren(...all.map((v) => {
    const option = el("option", "", label(v));
    option.value = String(v);
    return option;
  }));
  select.value = String(current);
}

class TrainPage {
  private readonly store = new SettingsStore(decodeSettings(window.location.hash));
  private readonly session = new TrainSession();
  private readonly boundary = new BoundaryView(byId("boundary", HTMLCanvasElement));
  private readonly lossChart = new LineChart(byId("loss-chart", HTMLCanvasElement), [
    { label: "train", colorVar: "--train-line", dash: [] },
    { label: "test", colorVar: "--test-line", dash: [5, 3] },
  ], null, (v) => v.toFixed(2));
  private readonly accChart = new LineChart(byId("acc-chart", HTMLCanvasElement), [
    { label: "train", colorVar: "--train-line", dash: [] },
    { label: "test", colorVar: "--test-line", dash: [5, 3] },
  ], [0, 1], (v) => v.toFixed(2));
  private readonly layers = new LayerBuilder(byId("layers", HTMLElement), byId("add-layer", HTMLButtonElement), byId("model-shape", HTMLElement));
  private readonly playButton = byId("train-play", HTMLButtonElement);
  private readonly errorBox = byId("train-error", HTMLElement);
  private readonly devices = new DevicePicker(byId("device", HTMLSelectElement), byId("device-note", HTMLElement));

  private playing = false;
  private chain: Promise<unknown> = Promise.resolve();
  private needData = true;
  private classes = 2;
  private pointClass = 0;
  private lastStep = -1;
  private updates = 0;
  private stamps: number[] = [];
  private program: string | null = null;
  private parameters = 0;

  constructor() {
    setupTheme(byId("theme-toggle", HTMLButtonElement));
    this.bindControls();
    this.showSettings(this.store.settings);
    this.store.subscribe((settings, changed) => this.onSettings(settings, changed));
    this.boundary.onClick = (x, y) => this.addPoint(x, y);
    this.layers.onChange = (hidden) => this.store.set({ hidden });
    this.playButton.addEventListener("click", () => this.setPlaying(!this.playing));
    byId("train-step-once", HTMLButtonElement).addEventListener("click", () => void this.stepOnce());
    byId("train-reset", HTMLButtonElement).addEventListener("click", () => this.reset());
    byId("open-step", HTMLButtonElement).addEventListener("click", () => void this.openStep());
    document.addEventListener("keydown", (e) => this.onKey(e));
    window.addEventListener("hashchange", () => {
      const settings = decodeSettings(window.location.hash);
      this.store.set({ ...settings, device: this.devices.resolve(settings.device) });
    });
    this.devices.onChange = (device) => this.store.set({ device });
    // A link asking for another device waits for the device list (it may fall back to cpu).
    const wanted = this.store.settings.device;
    const ready = this.devices.load(wanted).then((device) => this.store.set({ device }));
    if (wanted !== DEFAULTS.device) void this.serial(() => ready);
    this.reset();
  }

  // -- controls <-> settings ---------------------------------------------------------------------

  private bindControls(): void {
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

  private showSettings(s: TrainSettings): void {
    byId("dataset", HTMLSelectElement).value = s.dataset;
    const multi = s.dataset === "spiral" || s.dataset === "blobs" || s.dataset === "points";
    byId("classes-field", HTMLElement).hidden = !multi;
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
    this.classes = multi ? s.classes : 2;
    this.layers.render(s.hidden, this.classes);
    this.showPointClasses();
    this.devices.show(s.device);
    byId("point-count", HTMLElement).textContent = s.points.length ? `${s.points.length} added` : "";
  }

  private showPointClasses(): void {
    this.pointClass = Math.min(this.pointClass, this.classes - 1);
    const host = byId("point-classes", HTMLElement);
    host.replaceChildren(...Array.from({ length: this.classes }, (_, k) => {
      const b = el("button", "tool small point-class");
      b.type = "button";
      b.dataset.testid = `train-point-class-${k}`;
      b.setAttribute("aria-pressed", String(k === this.pointClass));
      b.setAttribute("role", "radio");
      b.setAttribute("aria-checked", String(k === this.pointClass));
      const swatch = el("span", `swatch class-${k % CLASS_RGB.length}`);
      b.append(swatch, document.createTextNode(` ${k}`));
      b.addEventListener("click", () => {
        this.pointClass = k;
        this.showPointClasses();
      });
      return b;
    }));
  }

  private onSettings(s: TrainSettings, changed: Set<keyof TrainSettings>): void {
    this.showSettings(s);
    if (RESETS.some((key) => changed.has(key))) {
      this.reset();
    } else if (changed.has("points")) {
      this.needData = true;
      if (!this.playing) this.serial(() => this.call(0));
    } else if (changed.has("device") && !this.playing) {
      // Evaluate on the new device now, so the page says where the model lives.
      void this.serial(() => this.call(0));
    }
  }

  private addPoint(x: number, y: number): void {
    const points = this.store.settings.points;
    if (points.length >= LIMITS.maxPoints) return this.showError(`At most ${LIMITS.maxPoints} points.`);
    this.store.set({ points: [...points, [Math.round(x * 1000) / 1000, Math.round(y * 1000) / 1000, this.pointClass]] });
  }

  // -- running -----------------------------------------------------------------------------------

  /** Run `fn` after every earlier call: one request at a time, in order. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.chain.then(fn, fn);
    this.chain = next.catch(() => undefined);
    return next;
  }

  /** One server call of `steps` steps; false when the server refused it. */
  private async call(steps: number, extra: Partial<TrainRequest> = {}): Promise<boolean> {
    const settings = this.store.settings;
    if (settings.dataset === "points" && settings.points.length < 2) {
      this.boundary.setData({ classes: this.classes, extent: this.boundary.extent(), train: [], test: [] }, settings.points);
      this.showError("Click the plot to add at least 2 points.");
      return false;
    }
    let response: TrainResponse | null;
    try {
      response = await this.session.advance(settings, steps, { include_data: this.needData, ...extra });
    } catch (error) {
      this.showError(error instanceof TrainApiError ? error.message : `the server could not be reached (${String(error)})`);
      return false;
    }
    if (response) this.render(response);
    return true;
  }

  private render(response: TrainResponse): void {
    this.showError(null);
    if (response.data) {
      this.needData = false;
      this.boundary.setData(response.data, this.store.settings.points);
    }
    this.boundary.setBoundary(response.boundary);
    for (const row of response.history) {
      if (row.step <= this.lastStep) continue;
      this.lastStep = row.step;
      this.lossChart.push(row.step, [row.train_loss, row.test_loss]);
      this.accChart.push(row.step, [row.train_acc, row.test_acc]);
    }
    const last: HistoryRow | undefined = response.history[response.history.length - 1];
    byId("train-step", HTMLElement).textContent = String(response.state.step);
    byId("train-loss", HTMLElement).textContent = fmt(last?.train_loss);
    byId("test-loss", HTMLElement).textContent = fmt(last?.test_loss);
    byId("train-acc", HTMLElement).textContent = fmt(last?.train_acc);
    byId("test-acc", HTMLElement).textContent = fmt(last?.test_acc);
    byId("train-device", HTMLElement).textContent = response.device;
    if (response.classes !== this.classes) {
      this.classes = response.classes;
      this.layers.render(this.store.settings.hidden, this.classes);
      this.showPointClasses();
    }
    this.program = response.program;
    this.countUpdate(response);
  }

  private countUpdate(response: TrainResponse): void {
    const now = performance.now();
    this.stamps.push(now);
    while (this.stamps.length && this.stamps[0]! < now - 1000) this.stamps.shift();
    this.updates += 1;
    const canvas = byId("boundary", HTMLCanvasElement);
    canvas.dataset.updates = String(this.updates);
    const steps = response.history.length && response.state.step > 0 ? this.stamps.length * this.store.settings.speed : 0;
    this.parameters = response.parameters;
    byId("train-rate", HTMLElement).textContent = this.playing
      ? `${this.stamps.length} updates/s · ${steps} steps/s`
      : `${response.parameters} parameters`;
  }

  private showError(message: string | null): void {
    this.errorBox.hidden = message === null;
    this.errorBox.textContent = message ?? "";
  }

  private setPlaying(playing: boolean): void {
    if (playing === this.playing) return;
    this.playing = playing;
    this.playButton.textContent = playing ? "❚❚ Pause" : "▶ Play";
    this.playButton.setAttribute("aria-pressed", String(playing));
    if (!playing && this.parameters) byId("train-rate", HTMLElement).textContent = `${this.parameters} parameters`;
    if (playing) void this.playLoop();
  }

  private async playLoop(): Promise<void> {
    while (this.playing) {
      const ok = await this.serial(() => (this.playing ? this.call(this.store.settings.speed) : Promise.resolve(true)));
      if (!ok) {
        this.setPlaying(false);
        break;
      }
      await nextFrame();
    }
  }

  private async stepOnce(): Promise<boolean> {
    this.setPlaying(false);
    return this.serial(() => this.call(1, { include_graph: true }));
  }

  private reset(): void {
    this.session.reset();
    this.lossChart.reset();
    this.accChart.reset();
    this.lastStep = -1;
    this.needData = true;
    this.program = null;
    byId("train-step", HTMLElement).textContent = "0";
    void this.serial(() => this.call(0));
  }

  /** Take one step with its graph and open it in the playground as a program. */
  private async openStep(): Promise<void> {
    // Open the tab now, inside the click, so no popup blocker stops it; fill it in after.
    const tab = window.open("about:blank", "_blank");
    const ok = await this.stepOnce();
    if (!ok || !this.program) {
      tab?.close();
      return;
    }
    const url = `/#${new URLSearchParams({ src: this.program, seed: "0" }).toString()}`;
    byId("open-step", HTMLButtonElement).dataset.href = url;
    if (tab) tab.location.href = url;
    else window.location.href = url;
  }

  private onKey(event: KeyboardEvent): void {
    if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === " ") {
      event.preventDefault();
      this.setPlaying(!this.playing);
    } else if (event.key === "ArrowRight") {
      event.preventDefault();
      void this.stepOnce();
    } else if (event.key === "r") {
      this.reset();
    }
  }
}

new TrainPage();
