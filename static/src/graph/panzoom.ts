/**
 * Pan (drag, one finger) and zoom (wheel, buttons, two fingers pinching) of an SVG group, and the
 * view's legibility rule (Netron):
 * the page never shows a graph smaller than the size its text can be read at; a graph that does
 * not fit at that size is shown around the node of interest, and the view pans to follow the walk.
 * Zooming out past that size does not shrink the text: it asks the page to collapse a level
 * (`onZoomOutPast`); zooming in well past it over a collapsed group asks to open it (`onZoomIn`).
 */
import { LEGIBLE, NODE, ZOOM } from "../common/config";
import type { Box } from "./layout";

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** The smallest scale at which the smallest node text renders at `minPx` CSS pixels. */
export function legibleScale(presenting: boolean): number {
  return (presenting ? LEGIBLE.presentedMinTextPx : LEGIBLE.minTextPx) / NODE.textFont;
}

/** A finger (or pen) must move this far (CSS px) before a touch on a node pans instead of tapping it. */
const TOUCH_SLOP = 6;

export class PanZoom {
  private x = 0;
  private y = 0;
  private k = 1;
  private drag: { pointer: number; x: number; y: number } | null = null;
  /** Touch and pen pointers down on the graph, where they are now. */
  private touches = new Map<number, { x: number; y: number }>();
  /** The pinch in progress: the distance between the two fingers and their midpoint, last seen. */
  private pinch: { distance: number; x: number; y: number } | null = null;
  /** Set once a touch has moved past the slop: the tap it began is a pan, not a click. */
  private touchMoved = false;
  /** In presentation mode the legible minimum is bigger (and fitting may zoom in further). */
  presenting = false;
  /**
   * Who set the view: the page ("auto": legible size around the focus), the Fit button ("fit"),
   * or the user's own panning and zooming ("user"), which a resize of the pane must not undo.
   */
  mode: "auto" | "fit" | "user" = "auto";
  /** Zooming out was asked past the legible scale (the page may collapse a level). */
  onZoomOutPast: () => void = () => {};
  /** Zooming in reached twice the legible scale, around this point of the pane. */
  onZoomIn: (at: { x: number; y: number }) => void = () => {};

  constructor(
    private readonly svg: SVGSVGElement,
    private readonly target: SVGGElement,
  ) {
    svg.addEventListener("wheel", (e) => this.onWheel(e), { passive: false });
    svg.addEventListener("pointerdown", (e) => this.onPointerDown(e));
    svg.addEventListener("pointermove", (e) => this.onPointerMove(e));
    svg.addEventListener("pointerup", (e) => this.onPointerUp(e));
    svg.addEventListener("pointercancel", (e) => this.onPointerUp(e));
    // A touch that panned or pinched must not also click the node it started on.
    svg.addEventListener(
      "click",
      (e) => {
        if (!this.touchMoved) return;
        this.touchMoved = false;
        e.stopPropagation();
        e.preventDefault();
      },
      true,
    );
  }

  /** Current scale (1 = SVG units are pixels). */
  get scale(): number {
    return this.k;
  }

  /** The area the graph is drawn in (SVG pixels). */
  private pane(): Rect {
    const rect = this.svg.getBoundingClientRect();
    return { x: 0, y: 0, width: rect.width, height: rect.height };
  }

  private fitMax(): number {
    return this.presenting ? ZOOM.presentedFitMax : ZOOM.fitMax;
  }

  /** The scale at which `box` fits the pane (capped, so a tiny graph is not huge). */
  fitScale(box: { width: number; height: number }): number {
    const pane = this.pane();
    const pad = ZOOM.fitPadding;
    if (box.width <= 0 || box.height <= 0) return this.fitMax();
    return Math.min(this.fitMax(), (pane.width - 2 * pad) / box.width, (pane.height - 2 * pad) / box.height);
  }

  /** Whether `box` fits the pane at a legible scale. */
  fitsLegibly(box: { width: number; height: number }): boolean {
    return this.fitScale(box) >= legibleScale(this.presenting);
  }

