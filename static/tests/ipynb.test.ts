/** nbformat 4 in and out (the export is also validated by Python's nbformat in the e2e tests). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { IpynbError, lines, parseIpynb, toIpynb, type CellOutputs } from "../src/notebook/ipynb";

const colab = {
  nbformat: 4,
  nbformat_minor: 0,
  metadata: { colab: { provenance: [] }, kernelspec: { name: "python3", display_name: "Python 3" } },
  cells: [
    { cell_type: "markdown", metadata: { id: "a" }, source: ["# Gradients\n", "A *lesson*."] },
    { cell_type: "code", metadata: {}, execution_count: 3, outputs: [], source: ["!pip install torch\n", "import torch\n", "%matplotlib inline"] },
    { cell_type: "code", metadata: {}, execution_count: null, outputs: [], source: "x = torch.ones(2)" },
    { cell_type: "raw", metadata: {}, source: "raw text" },
  ],
};

test("a Colab notebook's cells come in; IPython lines are commented out and counted", () => {
  const imported = parseIpynb(JSON.stringify(colab));
  assert.equal(imported.magics, 2);
  assert.deepEqual(imported.cells, [
    { kind: "markdown", source: "# Gradients\nA *lesson*." },
    {
      kind: "code",
      source: "# !pip install torch  (IPython, not Python: not run here)\nimport torch\n# %matplotlib inline  (IPython, not Python: not run here)",
    },
    { kind: "code", source: "x = torch.ones(2)" },
    { kind: "markdown", source: "```\nraw text\n```" },
  ]);
});

test("what is not an nbformat 4 notebook says why", () => {
  const cases: [string, RegExp][] = [
    ["{nope", /not JSON/],
    ["[]", /not a JSON object/],
    [JSON.stringify({ nbformat: 3, worksheets: [] }), /nbformat 3: this page opens nbformat 4/],
    [JSON.stringify({ nbformat: 4 }), /no list of cells/],
    [JSON.stringify({ nbformat: 4, cells: [{ cell_type: "code", source: 3 }] }), /cell 1: its source/],
    [JSON.stringify({ nbformat: 4, cells: [{ cell_type: "widget", source: "" }] }), /unknown cell type "widget"/],
  ];
  for (const [text, why] of cases) {
    try {
      parseIpynb(text);
      assert.fail(`accepted ${text}`);
    } catch (error) {
      assert.ok(error instanceof IpynbError, String(error));
      assert.match(error.message, why);
    }
  }
});

test("the export is nbformat 4.5 with each run cell's outputs", () => {
  const cells = [
    { kind: "markdown" as const, source: "# Title\ntext" },
    { kind: "code" as const, source: "print(1)\n2" },
    { kind: "code" as const, source: "1 / 0" },
    { kind: "code" as const, source: "never_ran()" },
  ];
  const runs = new Map<number, CellOutputs>([
    [1, { number: 1, stdout: "1\n", result: "2", error: null }],
    [2, { number: 2, stdout: "", result: null, error: { type: "ZeroDivisionError", message: "division by zero", traceback: 'Traceback (most recent call last):\n  File "<cell 2>", line 1' } }],
  ]);
  const notebook = toIpynb(cells, runs) as { nbformat: number; nbformat_minor: number; cells: Record<string, unknown>[] };
  assert.equal(notebook.nbformat, 4);
  assert.equal(notebook.nbformat_minor, 5);
  assert.deepEqual(notebook.cells.map((c) => c.id), ["cell-1", "cell-2", "cell-3", "cell-4"]);
  assert.deepEqual(notebook.cells[0], { cell_type: "markdown", id: "cell-1", metadata: {}, source: ["# Title\n", "text"] });
  assert.deepEqual(notebook.cells[1]?.outputs, [
    { output_type: "stream", name: "stdout", text: ["1\n"] },
    { output_type: "execute_result", execution_count: 1, data: { "text/plain": ["2"] }, metadata: {} },
  ]);
  assert.equal(notebook.cells[1]?.execution_count, 1);
  assert.deepEqual(notebook.cells[2]?.outputs, [
    { output_type: "error", ename: "ZeroDivisionError", evalue: "division by zero", traceback: ["Traceback (most recent call last):", '  File "<cell 2>", line 1'] },
  ]);
  assert.deepEqual([notebook.cells[3]?.execution_count, notebook.cells[3]?.outputs], [null, []]);
  // and it comes back in as the same cells
  assert.deepEqual(parseIpynb(JSON.stringify(notebook)).cells, cells);
});

test("lines keep their newlines, the last without one", () => {
  assert.deepEqual(lines("a\n\nb\n"), ["a\n", "\n", "b\n"]);
  assert.deepEqual(lines(""), []);
});
