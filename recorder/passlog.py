"""The pass log: an observer of the backward loop that keeps the passes a program's backward
calls ran, as exported graphs with their walks (the first ones as they happen, and the latest).

engine.core's ``run_backward`` tells the observer active in its thread
(``engine.core.observing``) what each pass ran: a walked pass through a :class:`PassWalk` (each node's gradient, what it sent
each input, what a leaf's ``.grad`` became), an unwalked one as the gradient each node received.
``recorder.record_passes`` puts it together with the graph's export, the freeze of a pass's
leaves and the replay of the latest pass.
"""

from __future__ import annotations

from collections.abc import Callable
from time import perf_counter
from typing import Any

import numpy as np

from engine.core import Node, Walk, program_code


class WalkStep:
    """One node's backward as the engine ran it (arrays are snapshots)."""

    __slots__ = ("contributions", "grad_output", "node")

    def __init__(self, node: Node, grad_output: Any) -> None:
        self.node = node
        self.grad_output = grad_output
        # (input position, input tensor, gradient sent, receiver's accumulated gradient)
        self.contributions: list[tuple[int, Any, Any, Any]] = []


class PassWalk:
    """The recorder's walk of one pass (engine.core's ``Walk``): what each node received and
    sent, as snapshots."""

    __slots__ = ("accumulate", "final", "grad_call", "graphed", "node_grads", "shared", "step",
                 "steps", "sums")  # fmt: skip

    def __init__(self, accumulate: bool = True, grad_call: bool = False, graphed: bool = False):
        self.accumulate = accumulate  # the pass sums into leaves' .grad
        self.grad_call = grad_call  # autograd.grad's: its caller receives the gradients
        self.graphed = graphed  # create_graph=True's: the gradients are recorded tensors
        self.steps: list[WalkStep] = []
        self.node_grads: dict[int, Any] = {}  # id(node) -> the gradient of its output
        # ids of arrays kept uncopied that a leaf's .grad could still become (run_backward
        # gives such a leaf a copy instead: the walk keeps the numbers it was sent)
        self.shared: set[int] = set()
        # id(leaf) -> (its summed gradient, the walk's sum of that and its .grad before)
        self.sums: dict[int, tuple[Any, Any]] = {}
        # id(leaf) -> an array the walk holds that equals the leaf's .grad after the pass
        # (what a freeze would otherwise copy)
        self.final: dict[int, Any] = {}

    def node(self, node: Node, g: Any) -> None:
        g = getattr(g, "_data", g)
        self.node_grads[id(node)] = g
        self.step = WalkStep(node, g)
        self.steps.append(self.step)

    def accumulated(self, leaf: Any, g: Any) -> None:
        """``g`` was added into ``leaf``'s ``.grad`` in place: when the walk's sum for the leaf
        was made of this same ``g`` (the same addition, so the same numbers to the bit), that
        sum is what ``.grad`` holds now."""
        pair = self.sums.get(id(leaf))
        if pair is None or pair[0] is not g or leaf._hooks is not None:
            return
        total, grad = pair[1], leaf.grad._data
        if total.dtype == grad.dtype and total.shape == grad.shape:
            self.final[id(leaf)] = total

    def sent(self, i: int, x: Any, gi: Any, acc: Any, fn: Node | None, g: Any) -> None:
        """``gi`` sent to input ``i`` (``x``), ``acc`` what the receiver holds now (its node's
        buffer, ``fn``, or for a leaf the pass's sum), ``g`` what the sending node received."""
        total = getattr(acc, "_data", acc)
        summed = fn is None and self.accumulate and x.grad is not None
        if summed:
            total = x.grad._data + total  # a new array: nothing else holds it
            self.sums[id(x)] = (acc, total)
        # a node's gradient is read by its rule only, unless a custom Function's backward or a
        # hook receives it (they may write into it); a leaf's, by the accumulation (which keeps
        # it off the walk), unless a hook or grad()'s caller receives it, or it is the array
        # the backward was seeded with
        if fn is None:
            copy = x._hooks is not None or self.grad_call or gi is g
        else:
            copy = fn.custom or _hooked(fn)
        self._keep(i, x, gi, total, not summed, self.graphed or copy, fn is None)

    def keeps(self, leaf: Any, g: Any) -> bool:
        """Whether ``leaf``'s new ``.grad`` may be ``g`` itself: not an array the walk holds
        uncopied (the leaf gets a copy; ``g`` is then what its ``.grad`` equals)."""
        if id(g) not in self.shared:
            return True
        if leaf._hooks is None:
            self.final[id(leaf)] = g
        return False

    def _keep(
        self, i: int, x: Any, gi: Any, total: Any, copy_total: bool, copy: bool, leaf: bool
    ) -> None:
        """A contribution: ``gi`` sent, ``total`` what the receiver holds now. Copied where the
        program may change the array later (``copy``: a gradient that a custom Function's
        backward, a hook or ``autograd.grad``'s caller receives, or that the program gave);
        arrays only the backward loop reads are kept as they are (it never writes into them).
        A ``leaf``'s arrays kept as they are go into ``shared``: the leaf's ``.grad`` becomes
        a copy of such an array, never the array itself. ``copy_total``: ``total`` is such an
        array too (not a sum made for the walk)."""
        gi, total = getattr(gi, "_data", gi), getattr(total, "_data", total)
        if copy:
            kept = gi.copy()
            if copy_total:
                total = kept if total is gi else total.copy()
            gi = kept
        elif leaf:
            self.shared.add(id(gi))
            if copy_total:
                self.shared.add(id(total))
        self.step.contributions.append((i, x, gi, total))


