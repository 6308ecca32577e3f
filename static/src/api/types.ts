/** Shapes of the JSON the server sends (docs/architecture.md, "API contract"; server/schemas.py); no logic here. */
import type { PracticeStep } from "../practice/answers";

/** A big tensor arrives as a summary instead of its full contents. */
export interface TensorSummary {
  shape: number[];
  min: Scalar;
  max: Scalar;
  mean: Scalar;
  preview: unknown;
}

/** Non-finite numbers arrive as the strings "NaN", "Infinity", "-Infinity". */
export type Scalar = number | string;

/** A node's value or gradient: a number, a nested list, a summary, or null when absent. */
export type TensorValue = Scalar | TensorValue[] | TensorSummary | null;

/**
 * torchviz's vocabulary: leaf requiring grad, leaf constant / untracked, operation, output; and
 * `error`, the operation a forward error stopped at (drawn with its operands' shapes).
 */
export type NodeKind = "param" | "const" | "op" | "output" | "error";

/** One nn.Module call that recorded nodes; `parent` is the id of the module that called it. */
export interface ModuleInfo {
  id: string;
  /** How the program reaches it: "model[0]", "fc1". */
  name: string;
  /** Its class: "Linear", "ReLU", "Sequential". */
  type: string;
  parent: string | null;
}

/** A node of a pass's structure: a GraphNode without its numbers (`value`, `grad`). */
export interface NodeShape {
  id: string;
  name: string | null;
  /** Display label the engine derives for unnamed results from the source: "model[0](X)", "err * err". */
  label?: string | null;
  op: string | null;
  grad_fn: string | null;
  is_leaf: boolean;
  requires_grad: boolean;
  shape: number[];
  dtype: string;
  kind?: NodeKind;
  untracked_reason?: string | null;
  /** Drawn from the program's own autograd objects (a micrograd-style Value): their class. */
  value_class?: string | null;
  /** With RunRequest.compare: this node's gradient against PyTorch's rules (graph/pytorch-compare.ts). */
  compare?: CompareStatus | null;
  compare_grad?: TensorValue;
  compare_reason?: string | null;
  /** The innermost module whose call recorded this node (an id in `Graph.modules`). */
  module?: string | null;
  /** Module ids from the outermost call to `module`. */
  module_path?: string[] | null;
  /** For the `error` node of a forward error: the shapes of the operands it was given. */
  operand_shapes?: (number[] | null)[] | null;
  /** In a notebook cell's graph: recorded by an earlier cell (an input made there, or a node of
   * a backward pass that reaches back into what earlier cells recorded). */
  earlier?: boolean | null;
  [extra: string]: unknown;
}

/** One tensor of a recorded graph, with its value and gradient in that pass. */
export interface GraphNode extends NodeShape {
  value: TensorValue;
  grad: TensorValue;
}

/** How a Value node's gradient compares with what PyTorch's rules send it. */
export type CompareStatus = "agrees" | "differs" | "replaced" | "not_comparable";

export interface GraphEdge {
  src: string;
  dst: string;
  /** Which input of dst this edge feeds (null when the server does not say). */
  arg: number | null;
}

export interface Contribution {
  to: string;
  /** Which argument of the op this input was; picks the edge when an input is used twice. */
  arg?: number | null;
  local: string;
  /** The local derivative as a symbol, e.g. "err", before numbers are substituted. */
  local_symbolic?: string;
  grad: TensorValue;
  accumulated_grad: TensorValue;
}

/**
 * A node of a caption's expression tree (recorder/caption.py): `num` (value `v`, text `t`),
 * `name` (a node's label), `const` (π, e), `text` (words), `d` (∂top/∂wrt), `+ − · / @`, `neg`,
 * `^`, `T`, `fn` (function `f`), `sqrt`, `abs`, `sum` (Σ, `sub`), `iv` ([cond]), `cmp` (`ops`),
 * `idx`, `seq`, and `paren`: the brackets, placed by the server where precedence needs them.
 */
