/**
 * The splitter between the program column and the graph: drag it, or focus it and
 * use ← / → (Home / End for the ends), to give lesson code with long comments more room or the
 * graph more width. Its place is a share of the page's width, remembered in localStorage; the
 * ARIA separator pattern says it to assistive technology. Hidden in the one-column layouts.
 */
import { SPLIT } from "../common/config";

const STORAGE_KEY = "agp.sideShare";

/** `share` of a `width`-pixel page, kept within the share bounds and both panes' pixel minimums. */
export function clampShare(share: number, width: number): number {
  let lo = SPLIT.minShare;
  let hi = SPLIT.maxShare;
  if (width > 0) {
    lo = Math.max(lo, SPLIT.minSidePx / width);
    hi = Math.min(hi, 1 - SPLIT.minStagePx / width);
  }
  if (hi < lo) return Math.min(Math.max(share, SPLIT.minShare), SPLIT.maxShare);
  return Math.min(Math.max(share, lo), hi);
}

function stored(): number | null {
  try {
    const value = Number(window.localStorage.getItem(STORAGE_KEY));
    return Number.isFinite(value) && value > 0 && value < 1 ? value : null;
  } catch {
    return null; // storage disabled: the default share
  }
}

export class Splitter {
  private share: number;

  /** `onResize` runs after each change (the graph pane re-fits to its new width). */
  constructor(
    private readonly handle: HTMLElement,
    private readonly page: HTMLElement,
    private readonly onResize: () => void = () => {},
  ) {
    this.share = stored() ?? SPLIT.initialShare;
    this.apply(false);
    handle.addEventListener("pointerdown", (e) => this.startDrag(e));
    handle.addEventListener("keydown", (e) => this.onKey(e));
    handle.addEventListener("dblclick", () => this.set(SPLIT.initialShare));
    window.addEventListener("resize", () => this.apply(false));
  }

  /** The program column's share of the page's width. */
  get value(): number {
    return this.share;
  }

  /** Move the splitter to `share` of the page's width (clamped), and remember it. */
  set(share: number): void {
    this.share = clampShare(share, this.page.getBoundingClientRect().width);
    this.apply(true);
    try {
      window.localStorage.setItem(STORAGE_KEY, String(this.share));
    } catch {
      /* storage disabled: it lasts for this page only */
    }
  }

  private apply(changed: boolean): void {
    const share = clampShare(this.share, this.page.getBoundingClientRect().width);
    this.page.style.setProperty("--side-share", `${(share * 100).toFixed(2)}%`);
    this.handle.setAttribute("aria-valuenow", String(Math.round(share * 100)));
    this.handle.setAttribute("aria-valuetext", `program column ${Math.round(share * 100)}% of the width`);
    if (changed) this.onResize();
  }

  private startDrag(e: PointerEvent): void {
    if (e.button !== 0) return;
    e.preventDefault();
    this.handle.setPointerCapture(e.pointerId);
    this.handle.classList.add("dragging");
    const move = (m: PointerEvent): void => {
      const rect = this.page.getBoundingClientRect();
      if (rect.width > 0) this.set((m.clientX - rect.left) / rect.width);
    };
    const end = (): void => {
      this.handle.classList.remove("dragging");
      this.handle.removeEventListener("pointermove", move);
      this.handle.removeEventListener("pointerup", end);
      this.handle.removeEventListener("pointercancel", end);
    };
    this.handle.addEventListener("pointermove", move);
    this.handle.addEventListener("pointerup", end);
    this.handle.addEventListener("pointercancel", end);
  }

  private onKey(e: KeyboardEvent): void {
    const step = e.shiftKey ? SPLIT.bigStep : SPLIT.step;
    const moves: Record<string, number> = {
      ArrowLeft: this.share - step,
      ArrowRight: this.share + step,
      Home: SPLIT.minShare,
      End: SPLIT.maxShare,
    };
    const to = moves[e.key];
    if (to === undefined) return;
    e.preventDefault();
    this.set(to);
  }
}
