"""The playground language on plain Python values: semantics and printing match Python."""

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
    ("assert 1 == 2, 'nope'", "AssertionError", "nope", 1, 1),
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


@pytest.mark.parametrize(
    ("source", "fragment"),
    [
        ("class A:\n    pass", "class definitions are not supported in the playground"),
        ("try:\n    x = 1\nexcept Exception:\n    pass", "try/except is not supported"),
        ("f = lambda x: x", "lambda expressions are not supported"),
        ("def g():\n    yield 1", "generators (yield) are not supported"),
        ("raise ValueError('x')", "raise statements are not supported"),
        ("global x", "global statements are not supported"),
        ("async def f():\n    pass", "async functions are not supported"),
        ("if (n := 3):\n    pass", "assignment expressions (:=) are not supported"),
        ("@dec\ndef f():\n    pass", "decorators are not supported"),
        ("def f(*args):\n    pass", "only plain positional parameters"),
        ("x = b'bytes'", "bytes literals are not supported"),
        ("a, *b = [1, 2]", "starred assignment targets are not supported"),
        ("match 1:\n    case 1:\n        pass", "match statements are not supported"),
    ],
)
def test_unsupported_syntax_names_itself(source: str, fragment: str) -> None:
    error = err(source)
    assert error["type"] == "SyntaxError"
    assert fragment in error["message"]
    assert error["line"] is not None and error["col"] is not None


def test_private_attributes_and_dunder_names_are_refused_before_running() -> None:
    assert err("print('x')\n(1).__class__")["type"] == "AttributeError"
    assert "not accessible" in err("print('x')\n(1).__class__")["message"]
    assert err("__builtins__")["type"] == "NameError"


def test_print_of_recursive_list_is_like_python() -> None:
    assert out("a = [1]\na.append(a)\nprint(a)") == "[1, [...]]\n"


def test_functions_classes_and_engine_objects_print_without_host_paths() -> None:
    printed = out(
        "import torch\nprint(torch.exp, torch.nn.Linear, torch.device, print, torch.no_grad())\n"
        "print([torch.relu], torch.float32)\n"
    )
    assert printed == (
        "<built-in function exp> <class 'torch.nn.Linear'> <class 'torch.device'> "
        "<built-in function print> <torch.no_grad object>\n"
        "[<built-in function relu>] torch.float32\n"
    )
    assert "engine" not in printed and "<locals>" not in printed


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
