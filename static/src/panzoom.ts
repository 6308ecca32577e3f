/** Pan (drag) and zoom (wheel, buttons) of an SVG group, and fitting a box into the view. */
import { ZOOM } from "./config";

export class PanZoom {
  private x = 0;
  private y = 0;
  private k = 1;
  private drag: { pointer: number; x: number; y: number } | null = null;

  constructor(
    private readonly svg: SVGSVGElement,
    private readonly target: SVGGElement,
  ) {
    svg.addEventListener("wheel", (e) => this.onWheel(e), { passive: false });
    svg.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    svg.addEventListener("pointermove", (e) => this.onPointerMove(e));
    svg.addEventListener("pointerup", (e) => this.onPointerUp(e));
    svg.addEventListener("pointercancel", (e) => this.onPointerUp(e));
  }

  /** Current scale (1 = SVG units are pixels). */
  get scale(): number {
    return this.k;
  }

  /** Fit a box of content coordinates into the visible area, centred. */
  fit(box: { x: number; y: number; width: number; height: number }): void {
    const rect = this.svg.getBoundingClientRect();
    if (rect.width === 0 || rect.height === 0 || box.width === 0) return;
    const pad = ZOOM.fitPadding;
    const k = Math.min(ZOOM.fitMax, (rect.width - 2 * pad) / box.width, (rect.height - 2 * pad) / box.height);
    this.k = Math.max(ZOOM.min, k);
    this.x = (rect.width - box.width * this.k) / 2 - box.x * this.k;
    this.y = (rect.height - box.height * this.k) / 2 - box.y * this.k;
    this.apply();
  }

  /** The scale at which `box` would fit the view. */
  fitScale(box: { width: number; height: number }): number {
    const rect = this.svg.getBoundingClientRect();
    const pad = ZOOM.fitPadding;
    return Math.min(ZOOM.fitMax, (rect.width - 2 * pad) / box.width, (rect.height - 2 * pad) / box.height);
  }

  /** Centre the view on a content point at scale `k`. */
  centerOn(point: { x: number; y: number }, k: number): void {
    const rect = this.svg.getBoundingClientRect();
    this.k = Math.max(ZOOM.min, Math.min(ZOOM.max, k));
    this.x = rect.width / 2 - point.x * this.k;
    this.y = rect.height / 2 - point.y * this.k;
    this.apply();
  }

  /** Zoom by `factor` around a point of the view (its centre by default). */
  zoomBy(factor: number, at?: { x: number; y: number }): void {
    const rect = this.svg.getBoundingClientRect();
    const px = at?.x ?? rect.width / 2;
    const py = at?.y ?? rect.height / 2;
    const k = Math.max(ZOOM.min, Math.min(ZOOM.max, this.k * factor));
    this.x = px - ((px - this.x) * k) / this.k;
    this.y = py - ((py - this.y) * k) / this.k;
    this.k = k;
    this.apply();
  }

  /** Pan so that a content point is in view (used to follow the walk on big graphs). */
  ensureVisible(point: { x: number; y: number }, margin = 60): void {
    const rect = this.svg.getBoundingClientRect();
    const sx = point.x * this.k + this.x;
    const sy = point.y * this.k + this.y;
    if (sx < margin || sx > rect.width - margin || sy < margin || sy > rect.height - margin) {
      this.x = rect.width / 2 - point.x * this.k;
      this.y = rect.height / 2 - point.y * this.k;
      this.apply();
    }
  }

  private apply(): void {
    this.target.setAttribute("transform", `translate(${this.x},${this.y}) scale(${this.k})`);
  }

  private onWheel(e: WheelEvent): void {
    e.preventDefault();
    const rect = this.svg.getBoundingClientRect();
    this.zoomBy(Math.exp(-e.deltaY * ZOOM.wheel), { x: e.clientX - rect.left, y: e.clientY - rect.top });
  }

  private onPointerDown(e: PointerEvent): void {
    if (e.button !== 0 || (e.target as Element).closest("[data-node-id]")) return;
    this.drag = { pointer: e.pointerId, x: e.clientX, y: e.clientY };
    this.svg.setPointerCapture(e.pointerId);
    this.svg.classList.add("panning");
  }

  private onPointerMove(e: PointerEvent): void {
    if (!this.drag || e.pointerId !== this.drag.pointer) return;
    this.x += e.clientX - this.drag.x;
    this.y += e.clientY - this.drag.y;
    this.drag.x = e.clientX;
    this.drag.y = e.clientY;
    this.apply();
  }

  private onPointerUp(e: PointerEvent): void {
    if (!this.drag || e.pointerId !== this.drag.pointer) return;
    this.drag = null;
    this.svg.classList.remove("panning");
  }
}
