"""Pydantic request/response models: the public contract (docs/architecture.md, "API contract")."""

from __future__ import annotations

import keyword
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PlainValidator,
    field_validator,
    model_validator,
)

from server.examples import TINY_EXAMPLE as TINY_EXAMPLE  # the API's example request


class Health(BaseModel):
    """Liveness (GET /healthz): 'failing' (503) once the sandbox cannot restart."""

    status: Literal["ok", "failing"]
    sandbox: str | None = Field(
        default=None,
        description="How programs are confined: 'seccomp' (a kernel jail), 'none' (no jail: "
        "this server serves its own machine only), 'starting', 'restarting' (its zygote died "
        "and is being replaced) or 'failed' (it cannot be restarted).",
        examples=["seccomp"],
    )


class Ready(BaseModel):
    """Whether this replica takes work now (GET /readyz)."""

    status: Literal["ready", "saturated", "starting", "restarting"]
    sandbox: str
    running: int = 0
    queued: int = 0
    slots: int = 0
    ready_workers: int = 0
    reason: str | None = Field(default=None, description="Why the sandbox is not ready.")


class DeviceInfo(BaseModel):
    name: str = Field(examples=["cpu", "cuda"])
    available: bool
    reason: str | None = Field(default=None, description="Why the device is unavailable.")


# ---- POST /api/v1/run --------------------------------------------------------------------------

MAX_BINDINGS = 32
MAX_BINDING_ELEMENTS = 4096


class BindingSpec(BaseModel):
    """A free variable's value with an explicit requires_grad."""

    model_config = ConfigDict(
        extra="forbid", json_schema_extra={"examples": [{"value": 2.0, "requires_grad": True}]}
    )

    value: float | list[Any] = Field(
        description="A number or a (rectangular) nested list of numbers."
    )
    requires_grad: bool = True


Binding = Annotated[
    float | list[Any] | BindingSpec,
    Field(
        description="A number or nested list (a float32 tensor with requires_grad=True), or {value, requires_grad}."
    ),
]


def _count_numbers(value: Any, depth: int = 0) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float | list):
        raise ValueError("a binding value must be a number or a nested list of numbers")
    if isinstance(value, list):
        if depth >= 8:
            raise ValueError("a binding value is nested too deeply (at most 8 levels)")
        return sum(_count_numbers(v, depth + 1) for v in value)
    return 1


