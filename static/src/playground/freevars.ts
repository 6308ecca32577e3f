/**
 * Free variables of a program: names it reads but never assigns, imports or defines. These
 * become the bindings panel's sliders. A light lexical scan, not a parser: the server's sandbox
 * is the judge of what a program means; this only decides which inputs to offer.
 */
import { KNOWN_NAMES } from "../generated/ops.gen";

const KEYWORDS = new Set(
  ("False None True and as assert async await break class continue def del elif else except " +
    "finally for from global if import in is lambda nonlocal not or pass raise return try while " +
    "with yield").split(" "),
);

/** Names a program knows without importing them: torch, nn, F and the table's functions. */
export { KNOWN_NAMES };

/** Python's builtins a learner's expression may call, and the modules lessons import. */
const PYTHON = (
  "np math print range len sum round abs min max enumerate zip list tuple float int bool str " +
  "dict isinstance sorted reversed pow True False None"
).split(" ");

/** Names the sandbox provides: never an input. */
const PROVIDED = new Set([...KNOWN_NAMES, ...PYTHON]);

/** Strip comments and string literals so their words do not count as names. */
function stripStringsAndComments(source: string): string {
  return source.replace(/("""[\s\S]*?"""|'''[\s\S]*?'''|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|#[^\n]*)/g, " ");
}

/** Names bound by the program itself: assignments, for targets, imports, def/params, with-as. */
function boundNames(code: string): Set<string> {
  const bound = new Set<string>();
  const addList = (list: string) => {
    for (const name of list.split(/[\s,()[\]*]+/)) if (/^[A-Za-z_]\w*$/.test(name)) bound.add(name);
  };
  for (const m of code.matchAll(/^[ \t]*([A-Za-z_][\w\s,()[\]]*?)\s*(?:[-+*/@%]|\/\/|\*\*)?=(?!=)/gm)) addList(m[1] ?? "");
  for (const m of code.matchAll(/\bfor\s+([\w\s,()]+?)\s+in\b/g)) addList(m[1] ?? "");
  for (const m of code.matchAll(/\bas\s+([A-Za-z_]\w*)/g)) bound.add(m[1] ?? "");
  for (const m of code.matchAll(/^[ \t]*import\s+([\w.]+)/gm)) bound.add((m[1] ?? "").split(".")[0] ?? "");
  for (const m of code.matchAll(/^[ \t]*from\s+[\w.]+\s+import\s+([\w\s,()]+)/gm)) addList(m[1] ?? "");
  for (const m of code.matchAll(/\bdef\s+([A-Za-z_]\w*)\s*\(([^)]*)\)/g)) {
    bound.add(m[1] ?? "");
    addList((m[2] ?? "").replace(/=[^,]*/g, ""));
  }
  for (const m of code.matchAll(/\blambda\s+([^:]*):/g)) addList(m[1] ?? "");
  return bound;
}

/** The free variables of `source`, in order of first use. */
export function freeVariables(source: string): string[] {
  const code = stripStringsAndComments(source);
  const bound = boundNames(code);
  const seen: string[] = [];
  // A name preceded by '.' is an attribute; one followed by '=' inside a call is a keyword
  // argument; one followed by '(' is a function called (never a number to slide).
  for (const m of code.matchAll(/(?<![.\w])([A-Za-z_]\w*)(?!\w)(?!\s*=(?!=))(?!\s*\()/g)) {
    const name = m[1] ?? "";
    if (KEYWORDS.has(name) || PROVIDED.has(name) || bound.has(name) || seen.includes(name)) continue;
    if (/^\d/.test(name)) continue;
    seen.push(name);
  }
  return seen;
}

/**
 * True when `source` is a single expression such as `(w*x + b - y)**2` (not a program with
 * statements). Only an expression's free variables become inputs: in a program an unknown
 * name is a mistake the learner should see as a NameError.
 */
export function isExpression(source: string): boolean {
  const lines = stripStringsAndComments(source)
    .split("\n")
    .filter((line) => line.trim() !== "");
  if (lines.length !== 1) return false;
  const line = lines[0] ?? "";
  if (/^\s*(import|from|def|class|for|while|if|with|return|print|del|assert|raise|try|pass)\b/.test(line)) return false;
  return !/(^|[^=!<>])=(?!=)/.test(line.replace(/\w+\s*=(?!=)(?=[^()]*\))/g, ""));
}

/**
 * Starting values for the inputs `names` that `bound` does not value yet: in the inputs' order,
 * each the first of `defaults` that no other input holds, so that every node of a new
 * expression opens at its own value (all inputs at 1 open `(a+b)*(a-b)` at 0, with `1·0 = 0`
 * captions). Past the table, `fallback`.
 */
export function startingValues(names: string[], bound: Record<string, number>, defaults: readonly number[], fallback: number): Record<string, number> {
  const taken = new Set(names.filter((name) => name in bound).map((name) => bound[name]));
  const values: Record<string, number> = {};
  for (const name of names) {
    if (name in bound) continue;
    const value = defaults.find((v) => !taken.has(v)) ?? fallback;
    taken.add(value);
    values[name] = value;
  }
  return values;
}