  /**
   * Fit a box of content coordinates into the pane, centred; never below the legible scale: what
   * does not fit then is shown around `focus` (or its centre) at that scale.
   */
  fit(box: Rect, focus: Box | null = null): void {
    const pane = this.pane();
    if (pane.width === 0 || pane.height === 0 || box.width === 0) return;
    if (!this.fitsLegibly(box)) {
      this.autoView(box, focus);
      this.mode = "fit";
      return;
    }
    this.mode = "fit";
    this.k = Math.max(ZOOM.min, this.fitScale(box));
    this.x = pane.x + (pane.width - box.width * this.k) / 2 - box.x * this.k;
    this.y = pane.y + (pane.height - box.height * this.k) / 2 - box.y * this.k;
    this.apply();
  }

  /**
   * The opening view of `content`: all of it when it fits at a legible scale, else `focus` (or the
   * content's top / left) at the legible scale, with the content filling the pane around it.
   */
  autoView(content: Rect, focus: Box | null): void {
    const legible = legibleScale(this.presenting);
    if (this.fitScale(content) >= legible) {
      this.fit(content);
      this.mode = "auto";
      return;
    }
    this.mode = "auto";
    this.k = legible;
    const pane = this.pane();
    const at = focus ?? { x: content.x + content.width / 2, y: content.y + content.height / 2 };
    this.x = pane.x + pane.width / 2 - at.x * this.k;
    this.y = pane.y + pane.height / 2 - at.y * this.k;
    this.clampTo(content);
    this.apply();
  }

  /**
   * Keep `box` in view (with `related` boxes too when they fit at this scale): when it is not
   * wholly visible, pan so that it is, centring it and keeping the content across the pane.
   */
  follow(box: Box, related: Box[], content: Rect): void {
    const pane = this.pane();
    const m = ZOOM.followMargin;
    const visible = (b: Box): boolean => {
      const left = (b.x - b.width / 2) * this.k + this.x;
      const top = (b.y - b.height / 2) * this.k + this.y;
      return left >= pane.x + m / 2 && top >= pane.y + m / 2 && left + b.width * this.k <= pane.x + pane.width - m / 2 && top + b.height * this.k <= pane.y + pane.height - m / 2;
    };
    if (visible(box) && related.every(visible)) return;
    // Centre on the group if it fits at this scale, else on the box alone.
    const all = [box, ...related];
    const minX = Math.min(...all.map((b) => b.x - b.width / 2));
    const maxX = Math.max(...all.map((b) => b.x + b.width / 2));
    const minY = Math.min(...all.map((b) => b.y - b.height / 2));
    const maxY = Math.max(...all.map((b) => b.y + b.height / 2));
    const fits = (maxX - minX) * this.k <= pane.width - 2 * m && (maxY - minY) * this.k <= pane.height - 2 * m;
    const cx = fits ? (minX + maxX) / 2 : box.x;
    const cy = fits ? (minY + maxY) / 2 : box.y;
    this.x = pane.x + pane.width / 2 - cx * this.k;
    this.y = pane.y + pane.height / 2 - cy * this.k;
    this.clampTo(content);
    this.apply();
  }

  /**
   * No empty band where content could be: content larger than the pane covers it, content that
   * fits is centred (even when it fits only without the padding: on a phone the padding must not
   * push a node off the pane).
   */
  private clampTo(content: Rect): void {
    const pane = this.pane();
    const pad = ZOOM.fitPadding;
    const w = content.width * this.k;
    const h = content.height * this.k;
    if (w <= pane.width) this.x = pane.x + (pane.width - w) / 2 - content.x * this.k;
    else this.x = Math.min(pane.x + pad - content.x * this.k, Math.max(pane.x + pane.width - pad - (content.x + content.width) * this.k, this.x));
    if (h <= pane.height) this.y = pane.y + (pane.height - h) / 2 - content.y * this.k;
    else this.y = Math.min(pane.y + pad - content.y * this.k, Math.max(pane.y + pane.height - pad - (content.y + content.height) * this.k, this.y));
  }