class RunRequest(BaseModel):
    """A program (or a bare expression) to run, with its free variables."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"source": TINY_EXAMPLE, "device": "cpu", "seed": 0, "bindings": {}},
                {
                    "source": "(w*x + b - y)**2",
                    "bindings": {
                        "w": 0.5,
                        "b": 0.0,
                        "x": {"value": 2.0, "requires_grad": False},
                        "y": {"value": 7.0, "requires_grad": False},
                    },
                },
            ]
        },
    )

    source: str = Field(
        max_length=64 * 1024,
        description="A Python program (real Python, run in a kernel jail) or a bare "
        "expression; 64 KiB at most.",
    )
    device: str = Field(
        default="cpu", pattern=r"^(cpu|cuda(:\d{1,2})?)$", description="Where tensors live."
    )
    seed: int = Field(
        default=0, ge=0, le=2**32 - 1, description="torch.manual_seed before the program runs."
    )
    bindings: dict[str, Binding] = Field(
        default_factory=dict,
        max_length=MAX_BINDINGS,
        description="Free variables of an expression: name -> value (see Binding).",
    )
    compare: bool = Field(
        default=False,
        description="Compare the program's own autograd objects (a micrograd-style Value) "
        "with PyTorch: every recorded Value graph is replayed with the engine's tensors and "
        "each node is marked agrees / differs / not_comparable (see GraphNode.compare).",
    )
    practice: bool = Field(
        default=False,
        description="Practice mode: each pass comes with what its walk asks the learner at "
        "each step, the answer and the mistakes it can name (see Graph.practice).",
    )

    @field_validator("bindings")
    @classmethod
    def _check_bindings(cls, bindings: dict[str, Any]) -> dict[str, Any]:
        total = 0
        for name, spec in bindings.items():
            if (
                not name.isascii()
                or not name.isidentifier()
                or keyword.iskeyword(name)
                or name.startswith("_")
            ):
                raise ValueError(f"binding name {name!r} is not a plain identifier")
            value = spec.value if isinstance(spec, BindingSpec) else spec
            total += _count_numbers(value)
        if total > MAX_BINDING_ELEMENTS:
            raise ValueError(f"bindings hold more than {MAX_BINDING_ELEMENTS} numbers")
        return bindings


class UserErrorInfo(BaseModel):
    """An error in the user's program, located at line:col (1-based)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"type": "NameError", "message": "name 'wx' is not defined", "line": 3, "col": 7}
            ]
        }
    )

    type: str = Field(
        description="Python's exception name (NameError, RuntimeError ...) or BudgetExceeded."
    )
    message: str
    line: int | None = None
    col: int | None = Field(default=None, description="1-based column.")
    end_line: int | None = Field(
        default=None, description="Where the failing expression ends (its last line)."
    )
    end_col: int | None = Field(
        default=None,
        description="1-based column just past the failing expression on end_line (exclusive): "
        "the span Python's traceback marks with carets.",
    )
    node: str | None = Field(
        default=None,
        description="For autograd errors: the id of the node concerned in the response's "
        "`graph` (the freed node, the tensor changed in place, the root without grad).",
    )
    traceback: str | None = Field(
        default=None,
        description="The program's own frames as Python prints them "
        '(`File "<program>", line 7, in forward`; in a notebook `File "<cell 3>", line 2, '
        "in <module>`), ending with the error.",
    )
    cell: int | None = Field(
        default=None,
        description="In a notebook: the cell (1-based, among the code cells) the error is in; "
        "`line` and `col` are that cell's own.",
    )


class Summary(BaseModel):
    """A large value, summarised."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"shape": [200, 1], "min": 0.01, "max": 4.98, "mean": 2.4, "preview": [1.2, 3.3]}
            ]
        }
    )

    shape: list[int]
    min: float | None
    max: float | None
    mean: float | None
    preview: list[Any]


#: a leaf ``w`` as NodeShape's example; GraphNode's adds its numbers
_LEAF_SHAPE_EXAMPLE: dict[str, Any] = {
    "id": "n2",
    "name": "w",
    "op": None,
    "grad_fn": None,
    "is_leaf": True,
    "requires_grad": True,
    "shape": [],
    "dtype": "torch.float32",
}


class NodeShape(BaseModel):
    """One tensor of a recorded graph, without its numbers (a pass's structure)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={"examples": [_LEAF_SHAPE_EXAMPLE]},
    )

    id: str = Field(examples=["n3"])
    name: str | None = Field(
        default=None, description="The user's variable name.", examples=["loss"]
    )
    op: str | None = Field(default=None, examples=["mul"])
    grad_fn: str | None = Field(default=None, examples=["MulBackward0"])
    is_leaf: bool
    requires_grad: bool
    shape: list[int]
    dtype: str = Field(examples=["torch.float32"])
    value_class: str | None = Field(
        default=None,
        description="For a node drawn from the program's own autograd objects (a "
        "micrograd-style Value): the name of its class; null for tensors.",
        examples=["Value"],
    )
    compare: Literal["agrees", "differs", "replaced", "not_comparable"] | None = Field(
        default=None,
        description="With RunRequest.compare, for a Value node: whether the gradient it "
        "received in this pass equals what PyTorch's rules send it from its consumers' "
        "gradients (the root: PyTorch's seed, 1), within √ε of the data's precision. "
        "`replaced`: it now holds exactly this pass's gradient, but a rule replaced the "
        "gradient it held from an earlier pass instead of adding to it (a value the program "
        "never zeroes; PyTorch would accumulate).",
    )
    compare_grad: Any = Field(
        default=None,
        description="With compare: the .grad this node would hold after the pass with "
        "PyTorch's rules (what it held before plus what they send it), to set beside `grad`; "
        "null when not comparable.",
    )
    compare_reason: str | None = Field(
        default=None,
        description="With compare: why the node is not comparable, or how it differs.",
    )
    earlier: bool | None = Field(
        default=None,
        description="In a notebook cell's graph: recorded by an earlier cell. Without a "
        "backward pass, a tensor an earlier cell made is drawn as an input, like a leaf; a "
        "backward pass the cell called is drawn whole (its walk is what the cell ran) and the "
        "nodes earlier cells recorded carry this mark.",
    )


