/** Which characters of a program line an error marks (DOM-free, used by the editor). */

/**
 * The characters to underline on `text` (one line) for an error at 1-based `col`: up to `endCol`
 * when the server says where the failing expression ends, else the name or number at `col`, else
 * the one character there. Returns 0-based [from, to) offsets, or null when `col` is off the line.
 */
export function errorSpan(text: string, col: number, endCol: number | null): [number, number] | null {
  const from = col - 1;
  if (from < 0 || from >= text.length) return null;
  if (endCol !== null && endCol > col) return [from, Math.min(text.length, endCol - 1)];
  const word = /^[\w.]+/.exec(text.slice(from));
  return [from, from + (word ? word[0].length : 1)];
}
