/** Shapes of the train API and its live protocol (server/training/schemas.py). */

export type DatasetName = "linear" | "xor" | "circles" | "moons" | "spiral" | "blobs";
export type Activation = "tanh" | "relu" | "sigmoid";
export type OptimizerName = "sgd" | "momentum" | "adam";
/** A user point: x, y, class label. */
export type Point = [number, number, number];

export interface DatasetSpec {
  name: DatasetName | null;
  n_samples: number;
  noise: number;
  test_fraction: number;
  seed: number;
  classes: number;
  points: Point[];
}

/** Opaque to the page: sent back as received. */
export interface TrainState {
  step: number;
  layers: number[];
  [key: string]: unknown;
}

export interface TrainRequest {
  dataset: DatasetSpec;
  model: { hidden: number[]; activation: Activation };
  optimizer: { name: OptimizerName; lr: number };
  batch_size: number;
  steps: number;
  seed: number;
  device: string;
  state: TrainState | null;
  grid: number;
  include_graph: boolean;
  include_data: boolean;
}

export interface HistoryRow {
  step: number;
  train_loss: number | null;
  test_loss: number | null;
  train_acc: number | null;
  test_acc: number | null;
}

export interface Boundary {
  extent: [number, number, number, number];
  size: number;
  /** [row][column][class]; row 0 is the top. */
  probs: number[][][];
}

export interface DatasetPoints {
  classes: number;
  extent: [number, number, number, number];
  train: Point[];
  test: Point[];
}

export interface TrainResponse {
  history: HistoryRow[];
  state: TrainState;
  boundary: Boundary;
  classes: number;
  parameters: number;
  device: string;
  graph: unknown;
  program: string | null;
  data: DatasetPoints | null;
  timing_ms: Record<string, number>;
}

/** What the page sends over the live connection (WebSocket /api/v1/train/live). */
export type LiveClientMessage =
  | { type: "start"; run: number; request: TrainRequest; playing: boolean }
  | { type: "change"; request: TrainRequest }
  | { type: "play" }
  | { type: "pause" }
  | { type: "step"; id: number; include_graph: boolean }
  | { type: "ack" };

/** One update: the steps since the previous one and the model after them. */
export interface LiveUpdate {
  type: "update";
  run: number;
  seq: number;
  /** The id of the `step` message this update answers, if any. */
  id: number | null;
  response: TrainResponse;
}

/** A refused message or spec (the run is paused). */
export interface LiveError {
  type: "error";
  run: number | null;
  detail: unknown;
}

export type LiveServerMessage = LiveUpdate | LiveError;