export interface MathNode {
  k: string;
  t?: string | null;
  v?: number | string | null;
  f?: string | null;
  ops?: string[] | null;
  sub?: string | null;
  a?: MathNode[] | null;
}

/** One caption line: `lhs op forms[0] = forms[1] = …`, and for `+=` the sum it makes. */
export interface CaptionLine {
  to?: string | null;
  lhs: MathNode;
  op: "=" | "+=";
  forms: MathNode[];
  /** With `+=`: [before + sent, the gradient after]. */
  total?: MathNode[] | null;
}

export interface WalkStep {
  node: string;
  grad_output: TensorValue;
  formula: string | null;
  /** The same lines as trees (the page typesets them); absent in older recordings. */
  caption?: CaptionLine[] | null;
  contributions: Contribution[];
}

export interface Graph {
  nodes: GraphNode[];
  edges: GraphEdge[];
  walk: WalkStep[];
  root: string | null;
  /** Set when the graph was drawn from the program's own Value objects. */
  value_class?: string | null;
  /** With RunRequest.compare: how many nodes agree / differ / cannot be compared. */
  compare?: { agrees?: number; differs?: number; replaced?: number; not_comparable?: number; skipped?: string | null } | null;
  /** The module calls that recorded nodes, when the program used nn.Module. */
  modules?: ModuleInfo[] | null;
  /** Which backward pass of the program this is (0-based, counting every pass it ran). */
  pass_index?: number | null;
  /** With RunRequest.practice: what each walk step asks the learner (practice/answers.ts). */
  practice?: PracticeStep[] | null;
}

/**
 * On the wire (server/program/packing.py): what the kept passes that share it have in common,
 * once: a Graph without its walk, its pass index and its nodes' numbers.
 */
export interface GraphStructure {
  nodes: NodeShape[];
  edges: GraphEdge[];
  root: string | null;
  value_class?: string | null;
  modules?: ModuleInfo[] | null;
  [extra: string]: unknown;
}

/**
 * On the wire: one kept pass, its structure's index and its numbers in the structure's node
 * order; its whole Graph is the structure with `value`/`grad` filled in and these keys added.
 */
export interface PassValues {
  structure: number;
  pass_index?: number | null;
  values: TensorValue[];
  grads: TensorValue[];
  walk: WalkStep[];
  /** When set, this pass sent no walk: it shares the walk of `passes[walk_from]` (an earlier pass
   * of its structure), with its own gradients put back where that walk leaves them out. */
  walk_from?: number | null;
  compare?: Graph["compare"];
  practice?: Graph["practice"];
  [extra: string]: unknown;
}

/** The passes as the server sends them (api/decode-passes.ts decodes them into Graphs). */
export interface PackedPasses {
  /** The graph to show when it is not one of `passes` (an error's), else null. */
  graph: Graph | null;
  /** The graph to show is `passes[graph_pass]`. */
  graph_pass?: number | null;
  structures: GraphStructure[];
  passes: PassValues[];
}

export interface RunError {
  type: string;
  message: string;
  /** 1-based line and column in the program. */
  line: number | null;
  col: number | null;
  /** Where the failing expression ends, when known (1-based, exclusive column). */
  end_line?: number | null;
  end_col?: number | null;
  /** The id of the node concerned in `graph` (autograd errors; the failing op of a forward error). */
  node?: string | null;
  /** The user's frames as Python prints them ('File "<program>", line 7, in forward'). */
  traceback?: string | null;
  /** In a notebook: the (1-based) code cell the error is in; `line` and `col` are that cell's. */
  cell?: number | null;
}

/** What a run of a program and a run of a notebook's cells both answer. */
export interface RunOutcome {
  ok: boolean;
  /** What the program printed, or within `max_output_chars` its head and tail, the cut marked
   * between them (`output_truncated`). */
  stdout: string;
  /** The program printed more than the budget: `stdout` is its head and tail; it ran on. */
  output_truncated?: boolean;
  /** When truncated: how many characters the program printed in all. */
  output_chars?: number | null;
  /** The error that stopped the run (in a notebook `error.cell` says where). */
  error: RunError | null;
  graph: Graph | null;
  passes: Graph[];
  /** How many backward passes the program ran; `passes` keeps the first ones and the last. */
  passes_total?: number | null;
  device: string;
  timing_ms: Record<string, number>;
  /** Something the server did on the user's behalf (e.g. called backward() implicitly). */
  notice?: string | null;
}

