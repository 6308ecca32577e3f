"""The answer's passes packed: one structure for passes that share it, per-pass values as arrays.

A program's kept backward passes (up to ``max_recorded_passes``) are usually the same graph run
again with new numbers: a training loop's. Sent whole, each pass repeats its nodes, edges and
modules. Packed (what the worker sends and ``RunResponse`` documents):

- ``structures``: each distinct structure once: the graph without its per-pass parts (its
  nodes without ``value`` and ``grad``, its edges, ``modules``, ``root``, ``root_label``,
  ``truncated`` ...);
- ``passes``: per pass, ``structure`` (an index into ``structures``), ``values`` and ``grads``
  (one entry per node of the structure, in its order), and the graph's per-pass keys (``walk``,
  ``pass_index``, ``compare``, ``practice``);
- ``graph``: only a graph that is not one of the passes (an error's); when the graph to show
  is a pass, ``graph`` is null and ``graph_pass`` is its index in ``passes``.

A pass's walk does not repeat what its values say: a step's ``grad_output`` is left out when it
is the gradient its node holds (``grads``), a contribution's ``grad`` when it is what the node
it goes to holds, and its ``accumulated_grad`` when it equals ``grad`` (nothing accumulated).
A key left out means "the same as that"; null still means null. What is left of a walk is
usually the same in every pass of a loop (its formulas and captions, with the numbers left out):
a pass whose walk, so reduced, is the one an earlier pass sent says so with ``walk_from`` (that
pass's index in ``passes``) and sends no walk of its own.

Which passes share a structure the recorder says as it exports them (its ``PassGraph``'s
``structure``: passes made from one template); a graph it says nothing of (the program's own
Values, a notebook cell's) is compared with the structures before it. A pass whose structure
differs in anything (another node, another label, a node's ``earlier`` mark) gets a structure
of its own, so :func:`unpack_answer` gives back exactly the graphs that
were packed. Numbers of float32 tensors travel as the shortest decimal that reads back as the
same float32 (``0.060337834``, not the float64 expansion ``0.06033783406019211``): the same
value, in half the characters.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import orjson

from recorder.pass_export import structure_of

#: a node's keys that belong to its pass, not its structure
PASS_NODE_KEYS = ("value", "grad")
#: a graph's keys that belong to its pass
PASS_GRAPH_KEYS = ("walk", "pass_index", "compare", "practice")
_FLOAT32 = "torch.float32"


def _split(graph: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """(structure, the pass's own parts) of one exported graph, taken apart in place (its node
    dicts lose their numbers and become the structure's)."""
    structure = {k: v for k, v in graph.items() if k not in PASS_GRAPH_KEYS}
    nodes = structure.setdefault("nodes", [])
    own = {k: graph[k] for k in PASS_GRAPH_KEYS if k in graph}
    own["values"] = [node.pop("value", None) for node in nodes]
    own["grads"] = [node.pop("grad", None) for node in nodes]
    return structure, own


def _short(value: Any) -> Any:
    """A float32 tensor's value as float32 (orjson writes the shortest float32 decimal); left
    as it is when it is not a plain finite number or list of them (a summary, "NaN" ...)."""
    if value.__class__ is float:
        return np.float32(value)
    if value.__class__ is list and value:
        try:
            arr = np.array(value)
        except (ValueError, TypeError):  # ragged, or not numbers: not a tensor's value
            return value
        # a non-finite number arrives spelled out ("NaN"), which makes the array one of text:
        # only an array of numbers is shortened
        return arr.astype(np.float32) if arr.dtype.kind in "fiu" else value
    return value


def _elide(structure: dict[str, Any], own: dict[str, Any]) -> None:
    """Leave out of the walk the gradients its values already hold (see the module's text)."""
    index = {node["id"]: i for i, node in enumerate(structure["nodes"])}
    grads = own["grads"]
    walk = own.get("walk")
    if not walk:
        return
    for step in walk:  # (the walk's dicts are this answer's own: changed in place)
        i = index.get(step.get("node"))
        if "grad_output" in step and i is not None and step["grad_output"] == grads[i]:
            del step["grad_output"]
        for c in step.get("contributions") or []:
            j = index.get(c.get("to"))
            if "accumulated_grad" in c and "grad" in c and c["accumulated_grad"] == c["grad"]:
                del c["accumulated_grad"]
            if "grad" in c and j is not None and c["grad"] == grads[j]:
                del c["grad"]


def _restore(structure: dict[str, Any], own: dict[str, Any]) -> list[dict[str, Any]]:
    """The walk with what :func:`_elide` left out put back."""
    index = {node["id"]: i for i, node in enumerate(structure["nodes"])}
    grads = own.get("grads") or []
    walk = []
    for step in own.get("walk") or []:
        step = dict(step)
        if "grad_output" not in step:
            step["grad_output"] = grads[index[step["node"]]]
        contributions = []
        for c in step.get("contributions") or []:
            c = dict(c)
            if "grad" not in c:
                c["grad"] = grads[index[c["to"]]]
            if "accumulated_grad" not in c:
                c["accumulated_grad"] = c["grad"]
            contributions.append(c)
        if "contributions" in step:
            step["contributions"] = contributions
        walk.append(step)
    return walk


def _shorten(structure: dict[str, Any], own: dict[str, Any]) -> None:
    """Float32 numbers of one pass as float32 (values, gradients, the walk's arrays)."""
    dtypes = {node["id"]: node.get("dtype") for node in structure["nodes"]}
    for i, node in enumerate(structure["nodes"]):
        if node.get("dtype") == _FLOAT32:
            own["values"][i] = _short(own["values"][i])
            own["grads"][i] = _short(own["grads"][i])
    for step in own.get("walk") or []:
        if "grad_output" in step and dtypes.get(step.get("node")) == _FLOAT32:
            step["grad_output"] = _short(step["grad_output"])
        for c in step.get("contributions") or []:
            if dtypes.get(c.get("to")) == _FLOAT32:
                for key in ("grad", "accumulated_grad"):
                    if key in c:
                        c[key] = _short(c[key])


def pack_answer(result: dict[str, Any], shorten: bool = True) -> dict[str, Any]:
    """``result`` (run_program's answer, its ``passes`` whole graphs) packed, in place (its
    graphs are taken apart: copy them first to keep them)."""
    graphs = result.get("passes") or []
    structures: list[dict[str, Any]] = []
    packed: list[dict[str, Any]] = []
    #: (structure, a walk as sent, encoded) -> the pass that sent it
    sent_walks: dict[tuple[int, bytes], int] = {}
    #: the recorder's structure number -> its index in ``structures``
    numbered: dict[int, int] = {}
    for graph in graphs:
        number = structure_of(graph)
        structure, own = _split(graph)
        index = numbered.get(number) if number is not None else None
        if index is None:
            index = next((i for i, known in enumerate(structures) if known == structure), None)
        if index is None:
            index = len(structures)
            structures.append(structure)
        if number is not None:
            numbered[number] = index
        _elide(structure, own)
        if own.get("walk"):  # (compared before shortening: its numbers are still lists)
            key = (index, orjson.dumps(own["walk"], option=orjson.OPT_SERIALIZE_NUMPY))
            if key in sent_walks:
                del own["walk"]
                own["walk_from"] = sent_walks[key]
            else:
                sent_walks[key] = len(packed)
        if shorten:
            _shorten(structure, own)
        packed.append({"structure": index, **own})
    shown = result.get("graph")
    result["graph_pass"] = None
    for i in range(len(graphs) - 1, -1, -1):
        if graphs[i] is shown:
            result["graph"], result["graph_pass"] = None, i
            break
    result["structures"] = structures
    result["passes"] = packed
    return result


def unpack_graph(
    structure: dict[str, Any], own: dict[str, Any], passes: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    """One pass as the whole graph it was (``passes``: the answer's, for ``walk_from``)."""
    if "walk_from" in own:  # the walk an earlier pass sent (as it was sent)
        source = (passes or [])[own["walk_from"]]
        own = {k: v for k, v in own.items() if k != "walk_from"}
        own["walk"] = source["walk"]
    graph = {k: v for k, v in structure.items() if k != "nodes"}
    values, grads = own.get("values") or [], own.get("grads") or []
    graph["nodes"] = [
        {**node, "value": values[i], "grad": grads[i]} for i, node in enumerate(structure["nodes"])
    ]
    for key, v in own.items():
        if key not in ("structure", "values", "grads"):
            graph[key] = v
    if "walk" in own:
        graph["walk"] = _restore(structure, own)
    return graph


def unpack_answer(body: dict[str, Any]) -> dict[str, Any]:
    """An answer as it was before packing (``passes`` whole graphs, ``graph`` the one shown);
    for REST clients and tests. ``body`` is left as it is."""
    structures = body.get("structures") or []
    out = {k: v for k, v in body.items() if k not in ("structures", "graph_pass")}
    passes = body.get("passes") or []
    out["passes"] = [unpack_graph(structures[p["structure"]], p, passes) for p in passes]
    index = body.get("graph_pass")
    if index is not None:
        out["graph"] = out["passes"][index]
    return out
