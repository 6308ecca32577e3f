/** The notebook's model: numbering, requests, outputs that belong to their code, stale marks. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { NotebookModel } from "../src/notebook/model";
import { packCells, PackError, unpackCells } from "../src/notebook/state";
import type { NotebookRunResponse } from "../src/api/types";

const cells = [
  { kind: "markdown" as const, source: "# Intro" },
  { kind: "code" as const, source: "a = 1" },
  { kind: "code" as const, source: "b = a + 1" },
  { kind: "markdown" as const, source: "text" },
  { kind: "code" as const, source: "print(b)" },
  { kind: "code" as const, source: "print(b * 2)" },
];

function answer(upTo: number, error: { cell: number } | null = null): NotebookRunResponse {
  const ran = error ? error.cell : upTo;
  return {
    ok: error === null,
    cell: ran,
    cells: Array.from({ length: ran }, (_, i) => ({ cell: i + 1, ok: !(error && i + 1 === ran), stdout: `out ${i + 1}\n`, result: null })),
    stdout: "",
    error: error ? { type: "NameError", message: "…", line: 1, col: 1, cell: error.cell } : null,
    graph: null,
    passes: [],
    device: "cpu",
    notice: error ? null : `Cell 2, line 1: UserWarning: careful\nThe program did not call backward()`,
    timing_ms: {},
  };
}

test("code cells are numbered among themselves; a request sends cells 1..k", () => {
  const model = new NotebookModel(cells);
  assert.deepEqual(model.cells.map((_, i) => model.numberOf(i)), [null, 1, 2, null, 3, 4]);
  assert.equal(model.indexOf(3), 4);
  assert.deepEqual(model.request(4), { cells: ["a = 1", "b = a + 1", "print(b)"], cell: 3 });
  assert.throws(() => model.request(0));
});

test("a run's outputs go to each cell that ran, the graph to the cell shown", () => {
  const model = new NotebookModel(cells);
  const sent = model.request(4).cells;
  assert.equal(model.apply(answer(3), sent, 0), 4);
  assert.deepEqual(model.cells.map((c) => c.output?.stdout ?? null), [null, "out 1\n", "out 2\n", null, "out 3\n", null]);
  assert.equal(model.cells[4]?.graph?.response.cell, 3);
  assert.equal(model.cells[1]?.graph, null);
  // a notice that names its cell goes there; the others to the cell shown
  assert.equal(model.cells[2]?.output?.notice, "Cell 2, line 1: UserWarning: careful");
  assert.equal(model.cells[4]?.output?.notice, "The program did not call backward()");
});

test("editing cell j marks j..n stale, nothing before it", () => {
  const model = new NotebookModel(cells);
  model.apply(answer(4), model.request(5).cells, 0);
  const stale = () => model.cells.map((_, i) => model.outputStale(i));
  assert.deepEqual(stale(), [false, false, false, false, false, false]);
  model.edit(2, "b = a + 2");
  assert.deepEqual(stale(), [false, false, true, false, true, true]);
  assert.equal(model.graphStale(5), true);
  model.edit(2, "b = a + 1"); // back as it ran: fresh again
  assert.deepEqual(stale(), [false, false, false, false, false, false]);
  // a code cell inserted above renumbers what follows: stale
  model.insert(3, "code", "c = 3");
  assert.equal(model.outputStale(5), true);
  assert.equal(model.outputStale(2), false);
  // another seed: everything that ran is stale
  const other = new NotebookModel(cells);
  other.apply(answer(2), other.request(2).cells, 0);
  other.seed = 1;
  assert.equal(other.outputStale(1), true);
});

test("an error stops the run in its cell: that cell holds it and the graph", () => {
  const model = new NotebookModel(cells);
  assert.equal(model.apply(answer(4, { cell: 2 }), model.request(5).cells, 0), 2);
  assert.equal(model.cells[2]?.output?.error?.type, "NameError");
  assert.equal(model.cells[4]?.output, null); // never ran
});

test("Stop keeps what each cell printed; the one running is marked stopped", () => {
  const model = new NotebookModel(cells);
  const printed = new Map([
    [1, "one\n"],
    [2, "two, then stopped"],
  ]);
  model.stopped(printed, model.request(4).cells, 0, 1.25);
  assert.deepEqual([model.cells[1]?.output?.stopped, model.cells[2]?.output?.stopped], [false, true]);
  assert.equal(model.cells[2]?.output?.stdout, "two, then stopped");
  assert.equal(model.cells[2]?.output?.notice, "Stopped after 1.3 s.");
});

test("cells travel in a link, compressed when long, and a damaged link says so", async () => {
  const short = await packCells(cells);
  assert.equal(short[0], "j");
  assert.deepEqual(await unpackCells(short), cells);
  const long = [...cells, { kind: "code" as const, source: "x = 1\n".repeat(400) }];
  const packed = await packCells(long);
  assert.equal(packed[0], "z");
  assert.ok(packed.length < 400, `${packed.length} characters`);
  assert.deepEqual(await unpackCells(packed), long);
  for (const bad of ["q123", "z!!!", "zAAAA", `j${btoa("[1]")}`]) {
    await assert.rejects(unpackCells(bad), PackError);
  }
});
