/**
 * Text measurement for the graph (Netron's build / measure / layout phases): each text class of
 * graph.css is probed once for its computed font, then strings are measured on a canvas in that
 * font, so boxes are sized to their text and long text is cut to fit instead of running past.
 */
const SVG_NS = "http://www.w3.org/2000/svg";

export class TextMeasurer {
  private readonly context: CanvasRenderingContext2D | null;
  private readonly fonts = new Map<string, string>();
  private readonly cache = new Map<string, number>();

  /** `svg` hosts the probes, so the page's CSS for the graph applies to them. */
  constructor(private readonly svg: SVGSVGElement) {
    this.context = document.createElement("canvas").getContext("2d");
  }

  /** The font of `<text class=cls>` inside a `<g class=groupClass>`, as the canvas spells it. */
  private font(cls: string, groupClass: string): string {
    const key = `${groupClass}|${cls}`;
    const known = this.fonts.get(key);
    if (known) return known;
    const group = document.createElementNS(SVG_NS, "g");
    group.setAttribute("class", `${groupClass} measure-probe`);
    const text = document.createElementNS(SVG_NS, "text");
    text.setAttribute("class", cls);
    text.textContent = "M";
    group.append(text);
    this.svg.append(group);
    const style = getComputedStyle(text);
    const font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    group.remove();
    this.fonts.set(key, font);
    return font;
  }

  /** Width of `text` set in the font of `cls` (SVG units at scale 1). */
  width(text: string, cls: string, groupClass = "node"): number {
    const key = `${groupClass}|${cls}|${text}`;
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;
    let width: number;
    if (this.context) {
      this.context.font = this.font(cls, groupClass);
      width = this.context.measureText(text).width;
    } else {
      width = text.length * 7.5; // no canvas (never in a real browser): a monospace estimate
    }
    this.cache.set(key, width);
    return width;
  }

  /** `text` cut with an ellipsis so it fits in `max` (whole when it fits). */
  fit(text: string, cls: string, max: number, groupClass = "node"): string {
    if (this.width(text, cls, groupClass) <= max) return text;
    let lo = 0;
    let hi = text.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (this.width(`${text.slice(0, mid)}…`, cls, groupClass) <= max) lo = mid;
      else hi = mid - 1;
    }
    return `${text.slice(0, lo)}…`;
  }

  /** Forget cached widths (after a theme or font change). */
  reset(): void {
    this.fonts.clear();
    this.cache.clear();
  }
}
