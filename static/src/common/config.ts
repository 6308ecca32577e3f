/** Visual and timing constants in one place (cnn-explainer's config.js). Colours live in CSS. */

/** Node boxes: sized to their measured text, within these bounds (SVG units). */
export const NODE = {
  /** Text rows are at least this wide, so short nodes still read as boxes. */
  minWidth: 96,
  /** Text wider than this is cut with an ellipsis (measured, so it never runs past the box). */
  maxTextWidth: 260,
  /** Horizontal padding inside the box, each side. */
  padX: 10,
  /** Height of one text row. */
  rowHeight: 16,
  /** Padding above the first row and below the last. */
  padY: 6,
  /** Corner radius of param/const boxes; op nodes are drawn as pills. */
  radius: 6,
  /** Font sizes (SVG units) of the rows; the CSS in graph.css uses the same numbers. */
  titleFont: 13,
  textFont: 12,
  /** Gap between the title and a badge on its row. */
  badgeGap: 6,
  /** The keyboard focus ring is drawn this far outside the box (never over its state outline). */
  focusGap: 5,
} as const;

/** The rendered text size a reader needs: the view never opens smaller than this (CSS pixels). */
export const LEGIBLE = {
  /** The smallest node text (NODE.textFont) renders at least this big normally... */
  minTextPx: 11,
  /** ...and at least this big in presentation mode (read from the back of a classroom). */
  presentedMinTextPx: 16,
};

export const LAYOUT = {
  nodesep: 22,
  ranksep: 36,
  edgesep: 12,
  marginx: 8,
  marginy: 8,
  /** Edge labels (the gradient flowing back) are this tall; rank gaps leave room for them. */
  labelHeight: 20,
  /** Graphs above this many boxes are laid out once, bottom to top. */
  bigGraph: 150,
};

export const ZOOM = {
  min: 0.01,
  max: 4,
  /** Wheel delta to zoom factor: factor = exp(-deltaY * wheel). */
  wheel: 0.0015,
  /** Fitting never zooms in past this, so a two-node graph is not huge. */
  fitMax: 1.6,
  /** ...nor in presentation mode past this. */
  presentedFitMax: 2.4,
  fitPadding: 16,
  /** Space kept around the node the view follows. */
  followMargin: 36,
};

export const PLAYER = {
  /** Milliseconds per walk step at speed 1. */
  stepMs: 1200,
  /** Milliseconds per node of the forward replay at speed 1 (a forward step is simpler to read). */
  forwardStepMs: 600,
  /** The forward replay's last node (the loss) stays this many steps before the replay ends. */
  forwardEndHold: 3,
  speeds: [0.5, 1, 2, 4] as const,
};

/** The tag drawn inside the node an error concerns. */
export const ERROR_TAG = {
  text: "error here",
};

export const RUN = {
  /** Debounce for re-running when a binding slider moves. */
  bindingDebounceMs: 180,
  /** Debounce for writing the URL while the user types. */
  urlDebounceMs: 400,
  /** Back-off when the server is busy and says nothing about when to retry. */
  retryDefaultS: 2,
  /** Retry-After is honoured up to this many seconds. */
  retryMaxS: 60,
  /** Random extra wait, as a fraction of the wait, so a classroom does not retry in lockstep. */
  retryJitter: 0.3,
};

export const FORMAT = {
  /** Significant digits of every number shown. */
  digits: 4,
  /** Magnitudes below / from these are written with an exponent (5.81e−4, 1.2e6). */
  exponentBelow: 1e-3,
  exponentAbove: 1e6,
  /** Elements of a tensor shown in full on a node before it is summarised. */
  inlineElements: 4,
};

/** Values a new free variable starts with, and the slider's range around them. */
export const BINDING = {
  /** A new input's value, by its place among the expression's inputs: distinct, small, not 0
   * or 1, and no two that sum or differ to 0 (so `(a+b)*(a-b)` opens at −5, not 0 = 1·0). */
  defaults: [2, 3, 0.5, -1.5, 1.25, -2.5, 4, -0.75],
  /** Past the table: an input's value when every default is taken. */
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

/** The splitter between the program column and the graph (playground/splitter.ts). */
export const SPLIT = {
  /** The program column's share of the page's width: where it starts, and its bounds. */
  initialShare: 0.34,
  minShare: 0.2,
  maxShare: 0.7,
  /** Neither pane gets narrower than this (CSS pixels). */
  minSidePx: 260,
  minStagePx: 320,
  /** ← / → move it by this share; with Shift by the bigger one. */
  step: 0.02,
  bigStep: 0.1,
};
