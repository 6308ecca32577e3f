"""The detection rules for a program's own autograd objects (docs/programs.md, "Your own autograd, drawn"):
which objects count, which are refused quietly (no graph, no error, the program unchanged),
cycles, graphs over the node budget, hostile attributes, and the observed walk's edge cases."""

from __future__ import annotations

import contextlib
import io
from collections.abc import Iterator
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from tests.api.conftest import TEST_SETTINGS, make_settings, run, validate_graphs


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    """The suite's settings with a wall clock no run here comes near, loaded machine or not:
    the budgets under test are the graph's, and some programs here draw a million numbers
    (none of these tests is about time)."""
    with TestClient(create_app(make_settings(wall_clock_s=60.0))) as c:
        yield c


# A Value in the lessons' style; {parents}, {op}, {step} and {data} are the parts under test.
TEMPLATE = """
class Value:
    def __init__(self, data, parents=(), op=""):
        self.data, self.grad = {data}, 0.0
        self.{parents_attr} = {parents}
        self.{op_attr} = op
        self.{step} = lambda: None
    def __add__(self, other):
        out = Value(self.data + other.data, (self, other), "+")
        def bw(): self.grad += out.grad; other.grad += out.grad
        out.{step} = bw
        return out
    def __mul__(self, other):
        out = Value(self.data * other.data, (self, other), "*")
        def bw(): self.grad += other.data * out.grad; other.grad += self.data * out.grad
        out.{step} = bw
        return out
    def backward(self):
        order, seen = [], set()
        def visit(v):
            if id(v) not in seen:
                seen.add(id(v)); [visit(p) for p in v.{parents_attr}]; order.append(v)
        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v.{step}()
a, b = Value(2.0), Value(3.0)
c = a * b + a
c.backward()
print(a.grad, b.grad)
"""


ITERATIVE_BACKWARD = """    def backward(self):
        order, seen, stack = [], set(), [(self, False)]
        while stack:
            v, done = stack.pop()
            if done:
                order.append(v)
            elif id(v) not in seen:
                seen.add(id(v)); stack.append((v, True))
                stack.extend((p, False) for p in v._prev)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()
"""


def with_iterative_backward(source: str) -> str:
    """``source``'s Value with a backward that sorts without recursion (for long chains)."""
    start = source.index("    def backward(self):")
    return source[:start] + ITERATIVE_BACKWARD + source[source.index("a, b = Value(2.0)") :]


def value_program(
    parents_attr: str = "_prev",
    parents: str = "parents",
    op_attr: str = "_op",
    step: str = "_backward",
    data: str = "data",
) -> str:
    return TEMPLATE.format(
        parents_attr=parents_attr, parents=parents, op_attr=op_attr, step=step, data=data
    )


def body_of(client: TestClient, source: str, **fields: Any) -> dict[str, Any]:
    body = run(client, source, **fields)
    validate_graphs(body, strict=True)
    return body


def graph_of(client: TestClient, source: str) -> dict[str, Any]:
    body = body_of(client, source)
    assert body["ok"], body["error"]
    assert body["graph"] is not None, "the objects should count"
    assert body["graph"].get("value_class"), body["graph"]
    return dict(body["graph"])


def refused(client: TestClient, source: str, stdout: str) -> dict[str, Any]:
    """The program runs exactly as without the playground, and no graph is drawn."""
    body = body_of(client, source)
    assert body["ok"], body["error"]
    assert body["stdout"] == stdout
    assert body["graph"] is None and body["passes"] == [] and body["passes_total"] == 0
    return body


@pytest.mark.parametrize(
    ("parents_attr", "parents", "op_attr", "step"),
    [
        ("_prev", "set(parents)", "_op", "_backward"),  # micrograd
        ("parents", "parents", "op", "backward_fn"),  # the lesson
        ("prev", "list(parents)", "op", "_backward_fn"),
        ("_children", "tuple(parents)", "_op", "grad_fn"),
        ("children", "frozenset(parents)", "_op", "_grad_fn"),
        ("_parents", "parents", "label", "_backward"),  # no op label: still counts
    ],
)
def test_which_objects_count(
    client: TestClient, parents_attr: str, parents: str, op_attr: str, step: str
) -> None:
    graph = graph_of(client, value_program(parents_attr, parents, op_attr, step))
    nodes = {n["label"]: n for n in graph["nodes"]}
    assert nodes["a"]["grad"] == 4.0 and nodes["b"]["grad"] == 2.0
    assert len(graph["nodes"]) == 4 and len(graph["edges"]) == 4
    assert len(graph["walk"]) == 2  # the + and the *, as the program called them
    result = next(n for n in graph["nodes"] if n["kind"] == "output")
    assert result["name"] == "c"
    assert result["op"] == ("+" if op_attr != "label" else None)
    contributions = [c["grad"] for s in graph["walk"] for c in s["contributions"]]
    assert sorted(contributions) == [1.0, 1.0, 2.0, 3.0]


