/** Practice mode's model: what each step asks, how far the walk may go, what stays hidden, the
 * score and the review; and the words cut from the caption (question, hint). */
import assert from "node:assert/strict";
import { test } from "node:test";
import { accumulationMarks, walkFrame } from "../src/graph/model";
import { hintLine, questionLine, stepLines } from "../src/practice/questions";
import { isExercise } from "../src/notebook/model";
import { maskFrame, PracticeSession } from "../src/practice/session";
import type { Graph, GraphNode } from "../src/api/types";

const node = (id: string, name: string, grad: number | null, leaf = false): GraphNode =>
  ({ id, name, value: 0, grad, is_leaf: leaf, requires_grad: true, shape: [] }) as unknown as GraphNode;

/** x feeds u = x·2 and v = x + 1; loss = u·v at x = 3 (the walk as the engine records it). */
function twoConsumers(): Graph {
  return {
    nodes: [node("n0", "x", 14, true), node("n2", "u", 4), node("n4", "v", 6), node("n5", "loss", 1)],
    edges: [],
    root: "n5",
    walk: [
      {
        node: "n5",
        grad_output: 1,
        formula: "∂loss/∂u = v · ∂loss/∂loss = 4 · 1 = 4\n∂loss/∂v = u · ∂loss/∂loss = 6 · 1 = 6",
        contributions: [
          { to: "n2", local: "4", local_symbolic: "v", grad: 4, accumulated_grad: 4 },
          { to: "n4", local: "6", local_symbolic: "u", grad: 6, accumulated_grad: 6 },
        ],
      },
      { node: "n4", grad_output: 6, formula: "∂loss/∂x = 1 · ∂loss/∂v = 1 · 6 = 6", contributions: [{ to: "n0", local: "1", grad: 6, accumulated_grad: 6 }] },
      {
        node: "n2",
        grad_output: 4,
        formula: "∂loss/∂x += 2 · ∂loss/∂u = 2 · 4 = 8  → 6 + 8 = 14",
        contributions: [{ to: "n0", local: "2", grad: 8, accumulated_grad: 14 }],
      },
    ],
    practice: [
      {
        step: 0,
        asks: [
          { to: "n2", answer: 4, shape: [], mistakes: [{ kind: "sign", value: -4 }] },
          { to: "n4", answer: 6, shape: [], mistakes: [{ kind: "sign", value: -6 }] },
        ],
      },
      { step: 1, asks: [{ to: "n0", answer: 6, shape: [], mistakes: [{ kind: "upstream_forgotten", value: 1 }] }] },
      { step: 2, asks: [{ to: "n0", answer: 14, shape: [], mistakes: [{ kind: "accumulation", value: 8 }] }] },
    ],
  };
}

test("the walk stops at the first step still asking; each question closes when right", () => {
  const graph = twoConsumers();
  const session = new PracticeSession(graph, graph.practice ?? []);
  assert.equal(session.limit(), 1);
  const u = session.current(1);
  assert.equal(u?.ask.to, "n2");
  assert.equal(session.check(u!, "-4"), "sign");
  assert.equal(session.limit(), 1);
  assert.equal(session.check(u!, "4"), "right");
  assert.equal(session.current(1)?.ask.to, "n4"); // the step's second question
  session.reveal(session.current(1)!);
  assert.equal(session.limit(), 2);
  assert.equal(session.check(session.current(2)!, "6"), "right");
  assert.equal(session.check(session.current(3)!, "8"), "accumulation");
  assert.equal(session.check(session.current(3)!, "14"), "right");
  assert.equal(session.limit(), 3);
  assert.deepEqual(session.score(), { firstTry: 1, asked: 4, total: 4 });
  // the review: steps 1 (sign, then shown) and 3 (accumulation), round again after the last
  assert.equal(session.nextMistake(1), 3);
  assert.equal(session.nextMistake(3), 1);
});

test("a link opening the walk further on gives the steps before it", () => {
  const graph = twoConsumers();
  const session = new PracticeSession(graph, graph.practice ?? []);
  session.giveBefore(3);
  assert.equal(session.limit(), 3);
  assert.deepEqual(session.score(), { firstTry: 0, asked: 0, total: 1 });
  assert.equal(session.nextMistake(3), null);
});

test("the asked gradient is hidden: put back to what the node held before the step", () => {
  const graph = twoConsumers();
  const marks = accumulationMarks(graph);
  const session = new PracticeSession(graph, graph.practice ?? []);
  session.giveBefore(3);
  const frame = maskFrame(walkFrame(graph, 3, marks), graph, marks, session.hiddenAt(3));
  assert.equal(frame.grads.get("n0"), 6); // not 14: the 6 it held from v's step
  assert.deepEqual([...(frame.asked ?? new Map()).entries()], [["n0", 6]]);
  const first = maskFrame(walkFrame(graph, 1, marks), graph, marks, session.hiddenAt(1));
  assert.equal(first.grads.get("n2"), 4); // given by the link: shown
  const fresh = new PracticeSession(graph, graph.practice ?? []);
  const asked = maskFrame(walkFrame(graph, 1, marks), graph, marks, fresh.hiddenAt(1));
  assert.equal(asked.grads.has("n2"), false);
  assert.equal(asked.grads.has("n4"), false);
  assert.equal(asked.grads.get("n5"), 1); // the step's own gradient is known
});

test("a hidden line becomes its question; the hint keeps the symbols, not the numbers", () => {
  const graph = twoConsumers();
  const [line] = stepLines(graph.walk[2]!);
  assert.equal(line?.to, "n0");
  assert.equal(questionLine(line!).text, "∂loss/∂x += ?");
  assert.equal(hintLine(line!)?.text, "∂loss/∂x += 2 · ∂loss/∂u");
  const lines = stepLines(graph.walk[0]!);
  assert.deepEqual(lines.map((l) => l.to), ["n2", "n4"]);
  assert.equal(hintLine(lines[1]!)?.text, "∂loss/∂v = u · ∂loss/∂loss");
});

test("a code cell whose first line is `# exercise` is an exercise", () => {
  assert.ok(isExercise("# exercise\nloss.backward()"));
  assert.ok(isExercise("\n  #Exercise: the chain rule\nx = 1"));
  assert.ok(!isExercise("x = 1  # exercise"));
  assert.ok(!isExercise("# exercises follow\nx = 1"));
});