def _hooked(node: Node) -> bool:
    """Whether the node's output has hooks (they receive its gradient)."""
    out = node.out() if node.out is not None else None
    return out is not None and out._hooks is not None


def kept(array: Any) -> Any:
    """A copy of ``array`` that an in-place change to it leaves alone. Gradients zeroed in place
    (``w.grad.zero_()``) each step are all zero bits: those are kept as a broadcast zero, not a
    copy of a weight matrix's worth of zeros each pass. The test reads the array as 64-bit
    words (a fifth of the time of a byte-wise ``any``, half a copy's); below 64 KB a copy
    costs less than the test."""
    if (
        array.__class__ is np.ndarray
        and array.nbytes >= ZERO_TEST_BYTES
        and array.flags.c_contiguous
    ):
        nbytes = array.nbytes
        words = array.reshape(-1).view(np.uint64 if nbytes % 8 == 0 else np.uint8)
        if not _bits_or(words):  # every bit zero: +0.0 everywhere (not -0.0)
            key = (array.dtype, array.shape)
            zero = _ZEROS.get(key)
            if zero is None:
                if len(_ZEROS) > 64:
                    _ZEROS.clear()
                zero = _ZEROS[key] = np.broadcast_to(np.zeros((), array.dtype), array.shape)
            return zero
    return array.copy()


#: the size from which :func:`kept` tests an array for all-zero bits before copying it
ZERO_TEST_BYTES = 1 << 16
_bits_or = np.bitwise_or.reduce
#: read-only broadcast zeros by (dtype, shape), shared by every pass that kept one
_ZEROS: dict[tuple[Any, Any], Any] = {}


