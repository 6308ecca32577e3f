/**
 * The training run as the page sees it, DOM-free: the opaque server state, the step, and the
 * request built from the settings. The server is stateless; this object carries the run.
 */
import { train } from "./api";
import { BOUNDARY } from "./config";
import type { TrainSettings } from "./state";
import type { TrainRequest, TrainResponse, TrainState } from "./types";

/** Calls /api/v1/train, passing the state back each time; `reset` starts a new run. */
export class TrainSession {
  private state: TrainState | null = null;
  /** Bumped by reset: answers to calls made before it are dropped. */
  private generation = 0;
  private inflight: AbortController | null = null;

  get step(): number {
    return this.state?.step ?? 0;
  }

  reset(): void {
    this.generation += 1;
    this.state = null;
    this.inflight?.abort();
    this.inflight = null;
  }

  /** The request for `steps` steps from the current state. */
  request(settings: TrainSettings, steps: number, extra: Partial<TrainRequest> = {}): TrainRequest {
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
      steps,
      seed: settings.seed,
      device: settings.device,
      state: this.state,
      grid: BOUNDARY.grid,
      include_graph: false,
      include_data: false,
      ...extra,
    };
  }

  /**
   * Take `steps` steps (0 = evaluate only). Resolves to null when a reset made the answer stale;
   * throws TrainApiError when the server refuses the spec.
   */
  async advance(settings: TrainSettings, steps: number, extra: Partial<TrainRequest> = {}): Promise<TrainResponse | null> {
    const generation = this.generation;
    const controller = new AbortController();
    this.inflight = controller;
    try {
      const response = await train(this.request(settings, steps, extra), controller.signal);
      if (generation !== this.generation) return null;
      this.state = response.state;
      return response;
    } catch (error) {
      if (generation !== this.generation || controller.signal.aborted) return null;
      throw error;
    } finally {
      if (this.inflight === controller) this.inflight = null;
    }
  }
}
