"""The export of a recording's backward passes, each like the one before computed once.

A training loop records the same graph again and again with new numbers. Its labels, its
nodes' expressions, its module calls and the symbolic half of its captions are the same every
pass; only values, gradients and the numbers in captions change. :class:`PassExporter` is
:func:`recorder.graph.export` for one recording (``PassLog`` calls it once per kept pass): it
walks a pass's graph once, in the order the exporter numbers nodes, and makes a *key* of
everything a label, an expression, a module's name or a caption's symbols is made from (ops and
their number attributes, edges, names, shapes and dtypes, module calls, the leaves and the
constants' values). A pass with the key of the last exported pass reuses that pass's structure
(its node dicts, edges, modules) and fills in only its own numbers; any difference is a miss,
exported whole (``tests/unit/test_pass_export.py`` checks both give the same graphs).

Left to the plain export: a graph cut by the drawing budget (``max_nodes``), a root that is a
leaf, and any graph whose numbering the key does not reproduce (then nothing is reused).

Each graph says which structure it has (:class:`PassGraph`): the passes made from one template
share a ``structure`` number, so the answer's packing (server.program.packing) sends that
structure once without comparing graphs to find out.
"""

from __future__ import annotations

import itertools
from typing import Any

from engine.core import Node, edge
from engine.tensor import Tensor
from recorder.graph import Exporter, export, export_with_exporter, owning_call, topo_ascending
from recorder.graph_walk import walk_step
from recorder.passlog import WalkStep
from recorder.summaries import summarise, summarise_seen

#: structure numbers, unique in the process (two recordings never share one)
_structures = itertools.count()


class PassGraph(dict[str, Any]):
    """An exported pass: the API's ``Graph`` as a plain dict, which also knows its structure.
    Passes with the same ``structure`` were made from one template: their graphs differ only
    in their per-pass parts (values, gradients, the walk). ``None``: not known (compare)."""

    __slots__ = ("structure",)

    def __init__(self, graph: dict[str, Any], structure: int | None) -> None:
        super().__init__(graph)
        self.structure = structure


def structure_of(graph: Any) -> int | None:
    """The structure number of an exported pass (None when it has none)."""
    return graph.structure if isinstance(graph, PassGraph) else None


def _numbers(attrs: dict[str, Any] | None) -> tuple[tuple[str, Any], ...]:
    if not attrs:
        return ()
    return tuple(
        (k, v) for k, v in attrs.items() if isinstance(v, int | float) and not isinstance(v, bool)
    )


class _Template:
    """A pass's exported structure, by position in the exporter's numbering (n0, n1, …): its
    nodes without their numbers, edges, modules, labels, each node's inputs' ids, and the
    captions' symbols (``memo``, see recorder.graph_walk.walk_step)."""

    __slots__ = (
        "edges",
        "input_ids",
        "labels",
        "memo",
        "modules",
        "nodes",
        "root_id",
        "root_label",
    )

    edges: list[dict[str, Any]]
    input_ids: dict[str, list[str]]
    labels: dict[str, str]
    memo: dict[Any, Any]
    modules: list[dict[str, Any]]
    nodes: list[dict[str, Any]]
    root_id: str
    root_label: str


class _Numbering:
    """What recorder.graph's exporter needs of a pass for its walk: graph ids by object, the
    labels, and each node's inputs' ids (the template's, for this pass's objects)."""

    __slots__ = ("ids", "input_ids", "labels")

    def __init__(
        self, ids: dict[int, str], input_ids: dict[int, list[str]], labels: dict[str, str]
    ):
        self.ids = ids
        self.input_ids = input_ids
        self.labels = labels


