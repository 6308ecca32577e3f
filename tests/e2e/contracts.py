"""Responses in the shape issue 15 asks of the run API, for the fields not served yet.

The engine is to give each op node `module` / `module_path` and the graph a `modules` list, and
unnamed results a `label` from the source; the run API is to add `passes_total`, `result`,
`error.traceback`, and on a forward error the graph recorded up to it with a `kind: "error"` node
that `error.node` names. Until they are served, the browser tests run the real program through
the real API and add those fields here, as the helpers' contract says they will look, so the page
is tested against real numbers in the new shape. Each function leaves a field alone when the
server already sends it, so these become no-ops once the server catches up.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from playwright.sync_api import Page, Route, WebSocketRoute

from server.program.packing import pack_answer, unpack_answer

JSON = dict[str, Any]

#: The 3-layer MLP the issue measures: nn.Sequential of 3 Linear + 2 ReLU, MSE.
MLP = """\
import torch
from torch import nn
torch.manual_seed(0)
X = torch.randn(8, 2)
y = torch.randn(8, 1)
model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 1))
loss_fn = nn.MSELoss()
loss = loss_fn(model(X), y)
loss.backward()
print(loss.item())
"""

#: A forward error at line 4: x (3, 2) @ w (3, 2) cannot be multiplied; x and w were recorded.
FORWARD_ERROR = """\
import torch
x = torch.ones(3, 2)
w = torch.ones(3, 2, requires_grad=True)
y = x @ w
y.sum().backward()
"""

#: What each op of the MLP is, in forward order: (module id, class) of the Sequential's children.
MLP_LAYERS = [
    ("model[0]", "Linear"),
    ("model[1]", "ReLU"),
    ("model[2]", "Linear"),
    ("model[3]", "ReLU"),
    ("model[4]", "Linear"),
]


def run_program(page: Page, source: str) -> JSON:
    """POST the program to the page's server and return the response body, its passes unpacked
    into whole graphs (server/program/packing.py); :func:`serve` packs them again."""
    response = page.request.post("/api/v1/run", data={"source": source})
    assert response.ok, response.text()
    body: JSON = unpack_answer(response.json())
    return body


def _with_mlp_modules_graph(graph: JSON) -> JSON:
    if graph.get("modules"):
        return graph
    graph = copy.deepcopy(graph)
    modules = [{"id": "model", "name": "model", "type": "Sequential", "parent": None}]
    modules += [{"id": mid, "name": mid, "type": cls, "parent": "model"} for mid, cls in MLP_LAYERS]
    modules.append({"id": "loss_fn", "name": "loss_fn", "type": "MSELoss", "parent": None})
    graph["modules"] = modules
    ops = [n for n in graph["nodes"] if not n["is_leaf"]]
    inputs: dict[str, list[str]] = {}
    for edge in sorted(graph["edges"], key=lambda e: e["arg"]):
        inputs.setdefault(edge["dst"], []).append(edge["src"])
    words = {n["id"]: n["name"] or n.get("label") or n["op"] for n in graph["nodes"]}
    for node, (mid, _cls) in zip(ops, MLP_LAYERS, strict=False):
        node["module"] = mid
        node["module_path"] = ["model", mid]
        if node["name"] is None:
            first = next(
                (i for i in inputs.get(node["id"], []) if not words[i].startswith("model.")), None
            )
            node["label"] = f"{mid}({words.get(first or '', '…')})"
            words[node["id"]] = node["label"]
    loss = ops[len(MLP_LAYERS)] if len(ops) > len(MLP_LAYERS) else None
    if loss is not None:
        loss["module"] = "loss_fn"
        loss["module_path"] = ["loss_fn"]
    return graph


def with_mlp_modules(response: JSON) -> JSON:
    """The MLP's response with the module data the engine is to add (modules, module, label)."""
    response = copy.deepcopy(response)
    response["graph"] = _with_mlp_modules_graph(response["graph"])
    response["passes"] = [_with_mlp_modules_graph(g) for g in response["passes"]]
    return response


def with_forward_error_graph(response: JSON) -> JSON:
    """FORWARD_ERROR's response with the graph recorded up to the failing `x @ w` (x, w, the op)."""
    response = copy.deepcopy(response)
    error = response["error"]
    assert error is not None and error["line"] == 4, error
    error.setdefault(
        "traceback",
        'Traceback (most recent call last):\n  File "<program>", line 4, in <module>\n'
        f"    y = x @ w\n{error['type']}: {error['message']}",
    )
    if response.get("graph"):
        return response
    leaf = {
        "op": None,
        "grad_fn": None,
        "is_leaf": True,
        "shape": [3, 2],
        "dtype": "float32",
        "grad": None,
    }
    nodes = [
        {
            **leaf,
            "id": "n0",
            "name": "x",
            "requires_grad": False,
            "value": [[1.0, 1.0]] * 3,
            "kind": "const",
            "untracked_reason": "requires_grad=False",
        },
        {
            **leaf,
            "id": "n1",
            "name": "w",
            "requires_grad": True,
            "value": [[1.0, 1.0]] * 3,
            "kind": "param",
            "untracked_reason": None,
        },
        {
            "id": "n2",
            "name": None,
            "label": "x @ w",
            "op": "matmul",
            "grad_fn": None,
            "is_leaf": False,
            "requires_grad": True,
            "shape": [],
            "dtype": "float32",
            "value": None,
            "grad": None,
            "kind": "error",
            "operand_shapes": [[3, 2], [3, 2]],
        },
    ]
    edges = [{"src": "n0", "dst": "n2", "arg": 0}, {"src": "n1", "dst": "n2", "arg": 1}]
    response["graph"] = {"nodes": nodes, "edges": edges, "walk": [], "root": None}
    error["node"] = "n2"
    return response


def with_passes_total(response: JSON) -> JSON:
    """A looped program's response with `passes_total` (how many backward passes ran)."""
    response = copy.deepcopy(response)
    if response.get("passes_total") is None and response["passes"]:
        response["passes_total"] = (
            max(p.get("pass_index", i) for i, p in enumerate(response["passes"])) + 1
        )
    return response


def serve(page: Page, body: JSON) -> None:
    """Answer the page's next runs with `body` (the request still has to be well formed): as
    POST /api/v1/run answers, and as the stream and the socket the page runs through (one
    `result` event), its passes packed as the server packs them (the page decodes what the
    server sends)."""
    body = pack_answer(copy.deepcopy(body), shorten=False)

    def handle(route: Route) -> None:
        route.fulfill(status=200, json=body)

    line = json.dumps({"event": "result", "elapsed_ms": 0.0, "response": body})

    def handle_stream(route: Route) -> None:
        route.fulfill(status=200, content_type="application/x-ndjson", body=line + "\n")

    def handle_socket(socket: WebSocketRoute) -> None:
        def answer(message: str | bytes) -> None:  # the run message: its result, then done
            socket.send(line)
            socket.close(code=1000)

        socket.on_message(answer)

    page.route("**/api/v1/run", handle)
    page.route("**/api/v1/run/stream", handle_stream)
    page.route_web_socket("**/api/v1/run/live", handle_socket)
