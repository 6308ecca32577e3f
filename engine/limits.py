"""Budgets for untrusted programs, checked *before* the engine allocates or multiplies.

The sandbox enters ``limited(Limits(...))`` around a user program; the engine's op entry point
and factories call into the active budget (one ``is not None`` test when none is active).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import numpy as np


class BudgetExceeded(RuntimeError):
    """A program went over one of its budgets; the message names the budget."""


@dataclass
class Limits:
    max_tensor_elements: int = 1_000_000
    max_total_elements: int = 20_000_000
    max_flops: int = 2_000_000_000
    max_graph_nodes: int = 20_000
    # running totals
    total_elements: int = field(default=0, init=False)
    flops: int = field(default=0, init=False)
    graph_nodes: int = field(default=0, init=False)

    def alloc(self, n: int) -> None:
        if n > self.max_tensor_elements:
            raise BudgetExceeded(
                f"tensor budget exceeded: a tensor of {n:,} elements is over the limit of "
                f"{self.max_tensor_elements:,} elements per tensor"
            )
        self.total_elements += n
        if self.total_elements > self.max_total_elements:
            raise BudgetExceeded(
                f"memory budget exceeded: the program allocated more than "
                f"{self.max_total_elements:,} tensor elements in total"
            )

    def charge(self, flops: int) -> None:
        self.flops += flops
        if self.flops > self.max_flops:
            raise BudgetExceeded(
                f"compute budget exceeded: more than {self.max_flops:,} floating-point operations"
            )

    def before(self, op: str, arrays: list[Any], attrs: dict[str, Any] | None) -> None:
        """Estimate an op's output size and FLOPs from shapes alone, and refuse it if over.

        Runs before every recorded op of a program, so it stays in plain Python on tuples
        (math.prod, not NumPy's reductions, which cost microseconds a call on small shapes)."""
        shapes = [a.shape for a in arrays if hasattr(a, "shape")]
        if op == "matmul" and len(shapes) == 2:
            a, b = shapes
            a2 = a if len(a) > 1 else (1, *a)
            b2 = b if len(b) > 1 else (*b, 1)
            batch = np.broadcast_shapes(a2[:-2], b2[:-2]) if len(a2) > 2 or len(b2) > 2 else ()
            out = math.prod(batch) * a2[-2] * b2[-1]
            self.alloc(out)
            self.charge(2 * out * a2[-1])
            return
        if op == "linear":
            x, w = shapes[0], shapes[1]
            rows = math.prod(x[:-1]) if len(x) > 1 else 1
            self.alloc(rows * w[0])
            self.charge(2 * rows * w[0] * w[1])
            return
        if op == "expand" and attrs:
            self.charge(math.prod(attrs["shape"]))
            return
        if op == "einsum" and attrs:  # every index combination once per operand pair
            sizes: dict[str, int] = {}
            for sub, shape in zip(attrs["inputs"], shapes, strict=False):
                sizes.update(zip(sub, shape, strict=False))
            self.alloc(math.prod(sizes[c] for c in attrs["output"]))
            self.charge(2 * math.prod(sizes.values()) * max(1, len(shapes) - 1))
            return
        if op == "diag" and attrs and len(shapes) == 1 and len(shapes[0]) == 1:
            n = shapes[0][0] + abs(int(attrs["k"]))  # a vector becomes an n x n matrix
            self.alloc(n * n)
            self.charge(n * n)
            return
        if len(shapes) > 1 and op not in ("cat", "stack"):
            first = shapes[0]
            if all(s == first for s in shapes):
                out = math.prod(first)
            else:
                try:
                    out = math.prod(np.broadcast_shapes(*shapes))
                except ValueError:
                    return  # the op itself reports the shape mismatch
        else:
            out = builtins_sum(math.prod(s) for s in shapes) if shapes else 1
        self.alloc(out)
        self.charge(out)

    def after(self, out: Any) -> None:
        """Nothing to do after the fact: every size was checked before."""

    def node(self) -> None:
        self.graph_nodes += 1
        if self.graph_nodes > self.max_graph_nodes:
            raise BudgetExceeded(
                f"graph budget exceeded: more than {self.max_graph_nodes:,} recorded operations"
            )

    def check_nested(self, data: Any) -> None:
        """Bound the size of a nested list before NumPy walks it."""
        count = 0
        stack = [data]
        while stack:
            x = stack.pop()
            if isinstance(x, list | tuple):
                count += len(x)
                if count > self.max_tensor_elements:
                    self.alloc(count)
                stack.extend(y for y in x if isinstance(y, list | tuple))


def builtins_sum(it: Any) -> int:
    total = 0
    for x in it:
        total += x
    return total


active: Limits | None = None


@contextmanager
def limited(limits: Limits) -> Iterator[Limits]:
    """Run a block under these budgets."""
    global active
    prev = active
    active = limits
    try:
        yield limits
    finally:
        active = prev