def _key(
    nodes: list[Node], root: Any, frozen: dict[int, Any]
) -> tuple[tuple[Any, ...], list[Any]] | None:
    """(the key of the pass's structure, its objects in the exporter's numbering: op nodes,
    leaf tensors and Python-number operands); None for a graph the key does not cover."""
    objects: list[Any] = []
    position: dict[int, int] = {}  # id(node or leaf) -> its number
    calls: dict[int, int] = {}  # id(ModuleCall) -> its number, in the order they are named
    parts: list[Any] = [root._name]
    call_list: list[Any] = []
    paths: list[Any] = []  # each node's module calls, outermost first (None: outside any)
    for node in nodes:  # the exporter names the calls first, in this order
        scope = getattr(node, "module", None)
        path = scope.path() if scope is not None else None
        paths.append(path)
        for call in path or ():
            if id(call) not in calls:
                calls[id(call)] = len(calls)
                call_list.append(call)
    for node, path in zip(nodes, paths, strict=True):
        seq = node.seq
        inputs: list[Any] = []
        for x in node.inputs:
            fn = edge(x, seq)
            if fn is not None:
                at = position.get(id(fn))
                if at is None:
                    return None  # an input's node that is not drawn: not a whole graph
                inputs.append(at)
            elif isinstance(x, Tensor):
                at = position.get(id(x))
                if at is None:
                    at = position[id(x)] = len(objects)
                    objects.append(x)
                    value = frozen[id(x)][0] if id(x) in frozen else x._data
                    requires = bool(x.requires_grad)
                    parts.append(
                        (
                            "leaf",
                            x._name,
                            requires,
                            None if requires else x._untracked,
                            x._param,
                            value.shape,
                            value.dtype,
                            _value_label(x, value, getattr(node, "module", None)),
                        )
                    )
                inputs.append(at)
            else:  # a Python number: a node of its own at each use
                inputs.append(len(objects))
                objects.append(x)
                parts.append(("number", type(x), x))
        attrs = node.attrs or {}
        if node.op.name == "pow":
            objects.append(attrs["p"])
            parts.append(("number", type(attrs["p"]), attrs["p"]))
        elif node.op.name == "rpow":
            objects.append(attrs["base"])
            parts.append(("number", type(attrs["base"]), attrs["base"]))
        position[id(node)] = len(objects)
        objects.append(node)
        out = node.out() if node.out is not None else None
        value = getattr(node, "out_value", None)
        if value is None and out is not None:
            value = out._data
        parts.append(
            (
                id(node.op),
                node.name(),
                tuple(inputs),
                _numbers(attrs),
                out._name if out is not None else None,
                out.retains_grad if out is not None else None,
                value.shape if value is not None else None,
                value.dtype if value is not None else None,
                out.dtype if out is not None else None,
                tuple(calls[id(c)] for c in path) if path is not None else None,
            )
        )
    for call in call_list:  # what names a call and reads as its output's label
        module = call.module
        parts.append(
            (
                id(module),
                getattr(module, "_name", None),
                id(call.parent.module) if call.parent is not None else None,
                tuple(
                    position.get(id(x.grad_fn) if x.grad_fn is not None else id(x))
                    if isinstance(x, Tensor)
                    else None
                    for x in call.inputs
                ),
            )
        )
    return tuple(parts), objects


def _value_label(x: Tensor, value: Any, scope: Any) -> str | None:
    """The label leaf x takes from its value, if it does (recorder.graph's ``leaf``: a tensor
    without a name that is not a parameter of a module whose call uses it)."""
    if x._name or owning_call(x, scope)[0] is not None:
        return None  # labelled by its name, or by its module: module.key
    return Exporter._const_label(value)


