/** The train page's visual and timing constants in one place. Theme colours live in CSS. */

/** Class colours (TensorFlow Playground's orange and blue first), as RGB triples. */
export const CLASS_RGB: readonly [number, number, number][] = [
  [245, 147, 34],
  [8, 119, 189],
  [46, 160, 67],
  [163, 73, 164],
  [214, 39, 40],
  [23, 190, 207],
  [140, 86, 75],
  [127, 127, 127],
];

export const BOUNDARY = {
  /** Cells per side of the probability grid asked from the server. */
  grid: 48,
  /** Strongest tint of a confidently classified cell (0..1). */
  maxTint: 0.6,
  /** Radius of a data point in CSS pixels. */
  pointRadius: 4,
  /** Radius of a point the user clicked in. */
  userPointRadius: 5.5,
};

export const CHART = {
  /** Points kept per series; older steps are thinned out (every other one dropped). */
  maxPoints: 2000,
  padding: { left: 42, right: 10, top: 8, bottom: 20 },
};

/** Choices offered by the selects (TensorFlow Playground's learning rates). */
export const CHOICES = {
  lr: [0.00001, 0.0001, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3, 1, 3, 10],
  batch: [1, 4, 8, 16, 32, 64, 128, 256, 1000],
  speed: [1, 2, 5, 10, 25, 50],
};

export const LIMITS = {
  maxLayers: 6,
  maxWidth: 64,
  maxPoints: 500,
};
