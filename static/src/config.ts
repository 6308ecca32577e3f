/** Visual and timing constants in one place (cnn-explainer's config.js). Colours live in CSS. */

export const NODE = {
  /** Width of a node box in SVG units; text is clipped to it. */
  width: 168,
  /** Height of one text row inside a node. */
  rowHeight: 16,
  /** Padding above the first row and below the last. */
  padding: 8,
  /** Corner radius of param/const boxes; op nodes are drawn as pills. */
  radius: 6,
  /** Characters a row may hold before it is cut with an ellipsis. */
  maxChars: 24,
} as const;

export const LAYOUT = {
  /** dagre rank direction: inputs on the left, the loss on the right. */
  rankdir: "LR" as const,
  nodesep: 18,
  ranksep: 56,
  edgesep: 10,
  marginx: 16,
  marginy: 16,
};

export const ZOOM = {
  min: 0.01,
  /** Below this fitted scale a graph is unreadable: open it at `readable` on its output instead. */
  minReadable: 0.3,
  readable: 0.7,
  max: 4,
  /** Wheel delta to zoom factor: factor = exp(-deltaY * wheel). */
  wheel: 0.0015,
  /** Fitting never zooms in past this, so a two-node graph is not huge. */
  fitMax: 1.6,
  fitPadding: 24,
};

export const PLAYER = {
  /** Milliseconds per walk step at speed 1. */
  stepMs: 1200,
  /** Milliseconds per node of the forward replay at speed 1 (a forward step is simpler to read). */
  forwardStepMs: 600,
  speeds: [0.5, 1, 2, 4] as const,
};

/** The tag drawn above the node an autograd error concerns. */
export const ERROR_TAG = {
  text: "error here",
  width: 78,
  height: 18,
};

export const RUN = {
  /** Debounce for re-running when a binding slider moves. */
  bindingDebounceMs: 180,
  /** Debounce for writing the URL while the user types. */
  urlDebounceMs: 400,
};

export const FORMAT = {
  /** Significant digits of numbers on the graph. */
  digits: 4,
  /** Elements of a tensor shown in full on a node before it is summarised. */
  inlineElements: 4,
};

/** Values a new free variable starts with, and the slider's range around them. */
export const BINDING = {
  defaultValue: 1,
  sliderMin: -10,
  sliderMax: 10,
  sliderStep: 0.1,
};

export const DEVICE = {
  /** The device every server has: the default, and where an unavailable request falls back to. */
  fallback: "cpu",
  /** Device names a URL may carry (what the API accepts). */
  pattern: /^(cpu|cuda(:\d{1,2})?)$/,
};
