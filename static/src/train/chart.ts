/** A small line chart on a canvas (like TensorFlow Playground's ~100-line linechart.ts). */
import { Redraw, sizedContext } from "./canvas";
import { CHART } from "./config";

/** One line: its label, the CSS custom property holding its colour, and its dash pattern. */
export interface Series {
  label: string;
  colorVar: string;
  dash: number[];
}

/** Several series over a shared x axis (training steps); redraws at most once a frame. */
export class LineChart {
  private xs: number[] = [];
  private ys: (number | null)[][];
  private readonly redraw = new Redraw(() => this.draw());

  /** `range` fixes the y axis (accuracy: [0, 1]); without it the axis spans 0..max. */
  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly series: Series[],
    private readonly range: [number, number] | null,
    private readonly format: (v: number) => string,
  ) {
    this.ys = series.map(() => []);
    new ResizeObserver(() => this.redraw.request()).observe(canvas);
  }

  /** Forget every point. */
  reset(): void {
    this.xs = [];
    this.ys = this.series.map(() => []);
    this.redraw.request();
  }

  /** Append one x with a value per series (null: no value, e.g. no test set). */
  push(x: number, values: (number | null)[]): void {
    this.xs.push(x);
    values.forEach((v, i) => this.ys[i]!.push(v !== null && Number.isFinite(v) ? v : null));
    if (this.xs.length > CHART.maxPoints) {
      // Thin out: keep every other point, so long runs stay cheap to draw.
      this.xs = this.xs.filter((_, i) => i % 2 === 0);
      this.ys = this.ys.map((s) => s.filter((_, i) => i % 2 === 0));
    }
    this.redraw.request();
  }

  /** How many points are held (tests and the page read it). */
  get size(): number {
    return this.xs.length;
  }

  private draw(): void {
    const { canvas } = this;
    const width = canvas.clientWidth;
    const height = canvas.clientHeight;
    if (!width || !height) return;
    const ctx = sizedContext(canvas, width, height);
    const style = getComputedStyle(canvas);
    const muted = style.getPropertyValue("--muted").trim() || "#888";
    const border = style.getPropertyValue("--border").trim() || "#ccc";
    const pad = CHART.padding;
    const plotW = width - pad.left - pad.right;
    const plotH = height - pad.top - pad.bottom;

    let [yMin, yMax] = this.range ?? [0, 0];
    if (!this.range) {
      for (const s of this.ys) for (const v of s) if (v !== null && v > yMax) yMax = v;
      yMax = yMax > 0 ? yMax * 1.05 : 1;
    }
    const x0 = this.xs[0] ?? 0;
    const x1 = Math.max(this.xs[this.xs.length - 1] ?? 1, x0 + 1);
    const px = (x: number): number => pad.left + ((x - x0) / (x1 - x0)) * plotW;
    const py = (y: number): number => pad.top + (1 - (y - yMin) / (yMax - yMin)) * plotH;

    ctx.font = "11px system-ui, sans-serif";
    ctx.lineWidth = 1;
    ctx.strokeStyle = border;
    ctx.fillStyle = muted;
    ctx.textAlign = "right";
    ctx.textBaseline = "middle";
    for (let i = 0; i <= 3; i++) {
      const v = yMin + ((yMax - yMin) * i) / 3;
      const y = Math.round(py(v)) + 0.5;
      ctx.beginPath();
      ctx.moveTo(pad.left, y);
      ctx.lineTo(width - pad.right, y);
      ctx.stroke();
      ctx.fillText(this.format(v), pad.left - 4, y);
    }
    ctx.textBaseline = "top";
    ctx.textAlign = "left";
    ctx.fillText(`step ${Math.round(x0)}`, pad.left, height - pad.bottom + 4);
    ctx.textAlign = "right";
    ctx.fillText(`${Math.round(x1)}`, width - pad.right, height - pad.bottom + 4);

    ctx.lineWidth = 1.75;
    this.series.forEach((series, i) => {
      const values = this.ys[i]!;
      ctx.strokeStyle = style.getPropertyValue(series.colorVar).trim() || "#333";
      ctx.setLineDash(series.dash);
      ctx.beginPath();
      let pen = false;
      values.forEach((v, j) => {
        if (v === null) {
          pen = false;
          return;
        }
        const x = px(this.xs[j]!);
        const y = py(Math.min(Math.max(v, yMin), yMax));
        if (pen) ctx.lineTo(x, y);
        else ctx.moveTo(x, y);
        pen = true;
      });
      ctx.stroke();
    });
    ctx.setLineDash([]);
  }
}
