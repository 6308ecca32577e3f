/** The CodeMirror 6 editor: Python highlighting, line numbers, Ctrl+Enter runs, error markers. */
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { python } from "@codemirror/lang-python";
import { bracketMatching, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { Compartment, EditorState, StateEffect, StateField, type Extension, type Range } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  EditorView,
  drawSelection,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { classHighlighter } from "@lezer/highlight";
import { errorSpan } from "./error-span";

/** Where an error is: 1-based line and column, and where it ends when known (any may be missing). */
export interface ErrorMark {
  line: number | null;
  col: number | null;
  endLine?: number | null;
  /** Exclusive, 1-based. */
  endCol?: number | null;
}

const setError = StateEffect.define<ErrorMark | null>();

/** The error line's decoration; cleared as soon as the user edits. */
const errorField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(decorations, tr) {
    for (const effect of tr.effects) {
      if (!effect.is(setError)) continue;
      const mark = effect.value;
      if (!mark || mark.line === null || mark.line < 1 || mark.line > tr.state.doc.lines) return Decoration.none;
      const line = tr.state.doc.line(mark.line);
      const ranges: Range<Decoration>[] = [Decoration.line({ class: "cm-error-line" }).range(line.from)];
      const sameLine = mark.endLine === undefined || mark.endLine === null || mark.endLine === mark.line;
      const span = mark.col !== null && mark.col >= 1 ? errorSpan(line.text, mark.col, sameLine ? (mark.endCol ?? null) : line.length + 1) : null;
      if (span) ranges.push(Decoration.mark({ class: "cm-error-col", attributes: { "data-testid": "error-col" } }).range(line.from + span[0], line.from + span[1]));
      return Decoration.set(ranges, true);
    }
    return tr.docChanged ? Decoration.none : decorations.map(tr.changes);
  },
  provide: (field) => EditorView.decorations.from(field),
});

/** Said to screen readers on the editor (and in the `?` list): how to leave it by keyboard. */
export const EDITOR_HELP = "Python program. Tab indents; to leave the editor with the keyboard, press Escape, then Tab. Ctrl+Enter runs it.";

/** The same on a touch screen, which has no Ctrl+Enter to advertise (Run is a tap away). */
export const EDITOR_HELP_TOUCH = "Python program. Tab indents; to leave the editor with the keyboard, press Escape, then Tab.";

/** A touch screen: no hover, a coarse pointer (the CSS's `.keys-only` test too). */
export const TOUCH_QUERY = "(hover: none) and (pointer: coarse)";

/** Shown in the editor while it has the focus, where the keys act: Tab does not leave it. */
export const EDITOR_HINT = "Tab indents · Esc, then Tab: leave the editor";

export interface EditorOptions {
  parent: HTMLElement;
  doc: string;
  /** Wrap long lines instead of scrolling sideways. */
  wrap?: boolean;
  /** Ctrl/Cmd+Enter. */
  onRun: () => void;
  /** Every change of the text. */
  onChange: (source: string) => void;
  /** More keys (CodeMirror's names, e.g. "Shift-Enter"), before the default ones. */
  keys?: { key: string; run: () => void }[];
  /** The editor's accessible name, test hook and description (the playground's by default). */
  label?: string;
  testId?: string;
  help?: string;
}

/** A thin wrapper so the rest of the page never touches CodeMirror's API. */
export class Editor {
  private readonly view: EditorView;
  private readonly wrapping = new Compartment();

