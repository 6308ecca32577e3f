"""Programs are real Python: what they print and how they fail is what CPython does."""

from __future__ import annotations

import contextlib
import io

import pytest

from tests.sandbox.helpers import err, out, run

# Programs whose stdout must be exactly what real Python prints.
PYTHON_PROGRAMS = [
    "print(1 + 2, 7 // 2, -7 % 3, 2 ** 10, 7 / 2, 1 / 3)",
    "print(0.1 + 0.2, 1e16, 1e-5, 1.0, -0.0, 3.14159, 2.5e-10)",
    "print(round(2.675, 2), round(0.5), round(1.5), round(-2.5), round(3.14159, 3), round(7))",
    "print(f'{3.14159:.2f}|{2:5d}|{-1.5:+.3e}|{0.25:%}|{1234567:,}|{42:>8}|{42:<4}|{7:08.3f}')",
    "x = 2.5\nprint(f'{x!r} {x!s} {x=}' if False else f'{x!r} {x!s}')",
    "print('a', 'b', sep='-', end='!\\n')\nprint()",
    "print([1, 2.0, 'a', None, True], (1,), (), {'k': [1, (2, 3)]}, {1, 2}, set())",
    "a, (b, c) = 1, (2, 3)\nprint(a, b, c)",
    "xs = [i * i for i in range(10) if i % 2]\nprint(xs, sum(xs), len(xs), max(xs), min(xs))",
    "print(sum(i for i in range(5)), any(x > 3 for x in [1, 5]), all([]), sorted([3, 1, 2], reverse=True))",
    "d = {k: v for k, v in zip('abc', range(3))}\nprint(d, list(d.items()), d.get('z', 0))",
    "for i, x in enumerate(['a', 'b'], start=1):\n    print(i, x)",
    "total = 0\nfor i in range(10):\n    if i == 3:\n        continue\n    if i == 7:\n        break\n    total += i\nelse:\n    total = -1\nprint(total)",
    "n = 0\nwhile n < 5:\n    n += 2\nelse:\n    print('done', n)",
    "def f(a, b=2):\n    return a * b\nprint(f(3), f(3, b=4), f(b=1, a=5))",
    "def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\nprint([fib(i) for i in range(12)])",
    "def outer(x):\n    def inner(y):\n        return x + y\n    return inner(10)\nprint(outer(5))",
    "s = 'Hello, World'\nprint(s.lower(), s.split(', '), '-'.join(['a', 'b']), s[::-1], s[1:4], s.replace('l', 'L'))",
    "print('{} + {} = {:.1f}'.format(1, 2, 3.0), '{a}!'.format(a='hi'))",
    "xs = [3, 1, 2]\nxs.append(4)\nxs.sort()\nxs.extend([9])\nprint(xs, xs.pop(), xs.index(2), xs[-1], xs[1:])",
    "print(abs(-3), abs(-2.5), int('42'), float('1.5'), int(3.9), str(12), bool(0), divmod(7, 2), pow(2, 8))",
    "print(1 < 2 < 3, 1 < 3 < 2, 2 in [1, 2], 'a' not in 'abc', None is None, not [])",
    "print(3 if True else 4, [] or 'default', 0 and 1, 1 and 2)",
    "import math\nprint(math.sqrt(2), math.pi, math.exp(1), math.log(10), math.floor(2.7), math.isclose(0.1 + 0.2, 0.3))",
    "x = [1, 2, 3]\nx[0] = 10\nx[1:2] = [20, 21]\ndel x[-1]\nprint(x)",
    "t = (1, 2) + (3,)\nprint(t, t * 2, t.count(1), len(t))",
    "print(list(reversed([1, 2, 3])), list(range(10, 0, -3)), tuple('ab'), list(zip([1, 2], 'ab')))",
    "print(f'{[1.5, 2]}', f'{ {1: 2} }', f'{\"q\"!r}', repr('x'), str([1, 'a']))",
    "x = 5\nx -= 2\nx *= 3\nx //= 2\nx **= 2\nprint(x)",
    "print(max(3, 7, 5), min([4, 2, 8]), max([], default=0), sum([0.1] * 10))",
    "d = {}\nd['a'] = 1\nd.update({'b': 2})\nprint(d, len(d), 'a' in d, list(d.keys()), list(d.values()))",
    "assert 1 + 1 == 2\nprint('ok')",
    "print(10 ** 20, 2 ** 100, -(2 ** 63), 7 % -3, -7 // 2, 1e308 * 10, float('nan'))",
]