class PassLog:
    """What ``record_passes`` collects, an observer of the backward loop (engine.core's
    ``PassObserver``): one exported graph per backward call (``export`` and ``freeze`` are
    recorder.graph's, given by the layer above).

    The first ``max_passes - 1`` passes are exported as they happen (they are always kept).
    Later passes compete for the last place: each is kept only as its walk and copies of what
    export reads that the program may change afterwards (``freeze``: its leaves' values and
    gradients, which an optimizer changes in place), and only the latest of them is exported,
    once, when ``graphs`` is read: a loop of 700 backward passes exports 20 graphs, not 700.
    ``export_s`` and ``freeze_s`` add up the seconds spent in each (bench/layers.py).

    With ``replay`` (recorder.replay's), such a pass is not even walked as it runs: the backward
    loop runs as if nothing recorded it and hands over its leaves (:meth:`ran_light`). Its
    leaves are frozen, and the walk of the one that turns out to be the latest is made when it
    is exported, by running its backward again on the numbers it had (``replay`` exports the
    latest pass, walked or not, with its leaves' arrays holding their values from then). A
    pass whose backward ran the program's own code (a hook, a custom Function) cannot be run
    again: it, and every pass after it, is walked as it runs.
    """

    def __init__(
        self,
        max_passes: int,
        export: Callable[..., dict[str, Any]],
        freeze: Callable[..., dict[int, Any]] | None = None,
        max_kept_nodes: int | None = None,
        replay: Callable[..., dict[str, Any]] | None = None,
    ) -> None:
        self.export = export
        self.freeze = freeze
        self.replay = replay
        # False once a pass could not be run again (its backward ran the program's code)
        self.replayable = replay is not None and freeze is not None
        self._code = program_code()  # (program_code_added's count at the last pass)
        self.max_passes = max(1, max_passes)
        self.max_kept_nodes = max_kept_nodes
        self.kept_nodes = 0  # nodes of the passes kept as they happened
        self._early: list[dict[str, Any]] = []  # the passes kept as they happened
        self._latest: dict[str, Any] | None = None  # the latest pass after them
        # the latest pass after the early ones, not exported yet: (index, root, its walk or
        # None, node gradients, frozen leaves, what a replay needs or None)
        self._pending: tuple[int, Any, Any, dict[int, Any], dict[int, Any], Any] | None = None
        self.count = 0
        self.unwalked = 0  # passes that ran unwalked (ran_light)
        self.root_tensors: list[Any] = []
        self.failures: list[str] = []
        self.export_s = 0.0
        self.freeze_s = 0.0

    def _keeps_another(self) -> bool:
        """Whether the next pass is kept as it happens (else it competes for the last place):
        at most ``max_passes - 1`` of them, holding fewer than ``max_kept_nodes`` nodes before
        it (an unrolled RNN's 700-node passes: a few are drawn, not twenty)."""
        if len(self._early) >= self.max_passes - 1:
            return False
        return self.max_kept_nodes is None or self.kept_nodes < self.max_kept_nodes

    def light(self) -> bool:
        """Whether the next pass may run unwalked (it will not be kept as it happens, and a
        replay can make its walk later): not when the program has registered a hook or called
        a custom Function since the last pass (this one would run them: it is walked)."""
        return self.replayable and program_code() == self._code and not self._keeps_another()

    # --- as the backward loop's observer

    def walk(self, accumulate: bool, grad_call: bool, graphed: bool) -> PassWalk:
        return PassWalk(accumulate, grad_call, graphed)

    def walked(self, root: Any, walk: Walk, replayable: bool) -> None:
        assert isinstance(walk, PassWalk)  # (the walk this log made)
        if not replayable:  # it ran the program's code, and so may the passes after it
            self.replayable = False
        self.record(root, walk.steps, walk.node_grads, walk.final)

    kept = staticmethod(kept)

    # --- the passes

    def record(
        self,
        root: Any,
        steps: list[WalkStep],
        node_grads: dict[int, Any],
        grads: dict[int, Any] | None = None,
    ) -> None:
        """One backward pass has run (called by the backward loop). Drawing it is a bonus: a
        failure to export is kept in ``failures``, never raised into the program. ``grads``:
        arrays the walk holds that equal leaves' ``.grad`` now (a freeze need not copy them)."""
        started = perf_counter()
        self._code = program_code()
        try:
            if self.freeze is None or self._keeps_another():
                graph = self.export(root, steps, node_grads)
                self.export_s += perf_counter() - started
                self.add(graph)
                return
            self._pending = None  # the pass before is not the latest any more: let it go
            self._pending = (
                self.count,
                root,
                steps,
                node_grads,
                self.freeze(root, steps, grads=grads),
                None,
            )
            self.freeze_s += perf_counter() - started
        except TimeoutError:  # the run's clock: the program's end, not a drawing failure
            raise
        except Exception as exc:
            self.failures.append(f"pass {self.count + 1}: {type(exc).__name__}: {exc}")
        self.count += 1

    def ran_light(
        self,
        root: Any,
        seed: Any,
        node_grads: dict[int, Any],
        leaves: dict[int, Any] | None,
        before: dict[int, Any] | None,
    ) -> None:
        """One pass ran unwalked (``light()`` was true): ``node_grads`` the gradient each node
        received, ``leaves`` every leaf its nodes read (None if the backward did not reach
        every node the graph draws: the freeze then walks the graph), ``before`` copies of the
        ``.grad`` it summed into, by leaf ``id`` (None if its backward ran the program's code:
        it cannot be run again)."""
        started = perf_counter()
        self._code = program_code()
        try:
            self._pending = None  # the pass before is not the latest any more: let it go
            again = None
            if before is not None and leaves is not None:
                # copies of its leaves' values only (a replay gives their gradients), the
                # gradients they had before it (a replay sums into these), and the arrays they
                # had (a replay puts their values back): one loop, as it runs every pass
                frozen: dict[int, Any] = {}
                sums = []
                arrays = []
                for k, x in leaves.items():
                    data = x._data
                    frozen[k] = (data.copy(), None)
                    arrays.append((x, data))
                    if x.requires_grad:
                        sums.append((x, before.get(k)))
                again = (seed.copy(), sums, arrays)
            else:
                frozen = self.freeze(root, None, leaves=leaves)  # type: ignore[misc]
                self.replayable = False  # walk the passes after this one as they run
            self._pending = (self.count, root, None, node_grads, frozen, again)
            self.unwalked += 1
            self.freeze_s += perf_counter() - started
        except TimeoutError:  # the run's clock: the program's end, not a drawing failure
            raise
        except Exception as exc:
            self.failures.append(f"pass {self.count + 1}: {type(exc).__name__}: {exc}")
        self.count += 1

    def add(self, graph: dict[str, Any]) -> None:
        """Append an exported graph as the next pass: kept if there is room among the first
        ones, else as the latest."""
        self._flush()
        self.count += 1
        graph["pass_index"] = self.count - 1
        if self._keeps_another():
            self._early.append(graph)
            self.kept_nodes += len(graph.get("nodes", ()))
        else:
            self._latest = graph

    def _flush(self) -> None:
        if self._pending is None:
            return
        index, root, steps, node_grads, frozen, again = self._pending
        self._pending = None
        started = perf_counter()
        try:
            if self.replay is not None:
                graph = self.replay(self.export, root, steps, node_grads, frozen, again)
            else:
                graph = self.export(root, steps, node_grads, frozen)
        except Exception as exc:
            self.failures.append(f"pass {index + 1}: {type(exc).__name__}: {exc}")
            return
        finally:
            self.export_s += perf_counter() - started
        replayed = getattr(root, "grad_fn", None) is not None  # (a leaf's pass has no walk)
        if steps is None and again is not None and replayed and not graph.get("walk"):
            self.failures.append(  # (the replay's version check failed: recorder.replay)
                f"the backward walk of pass {index + 1}, nor its leaves' gradients: a tensor "
                "it read was changed in place after it ran"
            )
        graph["pass_index"] = index
        self._latest = graph

    @property
    def graphs(self) -> list[dict[str, Any]]:
        """The kept passes in order: the first ones, then the latest."""
        self._flush()
        return self._early + ([self._latest] if self._latest is not None else [])
