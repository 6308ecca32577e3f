/** What the training page's two canvases (the loss charts, the decision boundary) share. */

/** Coalesces redraw requests: `draw` runs once on the next animation frame, however often asked. */
export class Redraw {
  private frame = 0;

  constructor(private readonly draw: () => void) {}

  /** Redraw on the next frame. */
  request(): void {
    if (this.frame) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = 0;
      this.draw();
    });
  }
}

/**
 * A cleared 2D context that draws in CSS pixels on `canvas`, its backing store resized to
 * `width` × `height` CSS pixels at the device's pixel ratio (sharp on high-density screens).
 */
export function sizedContext(canvas: HTMLCanvasElement, width: number, height: number): CanvasRenderingContext2D {
  const dpr = window.devicePixelRatio || 1;
  const [pxWidth, pxHeight] = [Math.round(width * dpr), Math.round(height * dpr)];
  if (canvas.width !== pxWidth || canvas.height !== pxHeight) {
    canvas.width = pxWidth;
    canvas.height = pxHeight;
  }
  const ctx = canvas.getContext("2d")!;
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, width, height);
  return ctx;
}