def test_numpy_data_and_grads_count(client: TestClient) -> None:
    source = value_program(data="np.asarray(data, dtype=np.float64)").replace(
        "a, b = Value(2.0), Value(3.0)", "a, b = Value([1.0, 2.0]), Value([3.0, 4.0])"
    )
    source = "import numpy as np\n" + source.replace("self.grad = 1.0", "self.grad = np.ones(2)")
    graph = graph_of(client, source)
    nodes = {n["label"]: n for n in graph["nodes"]}
    assert nodes["a"]["shape"] == [2] and nodes["a"]["dtype"] == "float64"
    assert nodes["a"]["grad"] == [4.0, 5.0] and nodes["b"]["grad"] == [1.0, 2.0]
    sent = graph["walk"][0]["contributions"]  # the +: the ones pass through
    assert [c["grad"] for c in sent] == [[1.0, 1.0], [1.0, 1.0]]


def test_a_per_node_rule_defined_on_the_class_is_observed(client: TestClient) -> None:
    source = """
class Value:
    def __init__(self, data, children=(), op=""):
        self.data, self.grad, self._prev, self._op = data, 0.0, children, op
    def __mul__(self, other):
        return Value(self.data * other.data, (self, other), "*")
    def _backward(self):
        if self._op == "*":
            a, b = self._prev
            a.grad += b.data * self.grad
            b.grad += a.data * self.grad
    def backward(self):
        self.grad = 1.0
        self._backward()
        for p in self._prev:
            p._backward()
x, y = Value(3.0), Value(4.0)
z = x * y
z.backward()
print(x.grad, y.grad, "_backward" in vars(z))
"""
    body = body_of(client, source)
    assert body["stdout"] == "4.0 3.0 False\n"  # the observer is gone again
    walk = body["graph"]["walk"]
    assert len(walk) == 1 and [c["grad"] for c in walk[0]["contributions"]] == [4.0, 3.0]


def test_no_backward_called_draws_the_last_value_assigned(client: TestClient) -> None:
    source = (
        value_program()
        .replace("c.backward()\n", "")
        .replace("print(a.grad, b.grad)", "d = c * c\nprint(d.data)")
    )
    body = body_of(client, source)
    assert body["stdout"] == "64.0\n"
    graph = body["graph"]
    assert graph["walk"] == [] and graph["value_class"] == "Value"
    assert next(n for n in graph["nodes"] if n["kind"] == "output")["name"] == "d"
    assert body["passes_total"] == 0 and len(body["passes"]) == 1


LEAN = value_program()

NOT_VALUES = {
    "data that is text": LEAN.replace("self.data, self.grad = data, 0.0", "self.data, self.grad = str(data), 0.0")
    .replace("c = a * b + a", "c = a + b"),
    "data that is a bool": LEAN.replace("a, b = Value(2.0), Value(3.0)", "a, b = Value(True), Value(False)")
    .replace("c = a * b + a", "c = a * b"),
    "no grad (it is called g)": LEAN.replace("self.data, self.grad = data, 0.0", "self.data, self.g = data, 0.0")
    .replace("self.grad", "self.g").replace("other.grad", "other.g").replace("out.grad", "out.g")
    .replace("print(a.grad, b.grad)", "print(a.g, b.g)"),
    "a grad that is a list": LEAN.replace("self.data, self.grad = data, 0.0", "self.data, self.grad = data, [0.0]")
    .replace("self.grad +=", "self.grad[0] +=").replace("other.grad +=", "other.grad[0] +=")
    .replace("out.grad", "out.grad[0]").replace("self.grad = 1.0", "self.grad = [1.0]"),
    "parents in a dict": LEAN.replace("self._prev = parents", "self._prev = dict.fromkeys(parents)"),
    "a number among the parents": LEAN.replace("self._prev = parents", "self._prev = parents + (1.5,)")
    .replace("[visit(p) for p in v._prev]", "[visit(p) for p in v._prev if not isinstance(p, float)]"),
    "__slots__ instead of a __dict__": LEAN.replace(
        "class Value:", "class Value:\n    __slots__ = ('data', 'grad', '_prev', '_op', '_backward')"
    ),
    "a parent of another class": LEAN.replace(
        "c.backward()", "class Other:\n    data, grad, _prev = 1.0, 0.0, ()\n    def _backward(self): pass\n"
        "a._prev = (Other(),)\nc.backward()"
    ),
}  # fmt: skip