  /** Zoom by `factor` around a point of the view (its centre by default). */
  zoomBy(factor: number, at?: { x: number; y: number }): void {
    this.mode = "user";
    const pane = this.pane();
    const px = at?.x ?? pane.x + pane.width / 2;
    const py = at?.y ?? pane.y + pane.height / 2;
    const legible = legibleScale(this.presenting);
    const wanted = this.k * factor;
    // Never below the legible scale (nor further below it, when the view already was).
    const floor = Math.min(legible, this.k);
    if (factor < 1 && wanted < floor) this.onZoomOutPast();
    const k = Math.max(floor, ZOOM.min, Math.min(ZOOM.max, wanted));
    this.x = px - ((px - this.x) * k) / this.k;
    this.y = py - ((py - this.y) * k) / this.k;
    this.k = k;
    this.apply();
    if (factor > 1 && k >= 2 * legible) this.onZoomIn({ x: px, y: py });
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
    if (e.pointerType !== "mouse") {
      this.touchDown(e);
      return;
    }
    if (e.button !== 0 || (e.target as Element).closest("[data-node-id], [data-frame-module]")) return;
    this.drag = { pointer: e.pointerId, x: e.clientX, y: e.clientY };
    this.svg.setPointerCapture(e.pointerId);
    this.svg.classList.add("panning");
  }

  private onPointerMove(e: PointerEvent): void {
    if (this.touches.has(e.pointerId)) {
      this.touchMove(e);
      return;
    }
    if (!this.drag || e.pointerId !== this.drag.pointer) return;
    this.mode = "user";
    this.x += e.clientX - this.drag.x;
    this.y += e.clientY - this.drag.y;
    this.drag.x = e.clientX;
    this.drag.y = e.clientY;
    this.apply();
  }

  private onPointerUp(e: PointerEvent): void {
    if (this.touches.delete(e.pointerId)) {
      this.pinch = null;
      if (this.touches.size === 0) this.svg.classList.remove("panning");
      return;
    }
    if (!this.drag || e.pointerId !== this.drag.pointer) return;
    this.drag = null;
    this.svg.classList.remove("panning");
  }

  // ---- touch: one finger pans, two pinch (touches are captured to their target by the browser,
  // so a touch that starts on a node still reaches these listeners, and a tap still clicks it)

  private touchDown(e: PointerEvent): void {
    const rect = this.svg.getBoundingClientRect();
    this.touches.set(e.pointerId, { x: e.clientX - rect.left, y: e.clientY - rect.top });
    if (this.touches.size === 1) this.touchMoved = false;
    this.pinch = this.touches.size === 2 ? this.pinchOf() : null;
  }

  private pinchOf(): { distance: number; x: number; y: number } | null {
    const [a, b] = [...this.touches.values()];
    if (!a || !b) return null;
    return { distance: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }

  private touchMove(e: PointerEvent): void {
    const last = this.touches.get(e.pointerId);
    if (!last) return;
    const rect = this.svg.getBoundingClientRect();
    const now = { x: e.clientX - rect.left, y: e.clientY - rect.top };
    if (this.touches.size === 1) {
      if (!this.touchMoved && Math.hypot(now.x - last.x, now.y - last.y) < TOUCH_SLOP) return;
      this.touchMoved = true;
      this.mode = "user";
      this.svg.classList.add("panning");
      this.x += now.x - last.x;
      this.y += now.y - last.y;
      this.touches.set(e.pointerId, now);
      this.apply();
      return;
    }
    this.touches.set(e.pointerId, now);
    const before = this.pinch;
    const after = this.pinchOf();
    if (!before || !after || before.distance === 0) return;
    this.touchMoved = true;
    // Zoom by the change in the fingers' distance around their midpoint, and follow the midpoint.
    this.zoomBy(after.distance / before.distance, { x: before.x, y: before.y });
    this.x += after.x - before.x;
    this.y += after.y - before.y;
    this.apply();
    this.pinch = after;
  }
}