class GraphNode(NodeShape):
    """One tensor of the recorded graph."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={"examples": [{**_LEAF_SHAPE_EXAMPLE, "value": 0.5, "grad": -24.0}]},
    )

    value: Any = Field(
        default=None, description="Number, nested list, or a Summary above the size limit."
    )
    grad: Any = Field(default=None, description="Like value; null when no gradient.")


class GraphEdge(BaseModel):
    """Data flow: src is an input of dst."""

    model_config = ConfigDict(
        extra="allow", json_schema_extra={"examples": [{"src": "n2", "dst": "n4", "arg": 0}]}
    )

    src: str
    dst: str
    arg: int | None = Field(default=None, description="Which input of dst this edge feeds.")


class Contribution(BaseModel):
    """What one backward step sends to one input."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [{"to": "n2", "local": 2.0, "grad": -24.0, "accumulated_grad": -24.0}]
        },
    )

    to: str
    local: Any = None
    grad: Any = None
    accumulated_grad: Any = None


class MathNode(BaseModel):
    """A node of a caption's expression tree (recorder/caption.py): the page typesets the tree
    itself, so a product of ``1 − a²`` and a gradient is bracketed as the tree says."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"k": "·", "a": [{"k": "name", "t": "x"}, {"k": "num", "v": -12.0, "t": "−12"}]}
            ]
        },
    )

    k: str = Field(
        description="The kind: `num` (`v`, `t`), `name` (a label, `t`), `const` (π, e), "
        "`text` (words, `t`), `d` (∂top/∂wrt), `+ − · / @`, `neg`, `^`, `T` (transpose), "
        "`fn` (`f` applied), `sqrt`, `abs`, `sum` (Σ, `sub`: rows), `iv` (an Iverson bracket "
        "[cond]), `cmp` (comparisons `ops`), `idx` (an index), `seq` (side by side), `paren` (brackets, where "
        "precedence needs them: the page adds none of its own).",
        examples=["num"],
    )
    t: str | None = Field(default=None, description="The text of a number, name or word.")
    v: float | str | None = Field(
        default=None, description="A number's value (NaN and infinities as strings)."
    )
    f: str | None = Field(default=None, description="The function of an `fn` node.")
    ops: list[str] | None = Field(default=None, description="The comparisons of a `cmp`.")
    sub: str | None = Field(default=None, description="Σ's subscript (`rows`).")
    a: list[MathNode] | None = Field(default=None, description="The operands.")


_MATH_KEYS = frozenset(MathNode.model_fields)
_MATH_TEXT = ("t", "f", "sub")


def _math_tree(value: Any) -> Any:
    """MathNode's rules, checked by hand: a worker's answer holds thousands of these nodes, and
    building a model for each (what the model's own validation does) cost more than the rest of
    the answer together (~10 ms for a 30-step program's captions; this: well under 1 ms)."""
    todo = [value]
    while todo:
        e = todo.pop()
        if type(e) is not dict:
            raise ValueError("a caption tree's node must be an object")
        if not _MATH_KEYS.issuperset(e):
            raise ValueError(
                f"unknown keys in a caption tree's node: {sorted(set(e) - _MATH_KEYS)}"
            )
        if type(e.get("k")) is not str:
            raise ValueError("a caption tree's node needs its kind `k` (a string)")
        for key in _MATH_TEXT:
            text = e.get(key)
            if text is not None and type(text) is not str:
                raise ValueError(f"`{key}` of a caption tree's node must be a string")
        v = e.get("v")
        if v is not None and type(v) not in (float, int, str):
            raise ValueError("`v` of a caption tree's node must be a number or a string")
        ops = e.get("ops")
        if ops is not None and (type(ops) is not list or any(type(o) is not str for o in ops)):
            raise ValueError("`ops` of a caption tree's node must be a list of strings")
        a = e.get("a")
        if a is not None:
            if type(a) is not list:
                raise ValueError("`a` of a caption tree's node must be a list")
            todo.extend(a)
    return value


#: a caption tree as the API documents it (MathNode), checked by :func:`_math_tree`
MathTree = Annotated[MathNode, PlainValidator(_math_tree)]


class CaptionLine(BaseModel):
    """One contribution's line: ``lhs op forms[0] = forms[1] = …``, and for a receiver that
    already held a gradient the sum it now holds (``total``: before + sent, after)."""

    model_config = ConfigDict(extra="forbid")

    to: str | None = Field(default=None, description="The node receiving the contribution.")
    lhs: MathTree
    op: Literal["=", "+="]
    forms: list[MathTree] = Field(
        description="Equal forms: the symbolic rule, the same with numbers (when every "
        "operand is a number), the result."
    )
    total: list[MathTree] | None = Field(
        default=None, description="With `+=`: [before + sent, the gradient after]."
    )


class WalkStep(BaseModel):
    """One node's backward, in the order the engine ran them."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "node": "n4",
                    "grad_output": -12.0,
                    "formula": "d(w*x)/dw = x = 2",
                    "contributions": [
                        {"to": "n2", "local": 2.0, "grad": -24.0, "accumulated_grad": -24.0}
                    ],
                }
            ]
        },
    )

    node: str
    grad_output: Any = None
    formula: str | None = Field(
        default=None, description="The step's caption as text: one line per contribution."
    )
    caption: list[CaptionLine] | None = Field(
        default=None,
        description="The same lines as expression trees, for the page to typeset.",
    )
    contributions: list[Contribution] = Field(default_factory=list)


class PracticeMistake(BaseModel):
    """A wrong answer a likely mistake gives, and which mistake it is."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal[
        "accumulation",
        "local_forgotten",
        "upstream_forgotten",
        "local_inverted",
        "broadcast",
        "transpose",
        "sign",
    ] = Field(
        description="`accumulation`: this step's contribution alone (the `+=` missed); "
        "`local_forgotten`: the upstream gradient passed on (×local left out); "
        "`upstream_forgotten`: the local derivative alone; `local_inverted`: divided by the "
        "local derivative; `broadcast`: not summed back to the input's shape; `transpose`: "
        "transposed; `sign`: the sign flipped."
    )
    value: Any = Field(description="The numbers that mistake gives (as the answer's shape).")


class PracticeAsk(BaseModel):
    """One question of a backward step: the gradient of input `to` after the step."""

    model_config = ConfigDict(extra="forbid")

    to: str = Field(description="The node whose gradient is asked (a node id).")
    answer: Any = Field(description="Its gradient after this step (the sum so far).")
    shape: list[int] = Field(description="The answer's shape ([] for a number).")
    mistakes: list[PracticeMistake] = Field(
        default_factory=list, description="Wrong answers the page can name, likeliest first."
    )


class PracticeStep(BaseModel):
    """What walk step `step` (0-based) asks: one question per input it sends a gradient to
    (small gradients only: a step whose gradients are too large to type asks nothing)."""

    model_config = ConfigDict(extra="forbid")

    step: int = Field(ge=0)
    asks: list[PracticeAsk]


class CompareSummary(BaseModel):
    """How many nodes of a Value graph agree with PyTorch (or why it was not compared)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"agrees": 9, "differs": 1, "not_comparable": 0}]},
    )

    agrees: int = 0
    differs: int = 0
    replaced: int = 0
    not_comparable: int = 0
    skipped: str | None = Field(default=None, description="Why the pass was not compared.")


class Graph(BaseModel):
    """A recorded graph with its backward walk."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "nodes": [],
                    "edges": [{"src": "n2", "dst": "n4", "arg": 0}],
                    "walk": [],
                    "root": "n7",
                }
            ]
        },
    )

    nodes: list[GraphNode]
    edges: list[GraphEdge]
    walk: list[WalkStep] = Field(default_factory=list)
    root: str | None = None
    value_class: str | None = Field(
        default=None,
        description="Set when the graph was drawn from the program's own autograd objects "
        "(a micrograd-style Value): their class's name. The walk is then the program's own "
        "backward, call by call.",
    )
    compare: CompareSummary | None = Field(
        default=None, description="With RunRequest.compare, for a Value graph: the counts."
    )
    practice: list[PracticeStep] | None = Field(
        default=None,
        description="With RunRequest.practice: what each walk step asks the learner, with the "
        "answer and the wrong answers it can diagnose (all from the recorded walk).",
    )


