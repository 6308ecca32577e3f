/** The decision-boundary view: class probabilities as a heatmap, the data points on top. */
import { Redraw, sizedContext } from "./canvas";
import { BOUNDARY, CLASS_RGB } from "./config";
import type { Boundary, DatasetPoints, Point } from "./types";

const rgb = (k: number): [number, number, number] => CLASS_RGB[k % CLASS_RGB.length]!;

/** Draws into one canvas; `onClick` reports a click in data coordinates. */
export class BoundaryView {
  /** Called with data coordinates when the user clicks the plot. */
  onClick: (x: number, y: number) => void = () => {};
  private boundary: Boundary | null = null;
  private data: DatasetPoints | null = null;
  private userPoints: Point[] = [];
  private readonly heat = document.createElement("canvas");
  private readonly redraw = new Redraw(() => this.draw());

  constructor(private readonly canvas: HTMLCanvasElement) {
    canvas.addEventListener("click", (event) => {
      const extent = this.extent();
      const rect = canvas.getBoundingClientRect();
      const fx = (event.clientX - rect.left) / rect.width;
      const fy = (event.clientY - rect.top) / rect.height;
      this.onClick(extent[0] + fx * (extent[1] - extent[0]), extent[3] - fy * (extent[3] - extent[2]));
    });
    new ResizeObserver(() => this.redraw.request()).observe(canvas);
  }

  /** The plotted square: the server's extent, or the default before the first answer. */
  extent(): [number, number, number, number] {
    return this.boundary?.extent ?? this.data?.extent ?? [-1.5, 1.5, -1.5, 1.5];
  }

  setData(data: DatasetPoints, userPoints: Point[]): void {
    this.data = data;
    this.userPoints = userPoints;
    this.redraw.request();
  }

  setBoundary(boundary: Boundary): void {
    this.boundary = boundary;
    this.paintHeat(boundary);
    this.redraw.request();
  }

  /** Probabilities -> one pixel per cell; drawn scaled up (smoothed) under the points. */
  private paintHeat(boundary: Boundary): void {
    const n = boundary.size;
    this.heat.width = n;
    this.heat.height = n;
    const ctx = this.heat.getContext("2d")!;
    const image = ctx.createImageData(n, n);
    const bg = this.background();
    for (let r = 0; r < n; r++) {
      const row = boundary.probs[r]!;
      for (let c = 0; c < n; c++) {
        const probs = row[c]!;
        let top = 0;
        for (const p of probs) top = Math.max(top, p);
        const chance = 1 / probs.length;
        const confidence = Math.max(0, (top - chance) / (1 - chance));
        const tint = BOUNDARY.maxTint * confidence;
        // The probability-weighted class colour: smooth across a boundary, not blocky.
        const color = [0, 0, 0];
        for (let k = 0; k < probs.length; k++) for (let ch = 0; ch < 3; ch++) color[ch] += probs[k]! * rgb(k)[ch]!;
        const at = (r * n + c) * 4;
        for (let ch = 0; ch < 3; ch++) image.data[at + ch] = Math.round(bg[ch]! * (1 - tint) + color[ch]! * tint);
        image.data[at + 3] = 255;
      }
    }
    ctx.putImageData(image, 0, 0);
  }

  private background(): [number, number, number] {
    const dark = document.documentElement.dataset.theme === "dark";
    return dark ? [26, 32, 41] : [255, 255, 255];
  }

  private draw(): void {
    const { canvas } = this;
    const size = canvas.clientWidth;
    if (!size) return;
    const ctx = sizedContext(canvas, size, size);
    if (this.boundary) {
      ctx.imageSmoothingEnabled = true;
      ctx.imageSmoothingQuality = "high";
      ctx.drawImage(this.heat, 0, 0, size, size);
    }
    const [x0, x1, y0, y1] = this.extent();
    const toX = (x: number): number => ((x - x0) / (x1 - x0)) * size;
    const toY = (y: number): number => ((y1 - y) / (y1 - y0)) * size;
    // Axes through the origin, faintly.
    ctx.strokeStyle = "rgba(128,128,128,0.35)";
    ctx.lineWidth = 1;
    ctx.beginPath();
    ctx.moveTo(toX(0), 0);
    ctx.lineTo(toX(0), size);
    ctx.moveTo(0, toY(0));
    ctx.lineTo(size, toY(0));
    ctx.stroke();
    const dot = (p: Point, radius: number, stroke: string, width: number): void => {
      const color = rgb(p[2]);
      ctx.beginPath();
      ctx.arc(toX(p[0]), toY(p[1]), radius, 0, 2 * Math.PI);
      ctx.fillStyle = `rgb(${color[0]},${color[1]},${color[2]})`;
      ctx.fill();
      ctx.lineWidth = width;
      ctx.strokeStyle = stroke;
      ctx.stroke();
    };
    const r = BOUNDARY.pointRadius;
    for (const p of this.data?.train ?? []) dot(p, r, "#ffffff", 1);
    for (const p of this.data?.test ?? []) dot(p, r, "#1d232c", 1.25);
    for (const p of this.userPoints) dot(p, BOUNDARY.userPointRadius, "#1d232c", 2.5);
  }
}
