"""What watching a program's own autograd costs: a 2,000-node ``Value`` graph.

Each program runs in this process through the worker's own ``run_program`` (no jail, no pipe:
the same code a jailed worker runs), once with the observation of its ``Value`` objects and
once without (``observe_values: False``: the class decorator then does nothing), alternately,
and the medians of the CPU time are compared (CPU time, not wall time: this machine is shared
and noisy, and both sides are single-threaded Python).

- **run**: the program as it runs, observation included (naming, detection, the swapped
  per-node functions, the snapshots): the time a learner's program takes (target ≤ 1.5×);
- **run + graph**: plus turning the observed pass into the API's ``Graph`` JSON with its walk
  (a formula per contribution), which a tensor program's graph costs too.

Three programs of about 2,000 nodes: a training step of micrograd's MLP (what a learner
writes), and two bare chains that do nothing but build the graph and walk it back, where the
observation weighs most: micrograd's ``Value`` (parents in a set, a recursive topological
sort) and the lessons' lean tuple-and-closure ``Value`` (an iterative sort).
"""

from __future__ import annotations

import gc
import statistics
import time
from typing import Any

from server.examples import example

MICROGRAD_MLP = example("micrograd-mlp").source
_MICROGRAD_VALUE = MICROGRAD_MLP.split("class Neuron:")[0]

MICROGRAD_2000 = (
    _MICROGRAD_VALUE
    + """
xs = [Value(0.002 * i) for i in range(500)]
w = Value(0.5)
total = Value(0.0)
for x in xs:
    total = total + (w * x).tanh()
total.backward()
print(round(w.grad, 6))
"""
)

# The gallery's lean Value with its backward walk made iterative: a 666-deep recursive
# topological sort would pass the sandbox's recursion limit.
_LEAN_VALUE = example("seed-tiny-autograd").source.split("    def backward(self):")[0]

LEAN_2000 = (
    _LEAN_VALUE
    + """    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            v, done = stack.pop()
            if done:
                order.append(v)
            elif v not in seen:
                seen.add(v)
                stack.append((v, True))
                stack.extend((p, False) for p in v.parents)
        self.grad = 1.0
        for v in reversed(order):
            v.backward_fn()
w = Value(0.5)
total = Value(0.0)
for i in range(666):
    total = total + w * Value(0.001 * i)
total.backward()
print(round(w.grad, 6))
"""
)

_MICROGRAD_CLASSES = MICROGRAD_MLP.split("random.seed(1)")[0]

MICROGRAD_MLP_STEP = (
    _MICROGRAD_CLASSES
    + """
random.seed(0)
xs = [[random.uniform(-1, 1) for _ in range(3)] for _ in range(8)]
ys = [1.0 if sum(x) > 0 else -1.0 for x in xs]
model = MLP(3, [8, 8, 1])
ypred = [model(x) for x in xs]
loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
for p in model.parameters():
    p.grad = 0
loss.backward()
for p in model.parameters():
    p.data -= 0.05 * p.grad
print(round(loss.data, 6))
"""
)

PROGRAMS = {
    "a micrograd MLP training step: MLP(3, [8, 8, 1]) on 8 points": MICROGRAD_MLP_STEP,
    "micrograd's Value, a bare chain: total + tanh(w·x), 500 times": MICROGRAD_2000,
    "the lessons' lean Value (tuples, closures), a bare chain: total + w·x": LEAN_2000,
}


def measure(source: str, repeats: int = 25) -> dict[str, Any]:
    """Median CPU ms of the run and of run + graph, observed and not, and the graph's size."""
    from server.program import imports as modules
    from server.program import runner
    from server.program.output import StringSink
    from server.program.runner import run_program
    from server.program.values import graph as values_graph

    loaded = modules.preload()
    gc.collect()
    gc.freeze()  # as the zygote does before it forks workers
    exporting = [0.0]
    export = values_graph.export_pass

    def timed_export(record: Any) -> dict[str, Any]:
        started = time.process_time()
        try:
            return export(record)
        finally:
            exporting[0] += time.process_time() - started

    samples: dict[bool, tuple[list[float], list[float]]] = {True: ([], []), False: ([], [])}
    nodes = 0
    runner.values_graph.export_pass = timed_export  # type: ignore[attr-defined]
    try:
        for i in range(repeats + 2):
            for observe in (True, False):
                exporting[0] = 0.0
                started = time.process_time()
                result = run_program(
                    {"source": source, "observe_values": observe}, StringSink(), loaded, False
                )
                total = time.process_time() - started
                if not result["ok"]:
                    raise RuntimeError(f"the benchmark program failed: {result['error']}")
                if observe:
                    nodes = len(result["graph"]["nodes"]) if result["graph"] else 0
                if i >= 2:  # two warm-up rounds
                    samples[observe][0].append(total - exporting[0])
                    samples[observe][1].append(total)
    finally:
        runner.values_graph.export_pass = export  # type: ignore[attr-defined]
    med = statistics.median
    on_run, on_total = (med(s) * 1000 for s in samples[True])
    off_run, off_total = (med(s) * 1000 for s in samples[False])
    return {
        "nodes": nodes,
        "off_ms": off_run,
        "on_run_ms": on_run,
        "on_total_ms": on_total,
        "run_ratio": on_run / off_run,
        "total_ratio": on_total / off_total,
    }


def main() -> None:
    print(
        "| program (CPU time, medians) | unobserved | observed: run | ratio (target ≤ 1.5×) "
        "| run + Graph JSON | ratio |"
    )
    print("|---|---|---|---|---|---|")
    for title, source in PROGRAMS.items():
        r = measure(source)
        mark = "✓" if r["run_ratio"] <= 1.5 else "✗"
        print(
            f"| {title} ({r['nodes']} drawn) | {r['off_ms']:.1f} ms | {r['on_run_ms']:.1f} ms "
            f"| {r['run_ratio']:.2f}× {mark} | {r['on_total_ms']:.1f} ms "
            f"| {r['total_ratio']:.2f}× |"
        )


if __name__ == "__main__":
    main()