class GraphStructure(BaseModel):
    """What the passes that share it have in common: a Graph without its walk, its pass index
    and its nodes' ``value`` and ``grad`` (those are the pass's: see PassValues)."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {
                    "nodes": [{"id": "n0", "name": "w", "op": "leaf", "grad_fn": None,
                               "is_leaf": True, "requires_grad": True, "shape": [],
                               "dtype": "torch.float32"}],
                    "edges": [],
                    "root": "n0",
                    "root_label": "w",
                    "modules": [],
                }
            ]
        },
    )  # fmt: skip

    nodes: list[NodeShape]
    edges: list[GraphEdge]
    root: str | None = None
    value_class: str | None = Field(
        default=None,
        description="Set when the graph was drawn from the program's own autograd objects "
        "(a micrograd-style Value): their class's name.",
    )


class PassValues(BaseModel):
    """One kept backward pass: its structure (an index into the answer's ``structures``), its
    nodes' values and gradients in the structure's node order, and its walk. The pass's whole
    graph is the structure with ``nodes[i].value = values[i]``, ``nodes[i].grad = grads[i]``
    and this object's other keys (``walk``, ``pass_index``, ``compare``) added; ``walk_from``
    names an earlier pass whose walk this one shares."""

    model_config = ConfigDict(
        extra="allow",
        json_schema_extra={
            "examples": [
                {"structure": 0, "pass_index": 0, "values": [0.5], "grads": [1.0], "walk": []}
            ]
        },
    )

    structure: int = Field(ge=0, description="Index into the answer's `structures`.")
    pass_index: int | None = Field(
        default=None, description="Which backward pass of the program this is (0-based)."
    )
    values: list[Any] = Field(
        description="Each node's value (as GraphNode.value), in the structure's node order."
    )
    grads: list[Any] = Field(description="Each node's gradient (as GraphNode.grad), same order.")
    walk: list[WalkStep] = Field(default_factory=list)
    walk_from: int | None = Field(
        default=None,
        ge=0,
        description="When set, this pass sent no walk: its walk is the one the pass at this "
        "index of `passes` sent (an earlier pass of the same structure), with this pass's own "
        "gradients put back where that walk leaves them out.",
    )
    compare: CompareSummary | None = Field(
        default=None, description="With RunRequest.compare, for a Value graph: the counts."
    )
    practice: list[PracticeStep] | None = Field(
        default=None, description="With RunRequest.practice: as Graph.practice."
    )


class RunResponse(BaseModel):
    """What the program printed, its error if any, and the graphs of its backward passes."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "ok": True,
                    "stdout": "36.0 -24.0 -12.0\n",
                    "error": None,
                    "graph": {"nodes": [], "edges": [], "walk": [], "root": None},
                    "passes": [],
                    "device": "cpu",
                    "notice": None,
                    "timing_ms": {"parse": 0.2, "run": 0.4, "total": 1.1},
                },
                {
                    "ok": False,
                    "stdout": "",
                    "error": {
                        "type": "NameError",
                        "message": "name 'wx' is not defined",
                        "line": 1,
                        "col": 7,
                    },
                    "graph": None,
                    "passes": [],
                    "device": "cpu",
                    "notice": None,
                    "timing_ms": {"total": 0.3},
                },
            ]
        },
    )

    ok: bool
    stdout: str = Field(
        description="Exactly what the program printed (up to the error, if any); when it "
        "printed more than `max_output_chars`, its head and its end within that many "
        "characters, the cut marked between them (see `output_truncated`)."
    )
    output_truncated: bool = Field(
        default=False,
        description="The program printed more than `max_output_chars`: `stdout` holds its "
        "head (three quarters of the budget, streamed as printed) and its end, with a line "
        "saying how many characters were cut between them; the program ran on (it is not "
        "stopped for printing). A run stopped or killed keeps the head only.",
    )
    output_chars: int | None = Field(
        default=None,
        description="When `output_truncated`: how many characters the program printed in all.",
    )
    error: UserErrorInfo | None = None
    graph: Graph | None = Field(
        default=None,
        description="The graph to show when it is not one of `passes` (an error's graph, or "
        "what a program that never called backward recorded); null when `graph_pass` names "
        "the pass to show (or there is no graph).",
    )
    graph_pass: int | None = Field(
        default=None,
        description="The graph to show is `passes[graph_pass]` (the last backward pass).",
    )
    structures: list[GraphStructure] = Field(
        default_factory=list,
        description="The structures of the kept passes, each once (passes of a loop share one).",
    )
    passes: list[PassValues] = Field(
        default_factory=list,
        description="Backward passes, each with its real `pass_index` (bounded: the first ones "
        "and the last are kept): its structure's index, and its values, gradients and walk.",
    )
    passes_total: int = Field(
        default=0, description="How many backward passes the program ran (kept or not)."
    )
    result: str | None = Field(
        default=None,
        description="The repr of the last statement's value when that statement is an "
        "expression (as a notebook shows it); null when it is None or not an expression.",
    )
    device: str
    notice: str | None = Field(
        default=None,
        description="E.g. that the playground called backward() itself, or a warning PyTorch "
        "would print (reading .grad of a non-leaf tensor), one per line with its line number.",
    )
    timing_ms: dict[str, float] = Field(default_factory=dict)


