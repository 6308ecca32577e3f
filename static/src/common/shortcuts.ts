/**
 * Keyboard shortcuts: one table says which key does what; it drives both the page-wide key
 * handler and the list shown under `?`. Keys work anywhere on the page except where they type or
 * already mean something: the editor and other text fields, selects and sliders (arrows), and
 * Space / Enter on a focused button or link.
 */
import { el } from "./dom";

export type Action =
  | "next"
  | "prev"
  | "over"
  | "backOver"
  | "play"
  | "first"
  | "last"
  | "forward"
  | "present"
  | "practice"
  | "leave"
  | "help"
  | "run"
  | "zoomIn"
  | "zoomOut"
  | "fit"
  | "modules";

interface Shortcut {
  /** Key names as KeyboardEvent.key spells them; "Shift+" for shifted arrows. */
  keys: string[];
  /** How the list under `?` writes them. */
  label: string;
  action: Action;
  what: string;
}

export const SHORTCUTS: Shortcut[] = [
  { keys: ["ArrowRight"], label: "→", action: "next", what: "next step of the backward walk" },
  { keys: ["ArrowLeft"], label: "←", action: "prev", what: "previous step" },
  { keys: ["Shift+ArrowRight"], label: "Shift + →", action: "over", what: "step over a collapsed module as one step" },
  { keys: ["Shift+ArrowLeft"], label: "Shift + ←", action: "backOver", what: "step back over a module" },
  { keys: [" "], label: "Space", action: "play", what: "play / pause the walk" },
  { keys: ["Home"], label: "Home", action: "first", what: "start of the walk (forward pass done)" },
  { keys: ["End"], label: "End", action: "last", what: "end of the walk" },
  { keys: ["f", "F"], label: "f", action: "forward", what: "replay the forward pass" },
  { keys: ["m", "M"], label: "m", action: "modules", what: "expand / collapse every module and series" },
  { keys: ["+", "="], label: "+", action: "zoomIn", what: "zoom in" },
  { keys: ["-", "_"], label: "−", action: "zoomOut", what: "zoom out" },
  { keys: ["0"], label: "0", action: "fit", what: "fit the whole graph" },
  { keys: ["p", "P"], label: "p", action: "present", what: "presentation mode on / off" },
  { keys: ["g", "G"], label: "g", action: "practice", what: "practice mode: you compute each gradient (Enter checks)" },
  { keys: ["Escape"], label: "Esc", action: "leave", what: "close details, leave presentation mode" },
  { keys: ["?"], label: "?", action: "help", what: "this list" },
  { keys: ["Ctrl+Enter"], label: "Ctrl + Enter", action: "run", what: "run the program (in the editor too)" },
];

/** Extra lines for the list: keys handled by the focused element, not page-wide. */
const FOCUS_KEYS: [string, string][] = [
  ["Esc, then Tab", "leave the editor (in it, Tab indents)"],
  ["Tab", "reach the graph's nodes, then the controls"],
  ["↑ / ↓", "on a node: the previous / next node"],
  ["Enter", "on a node: its details (a module: expand it)"],
  ["Enter", "practice: in the field, check the gradient typed; on Next step, go on"],
];

/** True when a key press belongs to the focused control (so page shortcuts must not steal it). */
export function ownedByFocus(event: KeyboardEvent): boolean {
  // composedPath()[0] sees through the editor's shadow root to the element really typed into.
  const target = event.composedPath()[0] ?? event.target;
  if (!(target instanceof Element)) return false;
  if (target instanceof HTMLElement && target.isContentEditable) return true;
  if (target.closest(".editor-host, .cm-editor")) return true;
  // A focused splitter moves with the arrows, Home and End.
  if (target.closest("[role=separator]") && /^(Arrow|Home$|End$)/.test(event.key)) return true;
  const tag = target.tagName;
  if (tag === "TEXTAREA" || tag === "SELECT") return true;
  if (tag === "INPUT") {
    const type = (target as HTMLInputElement).type;
    // A checkbox or button input only owns Space / Enter; text fields and sliders own all keys.
    if (type === "checkbox" || type === "button" || type === "submit") return event.key === " " || event.key === "Enter";
    return true;
  }
  if ((tag === "BUTTON" || tag === "A" || tag === "SUMMARY") && (event.key === " " || event.key === "Enter")) return true;
  // A modal dialog owns every key (Escape closes it natively).
  return document.querySelector("dialog[open]") !== null;
}

/** The shortcut a key press asks for, or null. */
export function actionFor(event: KeyboardEvent): Action | null {
  if (event.altKey || event.metaKey) return null;
  const name = `${event.ctrlKey ? "Ctrl+" : ""}${event.shiftKey && event.key.startsWith("Arrow") ? "Shift+" : ""}${event.key}`;
  return SHORTCUTS.find((s) => s.keys.includes(name))?.action ?? null;
}

/** Fill the `?` dialog's list from the table. */
export function renderShortcutList(list: HTMLElement): void {
  const rows: [string, string][] = [...SHORTCUTS.map((s): [string, string] => [s.label, s.what]), ...FOCUS_KEYS];
  const dl = el("dl", "shortcut-list");
  for (const [keys, what] of rows) {
    const dt = el("dt");
    dt.append(el("kbd", "", keys));
    dl.append(dt, el("dd", "", what));
  }
  list.replaceChildren(dl);
}
