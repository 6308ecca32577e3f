/**
 * The training run as the page holds it, DOM-free: the settings' request, the last state the
 * server sent, whether it plays, and the steps asked for and not yet answered. The server keeps
 * nothing between connections; this object is what a reconnect resumes from.
 */
import { BOUNDARY } from "./config";
import { LiveLink, liveUrl, type LinkStatus } from "./live";
import type { TrainSettings } from "./state";
import type { LiveClientMessage, LiveServerMessage, TrainRequest, TrainResponse, TrainState } from "./types";

/** A spec the server refused, with its detail made readable. */
export function describeDetail(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail
      .map((d: { loc?: unknown[]; msg?: string }) => `${(d.loc ?? []).filter((p) => p !== "body").join(".")}: ${d.msg ?? ""}`)
      .join("; ");
  }
  return JSON.stringify(detail);
}

/** The request for `settings` from `state` (`steps` per update while playing). */
export function buildRequest(settings: TrainSettings, state: TrainState | null, includeData: boolean): TrainRequest {
  const generated = settings.dataset !== "points";
  const multi = settings.dataset === "spiral" || settings.dataset === "blobs";
  return {
    dataset: {
      name: generated ? (settings.dataset as TrainRequest["dataset"]["name"]) : null,
      n_samples: settings.samples,
      noise: settings.noise,
      test_fraction: settings.split,
      seed: settings.dataSeed,
      classes: multi ? settings.classes : 2,
      points: settings.points,
    },
    model: { hidden: settings.hidden, activation: settings.activation },
    optimizer: { name: settings.optimizer, lr: settings.lr },
    batch_size: settings.batch,
    steps: settings.speed,
    seed: settings.seed,
    device: settings.device,
    state,
    grid: BOUNDARY.grid,
    include_graph: false,
    include_data: includeData,
  };
}

/** Drives the run over the live link; reports the current run's updates and refusals. */
export class TrainSession {
  /** An update of the current run (the page shows it, then calls `ack`). */
  onUpdate: (response: TrainResponse) => void = () => {};
  /** The server refused the spec or a command; the run is paused. */
  onError: (message: string) => void = () => {};
  onStatus: (status: LinkStatus) => void = () => {};
  private readonly link: LiveLink;
  private settings: TrainSettings;
  private run = 0;
  private state: TrainState | null = null;
  private playing = false;
  /** The data points are still to come (a new dataset or new points). */
  private needData = true;
  /** A start or change sent while paused: its evaluation is still to come. */
  private awaiting = false;
  private nextStepId = 1;
  private readonly steps = new Map<number, { includeGraph: boolean; resolve: (r: TrainResponse | null) => void }>();

  constructor(settings: TrainSettings) {
    this.settings = settings;
    this.link = new LiveLink(liveUrl(), () => this.hello(), () => this.playing || this.awaiting || this.steps.size > 0);
    this.link.onMessage = (message) => this.received(message);
    this.link.onStatus = (status) => this.onStatus(status);
  }

  get step(): number {
    return this.state?.step ?? 0;
  }

  get isPlaying(): boolean {
    return this.playing;
  }

  /** A new run from fresh weights under `settings` (the play state is kept). */
  reset(settings: TrainSettings): void {
    this.settings = settings;
    this.run += 1;
    this.state = null;
    this.needData = true;
    this.awaiting = !this.playing;
    for (const pending of this.steps.values()) pending.resolve(null);
    this.steps.clear();
    this.link.restart();
  }

  /** New settings for the running model; `newData` when the points changed. */
  change(settings: TrainSettings, newData: boolean): void {
    this.settings = settings;
    this.needData ||= newData;
    this.awaiting ||= !this.playing;
    const sent = this.link.trySend({ type: "change", request: buildRequest(settings, null, this.needData) });
    if (!sent && this.awaiting) this.link.connect();
  }

  play(): void {
    this.playing = true;
    if (!this.link.trySend({ type: "play" })) this.link.connect();
  }

  pause(): void {
    this.playing = false;
    this.link.trySend({ type: "pause" });
  }

  /** Pause and take one step; resolves to its update (null if a reset dropped it). */
  takeStep(includeGraph: boolean): Promise<TrainResponse | null> {
    this.playing = false;
    const id = this.nextStepId++;
    return new Promise((resolve) => {
      this.steps.set(id, { includeGraph, resolve });
      if (!this.link.trySend({ type: "step", id, include_graph: includeGraph })) this.link.connect();
    });
  }

  /** The page has shown an update: the server may send another. */
  ack(): void {
    this.link.trySend({ type: "ack" });
  }

  /** What a new connection says first: the run as it stands, then the unanswered steps. */
  private hello(): LiveClientMessage[] {
    const request = buildRequest(this.settings, this.state, this.needData);
    const start: LiveClientMessage = { type: "start", run: this.run, request, playing: this.playing };
    const steps = [...this.steps].map(([id, s]): LiveClientMessage => ({ type: "step", id, include_graph: s.includeGraph }));
    return [start, ...steps];
  }

  private received(message: LiveServerMessage): void {
    if (message.type === "error" && message.run === null) {
      this.pause(); // a message this page got wrong: stop rather than play on unseen
      this.onError(describeDetail(message.detail));
      return;
    }
    if (message.run !== this.run) {
      if (message.type === "update") this.ack(); // a run this page has reset: dropped
      return;
    }
    if (message.type === "error") {
      this.playing = false;
      this.awaiting = false;
      for (const pending of this.steps.values()) pending.resolve(null);
      this.steps.clear();
      this.onError(describeDetail(message.detail));
      return;
    }
    this.state = message.response.state;
    this.awaiting = false;
    if (message.response.data) this.needData = false;
    this.onUpdate(message.response);
    if (message.id !== null) {
      this.steps.get(message.id)?.resolve(message.response);
      this.steps.delete(message.id);
    }
  }
}
