"""What one observed ``backward()`` of a program's own autograd objects leaves: the record the
observer fills (:mod:`server.program.values.observer`), the observers write steps into
(:mod:`server.program.values.observers`), and the export reads (:mod:`server.program.values.graph`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


class Refused(Exception):
    """The objects do not fit the rules (the reason is for tests and notices)."""


@dataclass
class ValuePass:
    """One observed ``backward()``: nodes in topological order (parents first, root last)."""

    kind: type
    objs: list[Any]
    datas: list[Any]
    ops: list[str | None]
    parents: list[tuple[int, ...]]
    grads_start: list[Any]
    grads_end: list[Any] = field(default_factory=list)
    #: [node, grad_output, grads before, grads after, writes or None] per observed call
    steps: list[list[Any]] = field(default_factory=list)
    #: how many tensor passes ran before this one (to interleave both kinds of passes)
    tensor_count: int = 0
    index: int = 0
    complete: bool = True
    #: some data or grad is an array (grads must then be copied, not just read)
    arrays: bool = False
    #: some node keeps its parents in a set (their order, hence argument positions, is lost)
    unordered: bool = False
    kind_name: str = ""
    #: the user's names, resolved when the pass ends (the objects are not kept)
    names: list[str | None] = field(default_factory=list)
    #: the nodes' instance dicts while the pass runs (the observers read grads there)
    dicts: list[dict[str, Any]] = field(default_factory=list, repr=False)
    #: calls of the program's own classes logged before this pass (values/groups.py); with
    #: ``objs`` they are kept until the pass is exported, and only for the passes kept
    calls: list[list[Any]] = field(default_factory=list, repr=False)
    #: the name of an object of the program (a Neuron's "layers[0][1]"), for the groups
    name_of: Any = field(default=None, repr=False)

    @property
    def root(self) -> int:
        return len(self.datas) - 1