class NotebookCell(BaseModel):
    """One cell of a notebook: prose (markdown) or code."""

    model_config = ConfigDict(extra="forbid")

    kind: Literal["markdown", "code"]
    source: str


class Example(BaseModel):
    """One gallery example: a program, or a lesson as a notebook (``cells``)."""

    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {"id": "x-squared", "title": "x·x + 3x", "explanation": "...", "source": "..."}
            ]
        }
    )

    id: str
    title: str
    explanation: str
    source: str
    bindings: dict[str, Binding] | None = Field(
        default=None, description="Free variables to run it with."
    )
    cells: list[NotebookCell] | None = Field(
        default=None,
        description="A lesson: its cells, the prose as markdown and the code blocks as code "
        "(open it on /notebook, or run it with POST /api/v1/notebook/run); `source` is then "
        "its code cells joined, which run as one program the same.",
    )


class ErrorBody(BaseModel):
    """A request error (4xx): what was wrong with the request itself."""

    model_config = ConfigDict(
        json_schema_extra={"examples": [{"detail": "request body too large (limit 262144 bytes)"}]}
    )

    detail: Any


class RunStreamEvent(BaseModel):
    """One line of ``POST /api/v1/run/stream``'s answer (newline-delimited JSON)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"event": "start", "elapsed_ms": 0.0},
                {"event": "stdout", "elapsed_ms": 12.4, "text": "step 0 loss 36.0\n"},
                {"event": "progress", "elapsed_ms": 512.0},
                {
                    "event": "result",
                    "elapsed_ms": 640.2,
                    "response": RunResponse.model_config["json_schema_extra"]["examples"][0],  # type: ignore[index]
                },
            ]
        },
    )

    event: Literal["start", "stdout", "progress", "busy", "stopping", "invalid", "result"] = Field(
        description="`start`: the run has a worker slot; `stdout`: the program printed "
        "`text`; `progress`: still running, nothing printed lately; `busy`: no worker "
        "became ready in time, or admission control refused the run (try again after "
        "`retry_after_s`); `stopping` (WebSocket only): a `stop` was received, the "
        "`result` that follows keeps what was recorded; `invalid` (WebSocket only): the "
        "run message did not validate (`detail`); `result`: the last, with `response`."
    )
    elapsed_ms: float = Field(description="Milliseconds since the run started.")
    text: str | None = Field(default=None, description="`stdout`: what the program printed.")
    retry_after_s: int | None = Field(default=None, description="`busy`: seconds to wait.")
    detail: Any = Field(
        default=None,
        description="`busy`: why; `invalid`: the validation error (as a 422's `detail`).",
    )
    response: RunResponse | None = Field(
        default=None, description="`result`: what `POST /api/v1/run` would have answered."
    )


# ---- POST /api/v1/notebook/run -----------------------------------------------------------------

MAX_CELLS = 200

NOTEBOOK_EXAMPLE: list[Any] = [
    "import torch\nx = torch.tensor(2.0, requires_grad=True)",
    "y = x * x + 3 * x\nprint(y.item())",
    "y.backward()\nprint(x.grad.item())",
]


class NotebookRunRequest(BaseModel):
    """A notebook's code cells and the cell to show: cells 1..``cell`` run in order."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"cells": list(NOTEBOOK_EXAMPLE), "cell": 3, "seed": 0}]},
    )

    cells: list[str] = Field(
        min_length=1,
        max_length=MAX_CELLS,
        description="The code cells' sources, in order (markdown cells are left out: the "
        "numbering is the code cells'). Real Python, run in a kernel jail; 64 KiB in all.",
    )
    cell: int = Field(
        ge=1,
        le=MAX_CELLS,
        description="The cell to run and show (1-based). Cells 1..cell run in order in one "
        "jailed worker, in one namespace, from the request's seed: the state cell `cell` sees "
        "is what the cells before it left, every time (a one-shot run, deterministic).",
    )
    device: str = Field(
        default="cpu", pattern=r"^(cpu|cuda(:\d{1,2})?)$", description="Where tensors live."
    )
    seed: int = Field(
        default=0, ge=0, le=2**32 - 1, description="torch.manual_seed before cell 1 runs."
    )
    compare: bool = Field(
        default=False, description="As RunRequest.compare, for the shown cell's Value graphs."
    )
    practice: bool = Field(
        default=False, description="As RunRequest.practice, for the shown cell's passes."
    )

    @field_validator("cells")
    @classmethod
    def _check_size(cls, cells: list[str]) -> list[str]:
        size = sum(len(c.encode("utf-8", "surrogatepass")) for c in cells)
        if size > 64 * 1024:
            raise ValueError(f"the cells hold {size:,} bytes of code, at most 65,536")
        return cells

    @model_validator(mode="after")
    def _check_cell(self) -> NotebookRunRequest:
        if self.cell > len(self.cells):
            raise ValueError(f"cell {self.cell} asked for, but there are {len(self.cells)} cells")
        return self