  constructor(options: EditorOptions) {
    const runKey = { key: "Mod-Enter", run: () => (options.onRun(), true), preventDefault: true };
    const keys = (options.keys ?? []).map(({ key, run }) => ({ key, run: () => (run(), true), preventDefault: true }));
    const extensions: Extension[] = [
      lineNumbers(),
      highlightActiveLineGutter(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      highlightActiveLine(),
      syntaxHighlighting(classHighlighter),
      python(),
      errorField,
      this.wrapping.of(options.wrap ? EditorView.lineWrapping : []),
      keymap.of([runKey, ...keys, ...defaultKeymap, ...historyKeymap, indentWithTab]),
      // tabindex: the content is focusable anyway (contenteditable); saying so lets checkers see
      // that the scrolling editor has focusable content.
      // Tab indents, so the way out is said: Escape, then Tab (CodeMirror's tab-focus mode).
      EditorView.contentAttributes.of({
        "data-testid": options.testId ?? "editor",
        "aria-label": options.label ?? "Program",
        "aria-describedby": "editor-help",
        tabindex: "0",
      }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) options.onChange(update.state.doc.toString());
      }),
    ];
    // CodeMirror injects its base styles at run time. In a document that takes a <style> element,
    // which the page's CSP (style-src 'self') refuses; in a shadow root it uses a constructed
    // stylesheet instead. Our own editor styles come from a file, loaded into the same shadow root.
    const shadow = options.parent.attachShadow({ mode: "open" });
    const sheet = document.createElement("link");
    sheet.rel = "stylesheet";
    sheet.href = new URL("../css/editor.css", import.meta.url).href;
    const mount = document.createElement("div");
    mount.className = "editor-mount";
    // The description lives in the same shadow root as the content that names it by id.
    const help = document.createElement("p");
    help.id = "editor-help";
    help.className = "sr-only";
    help.textContent = options.help ?? (window.matchMedia(TOUCH_QUERY).matches ? EDITOR_HELP_TOUCH : EDITOR_HELP);
    // The same said where the focus is, for sighted keyboard users (screen readers have the
    // description): Tab indents without end, and the way out was only in the `?` dialog.
    const hint = document.createElement("p");
    hint.className = "editor-hint";
    hint.dataset.testid = "editor-hint";
    hint.setAttribute("aria-hidden", "true");
    hint.textContent = EDITOR_HINT;
    shadow.append(sheet, help, mount, hint);
    this.view = new EditorView({
      root: shadow,
      parent: mount,
      state: EditorState.create({ doc: options.doc, extensions }),
    });
  }

  get text(): string {
    return this.view.state.doc.toString();
  }

  /** Replace the whole text (no change event is swallowed: listeners see it). */
  setText(text: string): void {
    if (text === this.text) return;
    this.view.dispatch({ changes: { from: 0, to: this.view.state.doc.length, insert: text } });
  }

  /** Highlight the error's line (and column); null clears it. */
  showError(mark: ErrorMark | null): void {
    const effects: StateEffect<unknown>[] = [setError.of(mark)];
    if (mark?.line && mark.line >= 1 && mark.line <= this.view.state.doc.lines) {
      effects.push(EditorView.scrollIntoView(this.view.state.doc.line(mark.line).from, { y: "center" }));
    }
    this.view.dispatch({ effects });
  }

  focus(): void {
    this.view.focus();
  }

  /** Wrap long lines (true) or scroll sideways (false). */
  setWrap(wrap: boolean): void {
    this.view.dispatch({ effects: this.wrapping.reconfigure(wrap ? EditorView.lineWrapping : []) });
  }
}

const WRAP_KEY = "agp.editorWrap";

/** Whether the user last asked the editor to wrap long lines (remembered across visits). */
export function wrapPreference(): boolean {
  try {
    return window.localStorage.getItem(WRAP_KEY) === "1";
  } catch {
    return false;
  }
}

/** Make `button` (aria-pressed) toggle the editor's line wrapping, and remember the choice. */
export function bindWrapToggle(button: HTMLButtonElement, editor: Editor, initial: boolean): void {
  button.setAttribute("aria-pressed", String(initial));
  button.addEventListener("click", () => {
    const wrap = button.getAttribute("aria-pressed") !== "true";
    button.setAttribute("aria-pressed", String(wrap));
    editor.setWrap(wrap);
    try {
      window.localStorage.setItem(WRAP_KEY, wrap ? "1" : "0");
    } catch {
      /* storage disabled: it lasts for this page only */
    }
  });
}