def plain_stdout(source: str) -> str:
    """What the program prints when CPython runs it on its own (no playground)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, "<program>", "exec"), {"__name__": "__main__"})
    return out.getvalue()


@pytest.mark.parametrize("why", sorted(NOT_VALUES))
def test_which_objects_do_not_count(client: TestClient, why: str) -> None:
    source = NOT_VALUES[why]
    refused(client, source, plain_stdout(source))


def test_a_cycle_is_refused_quietly(client: TestClient) -> None:
    source = value_program().replace(
        "c.backward()", "a._prev = (c,)  # a cycle: c -> a -> c\nc.backward()"
    )
    refused(client, source, plain_stdout(source))


def test_a_graph_over_the_node_budget_is_refused_with_a_notice(client: TestClient) -> None:
    limit = int(TEST_SETTINGS["max_graph_nodes"])  # type: ignore[call-overload]
    source = value_program().replace(
        "c = a * b + a",
        f"c = a\nfor i in range({limit}):\n    c = c + b",
    )
    source = with_iterative_backward(source)
    body = refused(client, source, plain_stdout(source))
    assert body["stdout"] == f"1.0 {float(limit)}\n"
    assert "max_graph_nodes" in body["notice"] and f"{limit:,}" in body["notice"]


def test_attributes_that_raise_never_break_the_run(client: TestClient) -> None:
    """Properties, __getattr__, __getattribute__ and __class__ that raise: the playground reads
    only instance dicts, so the program behaves exactly as it would on its own."""
    hostile = """
class Angry:
    def __getattribute__(self, name):
        if name in ("grad", "data", "_prev", "_op", "_backward", "backward", "__dict__"):
            return object.__getattribute__(self, name)
        raise RuntimeError("do not look at me: " + name)
