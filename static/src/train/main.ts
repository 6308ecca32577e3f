/**
 * The train page: wires the settings store (URL), the run (session, over one live connection),
 * the setup column, the boundary view, the charts and the notices. Each concern lives in its
 * own module; this file connects them and shows one update per animation frame.
 */
import { DevicePicker } from "../common/device-picker";
import { byId } from "../common/dom";
import { setupTheme } from "../common/theme";
import { BoundaryView } from "./boundary";
import { LineChart } from "./chart";
import { CHOICES } from "./config";
import { DivergenceWatch, lowerRate, type Verdict } from "./divergence";
import { Notices } from "./notices";
import { TrainSession } from "./session";
import { SetupPanel } from "./setup";
import { decodeSettings, DEFAULTS, SettingsStore, type TrainSettings } from "./state";
import type { HistoryRow, TrainResponse } from "./types";

/** Settings whose change starts a new run (new data or a new model). */
const RESETS: (keyof TrainSettings)[] = ["dataset", "classes", "samples", "noise", "split", "dataSeed", "hidden", "activation", "seed"];

const fmt = (v: number | null | undefined, digits = 3): string => (v === null || v === undefined ? "–" : v.toFixed(digits));

function isTyping(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName));
}

/** Set an element's text only when it changes (live regions announce every change). */
function setText(id: string, text: string): void {
  const element = byId(id, HTMLElement);
  if (element.textContent !== text) element.textContent = text;
}

class TrainPage {
  private readonly store = new SettingsStore(decodeSettings(window.location.hash));
  private readonly session = new TrainSession(this.store.settings);
  private readonly setup = new SetupPanel(this.store);
  private readonly notices = new Notices();
  private readonly watch = new DivergenceWatch();
  private readonly boundary = new BoundaryView(byId("boundary", HTMLCanvasElement));
  private readonly lossChart = new LineChart(byId("loss-chart", HTMLCanvasElement), [
    { label: "train", colorVar: "--train-line", dash: [] },
    { label: "test", colorVar: "--test-line", dash: [5, 3] },
  ], null, (v) => v.toFixed(2));
  private readonly accChart = new LineChart(byId("acc-chart", HTMLCanvasElement), [
    { label: "train", colorVar: "--train-line", dash: [] },
    { label: "test", colorVar: "--test-line", dash: [5, 3] },
  ], [0, 1], (v) => v.toFixed(2));
  private readonly playButton = byId("train-play", HTMLButtonElement);
  private readonly devices = new DevicePicker(byId("device", HTMLSelectElement), byId("device-note", HTMLElement));

  /** Updates received and not yet shown: one is shown (and acknowledged) per frame. */
  private queue: TrainResponse[] = [];
  private frame = 0;
  private lastStep = -1;
  private updates = 0;
  private stamps: number[] = [];
  private parameters = 0;

  constructor() {
    setupTheme(byId("theme-toggle", HTMLButtonElement));
    this.setup.show(this.store.settings);
    this.setup.onNotice = (message) => this.notices.error(message);
    this.store.subscribe((settings, changed) => this.onSettings(settings, changed));
    this.boundary.onClick = (x, y) => this.setup.addPoint(x, y);
    this.session.onUpdate = (response) => {
      this.queue.push(response);
      this.schedule();
    };
    this.session.onError = (message) => {
      this.showPlaying(false);
      this.notices.error(message);
    };
    this.session.onStatus = (status) => {
      this.notices.link(status);
      if (status.kind === "busy" || status.kind === "offline") {
        this.stamps = [];
        setText("train-rate", "waiting for the server");
      }
    };
    this.notices.onLowerRate = (lr) => this.lowerRate(lr);
    this.playButton.addEventListener("click", () => this.setPlaying(!this.session.isPlaying));
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
    if (wanted !== DEFAULTS.device) void ready.then(() => this.reset());
    else this.reset();
  }

  private onSettings(s: TrainSettings, changed: Set<keyof TrainSettings>): void {
    this.setup.show(s);
    this.devices.show(s.device);
    if (RESETS.some((key) => changed.has(key))) return this.reset();
    if (changed.has("lr")) {
      this.watch.reset();
      this.notices.divergence(null, s.lr, s.lr);
    }
    this.session.change(s, changed.has("points"));
  }

  // -- running -----------------------------------------------------------------------------------

  private setPlaying(playing: boolean): void {
    if (playing) {
      this.notices.error(null);
      this.session.play();
    } else {
      this.session.pause();
    }
    this.showPlaying(playing);
  }