class PassExporter:
    """:func:`recorder.graph.export` for the passes of one recording (see the module's text).
    ``hits`` counts the passes that reused the structure before them."""

    def __init__(self, max_nodes: int | None = None) -> None:
        self.max_nodes = max_nodes
        self.hits = 0
        self._key: tuple[Any, ...] | None = None
        self._template: _Template | None = None
        self._structure: int | None = None  # the template's structure number

    def __call__(
        self,
        root: Any,
        steps: list[WalkStep] | None = None,
        node_grads: dict[int, Any] | None = None,
        frozen: dict[int, Any] | None = None,
    ) -> dict[str, Any]:
        fn = getattr(root, "grad_fn", None)
        if fn is None:
            return export(root, steps, node_grads, frozen, self.max_nodes)
        topo = topo_ascending([fn], self.max_nodes)
        nodes, cut = topo
        keyed = None if cut else _key(nodes, root, frozen or {})
        if keyed is None:
            self._key = self._template = self._structure = None
            return export_with_exporter(root, steps, node_grads, frozen, self.max_nodes, topo)[0]
        key, objects = keyed
        if key == self._key and self._template is not None:
            self.hits += 1
            graph = self._again(self._template, objects, root, steps, node_grads or {}, frozen)
            return PassGraph(graph, self._structure)
        memo: dict[Any, Any] = {}
        graph, ex = export_with_exporter(
            root, steps, node_grads, frozen, self.max_nodes, topo, memo
        )
        self._key, self._template = key, _template(graph, ex, objects, memo)
        if self._template is None:
            self._structure = None
            return graph
        self._structure = next(_structures)
        return PassGraph(graph, self._structure)

    @staticmethod
    def _again(
        t: _Template,
        objects: list[Any],
        root: Any,
        steps: list[WalkStep] | None,
        node_grads: dict[int, Any],
        frozen: dict[int, Any] | None,
    ) -> dict[str, Any]:
        """The template's graph with this pass's numbers."""
        frozen = frozen or {}
        seen: dict[int, tuple[Any, Any]] = {}  # array id -> (array, its summary): see below
        nodes = []
        ids: dict[int, str] = {}
        input_ids: dict[int, list[str]] = {}
        for obj, shape in zip(objects, t.nodes, strict=True):
            node = dict(shape)
            if isinstance(obj, Node):
                ids[id(obj)] = gid = node["id"]
                input_ids[id(obj)] = t.input_ids[gid]
                value = getattr(obj, "out_value", None)
                if value is None:
                    out = obj.out() if obj.out is not None else None
                    value = out._data if out is not None else None
                node["value"] = summarise(value)
                node["grad"] = summarise_seen(node_grads.get(id(obj)), seen)
            elif isinstance(obj, Tensor):
                if id(obj) in frozen:
                    value, grad = frozen[id(obj)]
                else:
                    value = obj._data
                    grad = obj.grad._data if obj.grad is not None else None
                node["value"] = summarise(value)
                node["grad"] = summarise(grad) if node["requires_grad"] else None
            else:
                node["value"] = shape["value_constant"]
                node["grad"] = None
                del node["value_constant"]
            nodes.append(node)
        root_node = nodes[int(t.root_id[1:])]
        if root_node["grad"] is None and steps:
            root_node["grad"] = summarise_seen(steps[0].grad_output, seen)
        numbering = _Numbering(ids, input_ids, t.labels)
        walk = [
            walk_step(numbering, s, t.root_label, t.root_id, t.memo, seen)
            for s in steps or []
            if id(s.node) in input_ids
        ]
        return {
            "nodes": nodes,
            "edges": list(t.edges),
            "walk": walk,
            "root": t.root_id,
            "root_label": t.root_label,
            "modules": list(t.modules),
        }


def _template(
    graph: dict[str, Any], ex: Any, objects: list[Any], memo: dict[Any, Any]
) -> _Template | None:
    """The template of an exported pass, when its numbering is the key's (n0, n1, … for the
    objects in order); None when it is not, so nothing wrong is ever reused."""
    nodes = graph["nodes"]
    if len(nodes) != len(objects) or "truncated" in graph:
        return None
    for k, (obj, node) in enumerate(zip(objects, nodes, strict=True)):
        if node["id"] != f"n{k}":
            return None
        if isinstance(obj, Node | Tensor):
            if ex.ids.get(id(obj)) != node["id"]:
                return None
        elif node["op"] != "constant":
            return None
    t = _Template()
    t.nodes = []
    for node in nodes:
        shape = {k: v for k, v in node.items() if k not in ("value", "grad")}
        if node["op"] == "constant":
            shape["value_constant"] = node["value"]
        t.nodes.append(shape)
    t.edges = graph["edges"]
    t.modules = graph["modules"]
    t.root_id = graph["root"]
    t.root_label = graph["root_label"]
    t.labels = ex.labels
    t.input_ids = {
        ex.ids[id(obj)]: ex.input_ids[id(obj)] for obj in objects if isinstance(obj, Node)
    }
    t.memo = memo
    return t
