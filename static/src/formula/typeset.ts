/**
 * The walk's formulas typeset with KaTeX (bundled, no CDN). KaTeX builds its DOM with
 * createElement and sets the few styles it needs through the CSSOM (`element.style`), which the
 * page's CSP (style-src 'self') allows, unlike `style="..."` markup; so formulas are rendered with
 * `katex.render` into elements, never as an HTML string.
 *
 * The typeset formula lives in a closed shadow root, hidden from assistive technology: the
 * caption's own text is the formula as plain text (read by screen readers, copied, and what
 * scripts and tests read), so what is announced and what is shown are the same formula, once.
 */
import katex from "katex";
import { el } from "../common/dom";
import { formulaToTex } from "./text-to-tex";

/** KaTeX's stylesheet, next to this bundle (the page links it too, for its @font-face rules). */
const KATEX_CSS = new URL("./katex/katex.min.css", import.meta.url).href;

/** KaTeX's rules as one constructed stylesheet, shared by every formula's shadow root (null:
 * the page's own copy of the stylesheet is not loaded, or cannot be read). */
let katexRules: CSSStyleSheet | null = null;

/**
 * KaTeX's rules, taken from the page's link to its stylesheet once that has loaded: adopted by
 * a shadow root, they style the formula as it is attached. A `<link>` in each shadow root
 * loads after the formula is shown (even from the cache): the formula is drawn unstyled first,
 * then grows, and the caption with it, which moves the graph pane and refits the view.
 */
function sharedKatexRules(): CSSStyleSheet | null {
  if (katexRules !== null) return katexRules;
  const page = Array.from(document.styleSheets).find((s) => s.href === KATEX_CSS);
  if (page === undefined) return null;
  try {
    const rules = new CSSStyleSheet({ baseURL: KATEX_CSS });
    rules.replaceSync(Array.from(page.cssRules, (r) => r.cssText).join("\n"));
    katexRules = rules;
  } catch {
    return null; // the link below then
  }
  return katexRules;
}

/** A line of a caption: the typeset formula, and the same line as text. */
export function formulaLine(line: string, tex?: string | null): HTMLElement {
  const row = el("div", "formula-line");
  const host = el("span", "formula-math");
  host.setAttribute("aria-hidden", "true");
  const shadow = host.attachShadow({ mode: "closed" });
  const math = document.createElement("span");
  const rules = sharedKatexRules();
  if (rules !== null) {
    shadow.adoptedStyleSheets = [rules];
    shadow.append(math);
  } else {
    const sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = KATEX_CSS;
    shadow.append(sheet, math);
  }
  try {
    katex.render(tex ?? formulaToTex(line), math, { throwOnError: true, output: "html", strict: "ignore", displayMode: false });
    host.dataset.tex = "ok";
  } catch {
    // Never lose a step's explanation: the plain text below is then shown as it is.
    host.dataset.tex = "fallback";
  }
  row.append(host, el("span", host.dataset.tex === "ok" ? "sr-only formula-text" : "formula-text", line));
  return row;
}