  private showPlaying(playing: boolean): void {
    this.playButton.textContent = playing ? "❚❚ Pause" : "▶ Play";
    this.playButton.setAttribute("aria-pressed", String(playing));
    if (!playing && this.parameters) setText("train-rate", `${this.parameters} parameters`);
  }

  private stepOnce(includeGraph = true): Promise<TrainResponse | null> {
    this.showPlaying(false);
    return this.session.takeStep(includeGraph);
  }

  private reset(): void {
    this.dropQueue();
    this.lossChart.reset();
    this.accChart.reset();
    this.watch.reset();
    this.notices.divergence(null, 0, 0);
    this.notices.error(null);
    this.lastStep = -1;
    setText("train-step", "0");
    this.session.reset(this.store.settings);
  }

  /** The divergence notice's offer: a lower learning rate, fresh weights, and play. */
  private lowerRate(lr: number): void {
    this.store.set({ lr });
    this.reset();
    this.setPlaying(true);
  }

  /** Take one step with its graph and open it in the playground as a program. */
  private async openStep(): Promise<void> {
    // Open the tab now, inside the click, so no popup blocker stops it; fill it in after.
    const tab = window.open("about:blank", "_blank");
    const response = await this.stepOnce(true);
    if (!response?.program) {
      tab?.close();
      return;
    }
    const url = `/#${new URLSearchParams({ src: response.program, seed: "0" }).toString()}`;
    byId("open-step", HTMLButtonElement).dataset.href = url;
    if (tab) tab.location.href = url;
    else window.location.href = url;
  }

  // -- showing updates ---------------------------------------------------------------------------

  private schedule(): void {
    if (!this.frame) this.frame = requestAnimationFrame(() => this.showNext());
  }

  /** Show the oldest update and acknowledge it, so the server sends the next one. */
  private showNext(): void {
    this.frame = 0;
    const response = this.queue.shift();
    if (!response) return;
    this.render(response);
    this.session.ack();
    if (this.queue.length) this.schedule();
  }

  /** Updates of a run that was just reset: acknowledged, not shown. */
  private dropQueue(): void {
    for (let i = 0; i < this.queue.length; i++) this.session.ack();
    this.queue = [];
  }

  private render(response: TrainResponse): void {
    this.watch.classes = response.classes;
    if (response.data) {
      this.boundary.setData(response.data, this.store.settings.points);
      // The step the points on screen joined the run at: where a change of them was taken up.
      byId("boundary", HTMLCanvasElement).dataset.pointsStep = String(response.state.step);
    }
    this.boundary.setBoundary(response.boundary);
    for (const row of response.history) {
      if (row.step <= this.lastStep) continue;
      this.lastStep = row.step;
      this.lossChart.push(row.step, [row.train_loss, row.test_loss]);
      this.accChart.push(row.step, [row.train_acc, row.test_acc]);
      const verdict = this.watch.observe(row.train_loss);
      if (verdict) this.diverged(verdict);
    }
    const last: HistoryRow | undefined = response.history[response.history.length - 1];
    setText("train-step", String(response.state.step));
    setText("train-loss", fmt(last?.train_loss));
    setText("test-loss", fmt(last?.test_loss));
    setText("train-acc", fmt(last?.train_acc));
    setText("test-acc", fmt(last?.test_acc));
    setText("train-device", response.device);
    this.setup.setClasses(response.classes);
    this.countUpdate(response);
  }

  private diverged(verdict: Verdict): void {
    const { lr, optimizer } = this.store.settings;
    this.notices.divergence(verdict, lr, lowerRate(lr, optimizer, CHOICES.lr));
    if (verdict === "nan") this.setPlaying(false); // NaN weights stay NaN: no step helps
  }

  private countUpdate(response: TrainResponse): void {
    const now = performance.now();
    this.stamps.push(now);
    while (this.stamps.length && this.stamps[0]! < now - 1000) this.stamps.shift();
    this.updates += 1;
    byId("boundary", HTMLCanvasElement).dataset.updates = String(this.updates);
    this.parameters = response.parameters;
    const steps = this.stamps.length * this.store.settings.speed;
    setText("train-rate", this.session.isPlaying ? `${this.stamps.length} updates/s · ${steps} steps/s` : `${response.parameters} parameters`);
  }

  private onKey(event: KeyboardEvent): void {
    if (isTyping(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
    if (event.key === " ") {
      event.preventDefault();
      this.setPlaying(!this.session.isPlaying);
    } else if (event.key === "ArrowRight") {
      event.preventDefault();
      void this.stepOnce();
    } else if (event.key === "r") {
      this.reset();
    }
  }
}

new TrainPage();