export interface RunResponse extends RunOutcome {
  /** The repr of the last statement's value when it is an expression (notebook style). */
  result?: string | null;
}

/** A RunResponse as the server sends it: its passes packed (see api/decode-passes.ts). */
export type WireRunResponse = Omit<RunResponse, "graph" | "passes"> & PackedPasses;

/** One line of POST /api/v1/run/stream (newline-delimited JSON), or one message of the
 * /api/v1/run/live WebSocket (which adds `stopping` and `invalid`). */
export interface RunStreamEvent {
  event: "start" | "stdout" | "progress" | "busy" | "stopping" | "invalid" | "result";
  /** Milliseconds since the run started. */
  elapsed_ms: number;
  /** `stdout`: what the program printed. */
  text?: string | null;
  /** `busy`: seconds to wait before trying again. */
  retry_after_s?: number | null;
  /** `busy`: why; `invalid`: the validation error (as a 422's `detail`). */
  detail?: unknown;
  /** `result`: the run's whole answer (its passes packed). */
  response?: WireRunResponse | null;
}

/** A binding sent with a run: a plain value, or a value with its requires_grad flag. */
export type BindingValue = number | { value: number; requires_grad: boolean };

export interface RunRequest {
  source: string;
  device: string;
  seed: number;
  bindings: Record<string, BindingValue>;
  /** Compare the program's own Value graphs with PyTorch (see graph/pytorch-compare.ts). */
  compare?: boolean;
  /** Practice mode: each pass carries what each walk step asks (Graph.practice). */
  practice?: boolean;
}

/** One cell of a notebook: prose (markdown) or code. */
export interface NotebookCell {
  kind: "markdown" | "code";
  source: string;
}

export interface Example {
  id: string;
  title: string;
  explanation: string;
  source: string;
  /** A lesson: its cells (open it as a notebook); `source` is its code cells joined. */
  cells?: NotebookCell[] | null;
}

/** POST /api/v1/notebook/run: the code cells, and the cell to show (cells 1..cell run). */
export interface NotebookRunRequest {
  cells: string[];
  /** 1-based, among the code cells. */
  cell: number;
  device: string;
  seed: number;
  /** As RunRequest.practice, for the shown cell's passes. */
  practice?: boolean;
}

/** How one cell that ran ended, and what it printed. */
export interface CellRun {
  cell: number;
  ok: boolean;
  stdout: string;
  /** The repr of its last statement's value when that is an expression (Out[n]). */
  result?: string | null;
}

export interface NotebookRunResponse extends RunOutcome {
  /** The cell whose graphs these are: the one asked for, or the earlier one that failed. */
  cell: number;
  /** Each cell that ran, in order. */
  cells: CellRun[];
}

/** A NotebookRunResponse as the server sends it: its passes packed (see api/decode-passes.ts). */
export type WireNotebookRunResponse = Omit<NotebookRunResponse, "graph" | "passes"> & PackedPasses;

/** One line of POST /api/v1/notebook/run/stream (newline-delimited JSON). */
export interface NotebookStreamEvent {
  event: "start" | "cell" | "stdout" | "progress" | "busy" | "stopping" | "invalid" | "result";
  elapsed_ms: number;
  /** `cell`: the cell that starts (what is printed next is its output). */
  cell?: number | null;
  text?: string | null;
  retry_after_s?: number | null;
  detail?: unknown;
  response?: WireNotebookRunResponse | null;
}

/** One entry of GET /api/v1/devices. */
export interface DeviceInfo {
  name: string;
  available: boolean;
  /** Why the device is unavailable (null when it is available). */
  reason: string | null;
}
