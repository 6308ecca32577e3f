/**
 * The notice for an output cut at the budget (`max_output_chars`). The server keeps the head
 * and the tail of what a program printed and marks the cut between them in the text; the
 * notice says so, with how much was printed in all. DOM-free.
 */

/** The line the server writes where an output's middle was cut. */
export const CUT_MARK = /\n… \[[\d,]+ characters cut: budget max_output_chars\] …\n/;

const count = (n: number): string => n.toLocaleString("en-US");

/** The characters of `text` (code points, as the server counts them). */
const length = (text: string): number => [...text].length;

/**
 * What a cut output's notice says: `stdout` as kept, `printed` the characters printed in all
 * (when known), `who` printed them ("the program", "the cells").
 */
export function outputCutNotice(stdout: string, printed: number | null | undefined, who: string): string {
  const cut = CUT_MARK.exec(stdout);
  const shown = cut
    ? `the first ${count(length(stdout.slice(0, cut.index)))} and the last ${count(length(stdout.slice(cut.index + cut[0].length)))} are shown (the cut is marked between them)`
    : `the first ${count(length(stdout))} are shown`;
  const what = typeof printed === "number" ? `${who} printed ${count(printed)} characters, of which ${shown}` : `${shown[0]!.toUpperCase()}${shown.slice(1)}`;
  return `Output cut at the budget: ${what}. Printing does not stop a run.`;
}