"""
    source = value_program().replace("class Value:", hostile + "class Value(Angry):")
    graph = graph_of(client, source)  # the dicts are all there: the graph counts
    assert {n["label"] for n in graph["nodes"] if n["is_leaf"]} == {"a", "b"}

    lying = value_program().replace(
        "c.backward()",
        "class Liar:\n"
        "    @property\n"
        "    def __class__(self):\n"
        "        raise RuntimeError('no class for you')\n"
        "    data, grad = 1.0, 0.0\n"
        "    def _backward(self): pass\n"
        "    _prev = ()\n"
        "a._prev = (Liar(),)\n"
        "c.backward()",
    )
    refused(client, lying, plain_stdout(lying))

    prop = value_program().replace(
        "class Value:",
        "class Value:\n    @property\n    def label(self):\n        raise ValueError('x')",
    )
    assert graph_of(client, prop)["nodes"]


def test_a_backward_that_raises_keeps_the_walk_so_far(client: TestClient) -> None:
    source = value_program().replace(
        "def bw(): self.grad += other.data * out.grad; other.grad += self.data * out.grad",
        "def bw(): self.grad += other.data * out.grad; other.grad += 1 / 0",
    )
    source = source.replace(
        "c.backward()",
        "try:\n    c.backward()\nexcept ZeroDivisionError:\n"
        "    print('caught', c._prev[0]._backward.__name__)\nc.backward()",
    )
    body = body_of(client, source)
    assert not body["ok"] and body["error"]["type"] == "ZeroDivisionError"
    assert body["stdout"] == "caught bw\n"  # the program's own function is back in place
    assert body["passes_total"] == 2
    graph = body["graph"]
    assert graph["complete"] is False
    assert len(graph["walk"]) == 2
    # the first pass stopped in a * b after a.grad += b.data · 1; the second starts with the
    # gradient the first one left in a · b (1), so it sends 3 · 2
    first, second = (g["walk"][-1]["contributions"] for g in body["passes"])
    assert first[0]["grad"] == 3.0 and second[0]["grad"] == 6.0


def test_a_recursive_backward_is_one_pass(client: TestClient) -> None:
    source = (
        value_program()
        .replace(
            """        visit(self)
        self.grad = 1.0
        for v in reversed(order):
            v._backward()""",
            """        if not self._prev:
            return
        self._backward()
        for p in self._prev:
            p.backward()""",
        )
        .replace("c.backward()", "c.grad = 1.0\nc.backward()")
    )
    body = body_of(client, source)
    assert body["ok"], body["error"]
    assert body["passes_total"] == 1
    assert len(body["graph"]["walk"]) == 2


def test_passes_are_bounded_first_ones_and_the_last(client: TestClient) -> None:
    source = value_program().replace(
        "c.backward()", "for i in range(30):\n    a.grad = b.grad = 0.0\n    c.backward()"
    )
    body = body_of(client, source)
    assert body["passes_total"] == 30
    indices = [g["pass_index"] for g in body["passes"]]
    assert indices == [*range(19), 29]


def test_weak_names_give_way_to_top_level_names(client: TestClient) -> None:
    source = value_program().replace(
        "c = a * b + a",
        "def product(u, v):\n    out = u * v\n    return out\n"
        "p = product(a, b)\nsomething = product(b, b)\nc = p + a",
    )
    graph = graph_of(client, source)
    names = sorted(n["name"] for n in graph["nodes"] if n["name"])
    assert names == ["a", "b", "c", "p"]


def test_value_and_tensor_passes_interleave_in_the_order_they_ran(client: TestClient) -> None:
    source = value_program().replace(
        "c.backward()",
        "import torch\n"
        "t = torch.tensor(2.0, requires_grad=True)\n"
        "(t * t).backward()\n"
        "c.backward()\n"
        "(t * 3).backward()\n"
        "a.grad = b.grad = 0.0\n"
        "c.backward()",
    )
    body = body_of(client, source)
    kinds = [
        ("Value" if g.get("value_class") else "tensor", g["pass_index"]) for g in body["passes"]
    ]
    assert kinds == [("tensor", 0), ("Value", 1), ("tensor", 2), ("Value", 3)]
    assert body["passes_total"] == 4


def test_compare_says_not_comparable_for_an_op_pytorch_does_not_know(client: TestClient) -> None:
    source = value_program().replace('"*")', '"times")')
    body = body_of(client, source, compare=True)
    nodes = {n["label"]: n for n in body["graph"]["nodes"]}
    assert nodes["a"]["compare"] == "not_comparable" and nodes["b"]["compare"] == "not_comparable"
    times = next(n for n in body["graph"]["nodes"] if n["op"] == "times")
    assert times["compare"] == "not_comparable" and "times" in times["compare_reason"]
    assert nodes["c"]["compare"] == "agrees"


def test_compare_says_not_comparable_when_the_label_lies(client: TestClient) -> None:
    source = value_program().replace(
        'out = Value(self.data * other.data, (self, other), "*")',
        'out = Value(self.data + other.data, (self, other), "*")',
    )
    body = body_of(client, source, compare=True)
    lying = next(n for n in body["graph"]["nodes"] if n["op"] == "*")
    assert lying["compare"] == "not_comparable"
    assert "value is not what PyTorch" in lying["compare_reason"]


def test_compare_finds_a_missing_seed(client: TestClient) -> None:
    source = value_program().replace("self.grad = 1.0", "pass")
    body = body_of(client, source, compare=True)
    root = next(n for n in body["graph"]["nodes"] if n["kind"] == "output")
    assert root["compare"] == "differs" and root["compare_grad"] == 1.0
    assert body["graph"]["compare"]["differs"] == 1


def test_a_graph_over_the_elements_budget_is_refused_with_a_notice(client: TestClient) -> None:
    limit = int(TEST_SETTINGS["max_drawn_numbers"])  # type: ignore[call-overload]
    half = limit // 2 + 1
    source = "import numpy as np\n" + value_program().replace(
        "a, b = Value(2.0), Value(3.0)", f"a, b = Value(np.ones({half})), Value(np.ones({half}))"
    ).replace("self.grad = 1.0", "self.grad = np.ones_like(self.data)").replace(
        "print(a.grad, b.grad)", "print(a.grad.sum(), b.grad.sum())"
    )
    body = refused(client, source, plain_stdout(source))
    assert "max_drawn_numbers" in body["notice"]


def test_kept_passes_stay_within_twice_the_node_budget(client: TestClient) -> None:
    """A loop over big scalar graphs keeps the first passes that fit and the last one."""
    limit = int(TEST_SETTINGS["max_graph_nodes"])  # type: ignore[call-overload]
    size = 700  # nodes per pass: a, b and 698 results
    source = value_program().replace(
        "c = a * b + a\nc.backward()",
        "for step in range(10):\n"
        "    c = a\n"
        f"    for i in range({size - 2}):\n"
        "        c = c + b\n"
        "    a.grad = b.grad = 0.0\n"
        "    c.backward()",
    )
    source = with_iterative_backward(source)
    body = body_of(client, source)
    assert body["ok"], body["error"]
    assert body["passes_total"] == 10
    kept = [g["pass_index"] for g in body["passes"]]
    assert kept == [0, 1, 2, 3, 9]  # 700 · (4 + 1 for the last) ≤ 2 · 2,000 < 700 · (5 + 1)
    assert sum(len(g["nodes"]) for g in body["passes"]) <= 2 * limit
    assert all(len(g["nodes"]) == size for g in body["passes"])