def _python_stdout(source: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        exec(compile(source, "<test>", "exec"), {})
    return buffer.getvalue()


@pytest.mark.parametrize("source", PYTHON_PROGRAMS)
def test_stdout_matches_python(source: str) -> None:
    assert out(source) == _python_stdout(source)


# (source, type, message, line, col)
ERRORS = [
    ("x = 1\nprint(wx)", "NameError", "name 'wx' is not defined", 2, 7),
    ("print(1 / 0)", "ZeroDivisionError", "division by zero", 1, 7),
    ("[1, 2][5]", "IndexError", "list index out of range", 1, 1),
    ("{'a': 1}['b']", "KeyError", "'b'", 1, 1),
    ("a, b = [1, 2, 3]", "ValueError", "too many values to unpack (expected 2)", 1, 1),
    ("a, b, c = [1, 2]", "ValueError", "not enough values to unpack (expected 3, got 2)", 1, 1),
    ("'a' + 1", "TypeError", 'can only concatenate str (not "int") to str', 1, 1),
    (
        "def f(a):\n    return a\nf()",
        "TypeError",
        "f() missing 1 required positional argument: 'a'",
        3,
        1,
    ),
    (
        "def f():\n    x = x + 1\nf()",
        "UnboundLocalError",
        "cannot access local variable 'x' where it is not associated with a value",
        2,
        9,
    ),
    ("int('abc')", "ValueError", "invalid literal for int() with base 10: 'abc'", 1, 1),
    ("assert 1 == 2, 'nope'", "AssertionError", "nope", 1, 8),  # CPython marks the test
    ("x = 3\nx.foo", "AttributeError", "'int' object has no attribute 'foo'", 2, 1),
    ("len(5)", "TypeError", "object of type 'int' has no len()", 1, 1),
    ("def f():\n    pass\nf[0]", "TypeError", "'function' object is not subscriptable", 3, 1),
    ("5()", "TypeError", "'int' object is not callable", 1, 1),
]


@pytest.mark.filterwarnings("ignore::SyntaxWarning")
@pytest.mark.parametrize(("source", "kind", "message", "line", "col"), ERRORS)
def test_errors_are_located_user_errors(
    source: str, kind: str, message: str, line: int, col: int
) -> None:
    error = err(source)
    assert (error["type"], error["message"]) == (kind, message)
    assert (error["line"], error["col"]) == (line, col)


def test_output_before_an_error_is_kept() -> None:
    from tests.sandbox.helpers import run

    result = run("print('before')\nprint(1 / 0)\nprint('after')")
    assert result["stdout"] == "before\n"
    assert result["error"]["line"] == 2


def test_syntax_error_is_located() -> None:
    error = err("x = (1 +\nprint(x)")
    assert error["type"] == "SyntaxError"
    assert error["line"] == 1


# The language features the old interpreter refused, each as lessons and tutorials use it:
# (source, what it prints)
FEATURES = [
    (
        "class A:\n    def __init__(self, x):\n        self.x = x\n    def __repr__(self):\n"
        "        return f'A({self.x})'\nprint(A(3), [A(1)])",
        "A(3) [A(1)]\n",
    ),
    (
        "try:\n    1 / 0\nexcept ZeroDivisionError as e:\n    print('caught', e)\nfinally:\n"
        "    print('finally')",
        "caught division by zero\nfinally\n",
    ),
    ("f = lambda x, y=2: x * y\nprint(f(3), sorted([3, 1, 2], key=lambda v: -v))", "6 [3, 2, 1]\n"),
    (
        "def g(n):\n    for i in range(n):\n        yield i * i\nprint(list(g(4)), sum(g(3)))",
        "[0, 1, 4, 9] 5\n",
    ),
    (
        "def make():\n    count = 0\n    def inc():\n        nonlocal count\n        count += 1\n"
        "        return count\n    return inc\ni = make()\ni()\nprint(i())",
        "2\n",
    ),
    (
        "def deco(fn):\n    def wrap(*a, **k):\n        return fn(*a, **k) + 1\n    return wrap\n"
        "@deco\ndef f(x):\n    return x\nprint(f(1))",
        "2\n",
    ),
    (
        "from dataclasses import dataclass\n@dataclass\nclass P:\n    x: float\n    y: float = 0.0\n"
        "print(P(1.5))",
        "P(x=1.5, y=0.0)\n",
    ),
    (
        "from collections import defaultdict, Counter, deque, namedtuple\nd = defaultdict(list)\n"
        "d['a'].append(1)\nPt = namedtuple('Pt', 'x y')\nprint(dict(d), Counter('aab').most_common(1), "
        "deque([1, 2], maxlen=2), Pt(1, 2))",
        "{'a': [1]} [('a', 2)] deque([1, 2], maxlen=2) Pt(x=1, y=2)\n",
    ),
    (
        "import itertools, functools, operator\nprint(list(itertools.product('ab', [1])), "
        "functools.reduce(operator.mul, [1, 2, 3, 4]))",
        "[('a', 1), ('b', 1)] 24\n",
    ),
    ("raise ValueError('bad')", None),
    ("if (n := 3) > 2:\n    print(n)", "3\n"),
    ("a, *b = [1, 2, 3]\nprint(a, b)", "1 [2, 3]\n"),
    ("match (1, 2):\n    case (1, y):\n        print('y =', y)", "y = 2\n"),
    ("x = b'bytes'\nprint(x, 2j * 2j)", "b'bytes' (-4+0j)\n"),
    (
        "def f(*args, key=None, **kw):\n    return args, key, kw\nprint(f(1, 2, key=3, z=4))",
        "((1, 2), 3, {'z': 4})\n",
    ),
    (
        "import numpy as np\na = np.arange(6).reshape(2, 3)\nprint(a.sum(axis=0), a.T.shape, "
        "np.linalg.norm([3.0, 4.0]))",
        "[3 5 7] (3, 2) 5.0\n",
    ),
    ("import random\nrandom.seed(0)\nprint(random.random())", "0.8444218515250481\n"),
    (
        "import typing, statistics, string, time, math\nprint(statistics.mean([1, 2, 3]), "
        "string.digits[:3], time.time() > 0, math.gcd(12, 18))",
        "2 012 True 6\n",
    ),
    ("if __name__ == '__main__':\n    print('main')", "main\n"),
    ("import sys\nprint(sys.argv)\nsys.exit(0)\nprint('not reached')", "['<program>']\n"),
    (
        "class E(Exception):\n    pass\ntry:\n    raise E('mine')\nexcept E as e:\n"
        "    print(type(e).__name__, e)",
        "E mine\n",
    ),
]


@pytest.mark.parametrize(("source", "printed"), FEATURES)
def test_language_features_run_as_python(source: str, printed: str | None) -> None:
    result = run(source)
    if printed is None:  # raise ValueError('bad')
        assert (result["error"]["type"], result["error"]["line"]) == ("ValueError", 1)
        return
    assert result["ok"], result["error"]
    assert result["stdout"] == printed


def test_a_program_imports_what_python_has_and_the_jail_decides_what_it_does() -> None:
    """No import allow-list (issue 18): the standard library imports as itself; what a module
    then asks of the kernel is refused there (PermissionError), not at the import."""
    printed = out(
        "import os, pathlib, traceback, csv, json, time, subprocess, socket, ctypes, io\n"
        "import xml.etree.ElementTree as ET, concurrent.futures, email.mime.text\n"
        "print(os.sep, pathlib.PurePosixPath('a', 'b'), callable(traceback.format_exc))\n"
        "rows = list(csv.reader(io.StringIO('a,b\\n1,2')))\n"
        "print(rows, json.dumps({'k': 1}))\n"
    )
    assert printed == "/ a/b True\n[['a', 'b'], ['1', '2']] {\"k\": 1}\n"
    for source in (
        "import os\nos.listdir('/')",
        "import subprocess\nsubprocess.run(['true'])",
        "import socket\nsocket.create_connection(('127.0.0.1', 9), timeout=1)",
        "open('/etc/passwd').read()",
    ):
        error = err(source)
        assert error["type"] == "PermissionError", (source, error)
        assert error["line"] == source.count("\n") + 1
    for source, missing in (
        ("import sklearn", "sklearn"),
        ("import torch.nonexistent", "torch.nonexistent"),
    ):
        error = err(source)
        assert (error["type"], error["message"], error["line"]) == (
            "ModuleNotFoundError",
            f"No module named '{missing}'",
            1,
        )
    assert err("from . import x")["type"] == "ImportError"
    # the playground's own code is not Python's: it does not import
    assert err("import server")["type"] == "ModuleNotFoundError"


def test_input_says_there_is_no_keyboard() -> None:
    error = err("name = input('name? ')")
    assert error["type"] == "EOFError" and "no keyboard input" in error["message"]


def test_sys_exit_with_a_message_is_the_error() -> None:
    error = err("import sys\nprint('a')\nsys.exit('bye')")
    assert (error["type"], error["message"], error["line"]) == ("SystemExit", "bye", 3)


def test_what_a_program_does_to_sys_modules_ends_with_its_worker() -> None:
    """A worker hands its one program the ``sys.modules`` dict the zygote made before the fork,
    not a copy: a program that empties it, or plants a module in it, changes only its own
    worker's copy-on-write page. The next program, in the next worker, sees the whole dict."""
    looks = (
        "import sys\nprint(len(sys.modules) > 100, 'json' in sys.modules, 'planted' in sys.modules)"
    )
    assert out(looks) == "True True False\n"
    for _ in range(2):  # two rounds: both of the pool's workers have run such a program
        spoiled = out(
            "import sys\nsys.modules['planted'] = sys.modules['json']\ndel sys.modules['json']\n"
            "sys.modules['torch'] = None\nprint(len(sys.modules) > 100)\nsys.modules.clear()\n"
            "print(len(sys.modules))"
        )
        assert spoiled == "True\n0\n"
        assert out(looks) == "True True False\n"
        assert out("import torch, json\nprint(torch.ones(2).sum().item(), json.dumps(1))") == (
            "2.0 1\n"
        )


def test_traceback_shows_the_programs_frames_only() -> None:
    source = (
        "import torch\n"
        "class Net(torch.nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.fc1 = torch.nn.Linear(2, 3)\n"
        "    def forward(self, x):\n"
        "        return self.fc1(x)\n"
        "net = Net()\n"
        "net(torch.ones(4, 5))\n"
    )
    error = err(source)
    assert (error["type"], error["line"]) == ("RuntimeError", 7)
    assert "mat1 and mat2 shapes cannot be multiplied" in error["message"]
    tb = error["traceback"]
    assert tb.startswith("Traceback (most recent call last):\n")
    assert 'File "<program>", line 9, in <module>' in tb
    assert 'File "<program>", line 7, in forward\n    return self.fc1(x)' in tb
    assert tb.rstrip().endswith(error["message"].splitlines()[-1])
    assert "engine" not in tb and ".py" not in tb and "/" not in tb.replace("(4x5 and 2x3)", "")


def test_last_expression_is_shown_as_a_notebook_shows_it() -> None:
    assert run("x = [1, 2]\nx + [3]")["result"] == "[1, 2, 3]"
    assert run("print('a')")["result"] is None  # None is not shown
    assert run("x = 3")["result"] is None  # not an expression
    body = run("import torch\nx = torch.tensor(2.0, requires_grad=True)\nx * x")
    assert body["result"] == "tensor(4., grad_fn=<MulBackward0>)"
    assert body["notice"].startswith("The program did not call backward()")


def test_type_of_a_tensor_is_torch_tensor() -> None:
    printed = out(
        "import torch, numpy\nx = torch.ones(1)\nprint(type(x), type(torch.nn.Linear(1, 1)))\n"
        "print(torch, torch.nn, numpy)\nprint(type(torch.optim.SGD([x], lr=0.1)))"
    )
    assert printed == (
        "<class 'torch.Tensor'> <class 'torch.nn.modules.linear.Linear'>\n"
        "<module 'torch'> <module 'torch.nn'> <module 'numpy'>\n"
        "<class 'torch.optim.sgd.SGD'>\n"
    )


def test_print_of_recursive_list_is_like_python() -> None:
    assert out("a = [1]\na.append(a)\nprint(a)") == "[1, [...]]\n"


def test_functions_classes_and_engine_objects_print_without_host_paths() -> None:
    printed = out(
        "import torch\nprint(torch.exp, torch.nn.Linear, torch.device, print, torch.no_grad())\n"
        "print([torch.relu], torch.float32, torch.nn.functional)\n"
    )
    assert "engine" not in printed and "/" not in printed and ".py" not in printed
    assert "<class 'torch.nn.modules.linear.Linear'>" in printed


def test_reading_grad_of_a_non_leaf_warns_as_pytorch_does() -> None:
    # PyTorch warns (UserWarning, once per location) and returns None; so do we, in `notice`.
    source = (
        "import torch\n"
        "x = torch.tensor(2.0, requires_grad=True)\n"
        "y = x * x\n"
        "z = y + 1\n"
        "z.backward()\n"
        "for _ in range(3):\n"
        "    print(y.grad)\n"
        "print(x.grad)\n"
    )
    result = run(source)
    assert result["ok"], result["error"]
    assert result["stdout"] == "None\nNone\nNone\ntensor(4.)\n"
    notice = result["notice"]
    assert notice.startswith("Line 7: UserWarning: The .grad attribute of a Tensor that is not")
    assert notice.count("UserWarning") == 1  # once per location, not once per read
    assert "retain_grad()" in notice


def test_no_warning_for_leaves_or_retained_grads() -> None:
    source = (
        "import torch\n"
        "x = torch.tensor(2.0, requires_grad=True)\n"
        "y = x * 3\n"
        "y.retain_grad()\n"
        "y.backward()\n"
        "print(x.grad, y.grad)\n"
        "c = torch.tensor(1.0)\n"
        "print(c.grad)\n"
    )
    result = run(source)
    assert result["ok"], result["error"]
    assert result["stdout"] == "tensor(3.) tensor(1.)\nNone\n"
    assert result["notice"] is None