class CellRun(BaseModel):
    """How one cell that ran ended, and what it printed."""

    model_config = ConfigDict(extra="forbid")

    cell: int = Field(description="The cell's number (1-based).")
    ok: bool = Field(description="It ran to its end (false: the error is the response's).")
    stdout: str = Field(description="What this cell printed (its part of `stdout`).")
    result: str | None = Field(
        default=None,
        description="The repr of the cell's last statement's value when that statement is an "
        "expression (a notebook's Out[n]); null when it is None or not an expression.",
    )


class NotebookRunResponse(BaseModel):
    """What each cell that ran printed, the error that stopped the run if any, and the graphs
    of the cell shown."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {
                    "ok": True,
                    "cell": 3,
                    "cells": [
                        {"cell": 1, "ok": True, "stdout": "", "result": None},
                        {"cell": 2, "ok": True, "stdout": "10.0\n", "result": None},
                        {"cell": 3, "ok": True, "stdout": "7.0\n", "result": None},
                    ],
                    "stdout": "10.0\n7.0\n",
                    "error": None,
                    "graph": {"nodes": [], "edges": [], "walk": [], "root": None},
                    "passes": [],
                    "passes_total": 1,
                    "device": "cpu",
                    "notice": None,
                    "timing_ms": {"parse": 0.3, "run": 0.6, "total": 1.4},
                }
            ]
        },
    )

    ok: bool
    cell: int = Field(
        description="The cell whose graphs `graph` and `passes` are: the one asked for, or the "
        "earlier cell whose error stopped the run."
    )
    cells: list[CellRun] = Field(
        description="Each cell that ran, in order: cells 1..cell, or up to the one that failed "
        "(empty when a cell could not be compiled: nothing ran)."
    )
    stdout: str = Field(description="Everything the cells printed, in order (see RunResponse).")
    output_truncated: bool = Field(
        default=False, description="As RunResponse's: the cells printed more than the budget."
    )
    output_chars: int | None = Field(
        default=None, description="When `output_truncated`: how many characters they printed."
    )
    error: UserErrorInfo | None = Field(
        default=None, description="The error that stopped the run; `cell` says where."
    )
    graph: Graph | None = Field(
        default=None,
        description="The shown cell's graph when it is not one of `passes`: without a "
        "backward pass, the operations the cell recorded (tensors earlier cells made are its "
        "inputs); null when `graph_pass` names it.",
    )
    graph_pass: int | None = Field(
        default=None,
        description="The shown cell's graph is `passes[graph_pass]` (its last backward pass).",
    )
    structures: list[GraphStructure] = Field(
        default_factory=list, description="The structures of the kept passes, each once."
    )
    passes: list[PassValues] = Field(
        default_factory=list,
        description="The backward passes the shown cell called (bounded), as in RunResponse.",
    )
    passes_total: int = Field(
        default=0, description="How many backward passes the shown cell ran (kept or not)."
    )
    device: str
    notice: str | None = None
    timing_ms: dict[str, float] = Field(default_factory=dict)


class NotebookStreamEvent(BaseModel):
    """One line of ``POST /api/v1/notebook/run/stream``'s answer (newline-delimited JSON)."""

    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"event": "start", "elapsed_ms": 0.0},
                {"event": "cell", "elapsed_ms": 1.2, "cell": 1},
                {"event": "stdout", "elapsed_ms": 3.4, "text": "10.0\n"},
            ]
        },
    )

    event: Literal[
        "start", "cell", "stdout", "progress", "busy", "stopping", "invalid", "result"
    ] = Field(
        description="As RunStreamEvent's, and `cell`: cell `cell` starts, so the `stdout` "
        "events that follow are its output."
    )
    elapsed_ms: float = Field(description="Milliseconds since the run started.")
    cell: int | None = Field(default=None, description="`cell`: the cell that starts.")
    text: str | None = Field(default=None, description="`stdout`: what the cell printed.")
    retry_after_s: int | None = Field(default=None, description="`busy`: seconds to wait.")
    detail: Any = Field(
        default=None,
        description="`busy`: why; `invalid`: the validation error (as a 422's `detail`).",
    )
    response: NotebookRunResponse | None = Field(
        default=None,
        description="`result`: what `POST /api/v1/notebook/run` would have answered.",
    )
