"""Reading the walk's captions as a learner would, to check that every ``=`` in them is true.

A caption line reads ``∂L/∂w = x · ∂L/∂p = 2 · (−12) = −24``, or for a receiver that already
held a gradient ``∂L/∂x += 2 · 3 = 6  → 4 + 6 = 10``. :func:`check_line` splits it at its
top-level ``=`` signs, parses each form that is arithmetic on printed numbers alone (the
numbers substituted, the result, the accumulated sum) with the notation's own precedence (this
parser is the test's, written apart from the engine's writer), evaluates it in float64, and
says whether all of them agree.

Tolerance from the printed precision: the page prints four significant digits, so a printed
number stands for any value within half a unit of its fourth digit. A form agrees with another
when their values differ by no more than what those roundings can move them (each number
moved to either end of its interval, first order, as the forms are smooth at this scale) plus
float32 arithmetic behind the printed result: a few roundings and one library function
(``tolerances.LIBRARY_FUNCTION``) relative to the largest number involved.
"""

from __future__ import annotations

import math
import operator
import re
from collections.abc import Callable
from dataclasses import dataclass, field

from tests.tolerances import LIBRARY_FUNCTION, U32

#: float32 roundings behind a printed result: its own chain (a handful) and a library function
RESULT_ROUNDINGS = 8 + LIBRARY_FUNCTION

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<num>\d+(?:\.\d+)?(?:e[−-]?\d+)?|∞)"
    r"|(?P<fn>Σ_rows|exp|ln|tanh|sinh|cosh|tan|sin|cos|sign|σ|Φ|φ|erf|softmax|clip|det)(?=\()"
    r"|(?P<const>π|e(?![\w]))"
    r"|(?P<op>[-+·/@^²³ᵀ√Σ()\[\]|,>≥≤<=≠−])"
    r"|(?P<other>\S)"
    r")"
)

Values = list[float]
Fn = Callable[[Values], float]


Binary = Callable[[float, float], float]
SUMS: dict[str, Binary] = {"+": operator.add, "−": operator.sub, "-": operator.sub}
#: @ of numbers (1×1 matrices) multiplies
PRODUCTS: dict[str, Binary] = {"·": operator.mul, "/": operator.truediv, "@": operator.mul}


def _joined(op: Binary, left: Fn, right: Fn) -> Fn:
    return lambda v: op(left(v), right(v))


class NotArithmetic(Exception):
    """The form names something other than numbers (a label, a derivative, words)."""


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _pdf(x: float) -> float:
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x >= 0 else math.exp(x) / (1.0 + math.exp(x))


FUNCTIONS: dict[str, Callable[..., float]] = {
    "exp": math.exp,
    "ln": math.log,
    "tanh": math.tanh,
    "sinh": math.sinh,
    "cosh": math.cosh,
    "tan": math.tan,
    "sin": math.sin,
    "cos": math.cos,
    "sign": lambda x: float((x > 0) - (x < 0)),
    "σ": _sigmoid,
    "Φ": _phi,
    "φ": _pdf,
    "erf": math.erf,
    "softmax": lambda x: 1.0,  # of one number: itself over itself
    "clip": lambda x, lo, hi: min(max(x, lo), hi),
    "det": lambda x: x,  # of a 1×1 matrix: its one entry
}
COMPARE: dict[str, Callable[[float, float], bool]] = {
    ">": lambda a, b: a > b,
    "≥": lambda a, b: a >= b,
    "<": lambda a, b: a < b,
    "≤": lambda a, b: a <= b,
    "=": lambda a, b: a == b,
    "≠": lambda a, b: a != b,
}


def _real(x: float | complex) -> float:
    """A power of a negative number to a fraction is not a real number."""
    if isinstance(x, complex):
        raise ValueError("not a real number")
    return x


def number_value(text: str) -> float:
    """A number as the page prints it: ``−1.5``, ``5.81e−4``, ``∞``."""
    if text == "∞":
        return math.inf
    return float(text.replace("−", "-"))


def half_unit(value: float) -> float:
    """Half a unit of the fourth significant digit: how far a printed number may be from the
    value it was printed from (0 for zero and infinities, which print exactly)."""
    if value == 0 or not math.isfinite(value):
        return 0.0
    return 0.5 * 10.0 ** (math.floor(math.log10(abs(value))) - 3)


class _Parser:
    """Precedence: comparisons < sums < products (· / @, left to right) < minus signs and Σ <
    powers (right to left) < postfix ² ³ ᵀ < atoms; √ takes the atom after it."""

    def __init__(self, text: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        for m in _TOKEN.finditer(text.strip()):
            kind = m.lastgroup or ""
            if kind == "other":
                raise NotArithmetic(m.group(kind))
            self.tokens.append((kind, m.group(kind)))
        self.i = 0
        self.numbers: list[float] = []

    def peek(self) -> str:
        return self.tokens[self.i][1] if self.i < len(self.tokens) else ""

    def take(self) -> tuple[str, str]:
        if self.i >= len(self.tokens):
            raise NotArithmetic("ends early")
        token = self.tokens[self.i]
        self.i += 1
        return token

    def expect(self, value: str) -> None:
        if self.take()[1] != value:
            raise NotArithmetic(f"expected {value}")

    def parse(self) -> Fn:
        f = self.comparison()
        if self.i != len(self.tokens):
            raise NotArithmetic(f"left over: {self.peek()}")
        return f

    def comparison(self) -> Fn:
        first = self.sum()
        if self.peek() not in COMPARE:
            return first
        parts, ops = [first], []
        while self.peek() in COMPARE:
            ops.append(COMPARE[self.take()[1]])
            parts.append(self.sum())

        def chain(v: Values) -> float:
            xs = [p(v) for p in parts]
            return float(all(op(a, b) for op, a, b in zip(ops, xs, xs[1:], strict=False)))

        return chain

    def sum(self) -> Fn:
        return self.left_to_right(self.product, SUMS)

    def product(self) -> Fn:
        return self.left_to_right(self.unary, PRODUCTS)

    def left_to_right(self, operand: Callable[[], Fn], ops: dict[str, Binary]) -> Fn:
        """Operands joined by operators of one precedence, applied left to right."""
        left = operand()
        while self.peek() in ops:
            op = ops[self.take()[1]]
            left = _joined(op, left, operand())
        return left

    def unary(self) -> Fn:
        tok = self.peek()
        if tok in ("−", "-"):
            self.take()
            inner = self.unary()
            return lambda v: -inner(v)
        if tok in ("Σ", "Σ_rows"):  # a sum over one number is the number
            self.take()
            return self.unary()
        return self.power()

    def power(self) -> Fn:
        base = self.postfix()
        if self.peek() == "^":
            self.take()
            exponent = self.unary()  # right to left: a^b^c is a^(b^c); a^−1 allowed
            return lambda v: base(v) ** exponent(v)
        return base

    def postfix(self) -> Fn:
        f = self.atom()
        while self.peek() in ("²", "³", "ᵀ"):
            tok = self.take()[1]
            if tok != "ᵀ":  # the transpose of a number is the number
                f = (lambda g, p: lambda v: g(v) ** p)(f, 2 if tok == "²" else 3)
        return f

    def atom(self) -> Fn:
        kind, tok = self.take()
        if kind == "num":
            index = len(self.numbers)
            self.numbers.append(number_value(tok))
            return lambda v: v[index]
        if kind == "const":
            value = math.pi if tok == "π" else math.e
            return lambda v: value
        if kind == "fn":
            fn = FUNCTIONS[tok]
            self.expect("(")
            args = [self.comparison()]
            while self.peek() == ",":
                self.take()
                args.append(self.comparison())
            self.expect(")")
            return lambda v: fn(*(a(v) for a in args))
        if tok == "√":
            inner = self.postfix()
            return lambda v: math.sqrt(inner(v))
        if tok == "(":
            inner = self.comparison()
            self.expect(")")
            return inner
        if tok == "|":
            inner = self.sum()
            self.expect("|")
            return lambda v: abs(inner(v))
        if tok == "[":  # an Iverson bracket: 1 where its condition holds (or its number ≠ 0)
            inner = self.comparison()
            self.expect("]")
            return lambda v: float(inner(v) != 0)
        raise NotArithmetic(tok)


@dataclass
class Form:
    """One arithmetic form of a line: its value and how far its printed numbers may move it."""

    text: str
    value: float
    spread: float
    scale: float


def evaluate(text: str) -> Form:
    """Evaluate a form written with printed numbers alone (NotArithmetic otherwise). Its spread
    sums, over its numbers, how far moving each to either end of its interval moves the value."""
    parser = _Parser(text)
    f = parser.parse()
    xs = parser.numbers
    value = f(xs)
    spread = 0.0
    for i, x in enumerate(xs):
        h = half_unit(x)
        if h == 0:
            continue
        moved = 0.0
        for end in (x - h, x + h):
            ys = list(xs)
            ys[i] = end
            try:
                moved = max(moved, abs(f(ys) - value))
            except (ValueError, ZeroDivisionError, OverflowError, TypeError):
                moved = math.inf  # an end of the interval leaves the function's domain
        spread += moved
    finite = [abs(x) for x in [*xs, value] if math.isfinite(x)]
    return Form(text, value, spread, max(finite, default=1.0))


def agree(a: Form, b: Form) -> bool:
    """Whether two forms can be the same number given their printed precision."""
    if math.isnan(a.value) or math.isnan(b.value):
        return math.isnan(a.value) and math.isnan(b.value)
    if math.isinf(a.value) or math.isinf(b.value):
        return a.value == b.value
    slack = RESULT_ROUNDINGS * U32 * max(a.scale, b.scale)
    return abs(a.value - b.value) <= a.spread + b.spread + slack


def split_top(text: str, sep: str) -> list[str]:
    """``text`` split at ``sep`` where no bracket is open."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif depth == 0 and text.startswith(sep, i):
            parts.append(text[start:i])
            i += len(sep)
            start = i
            continue
        i += 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


@dataclass
class Checked:
    """What reading one caption line found."""

    line: str
    op: str = "="
    forms: list[Form] = field(default_factory=list)
    #: the accumulation ``→ before + sent = after``: both sides, when written
    total: list[Form] = field(default_factory=list)
    false: list[str] = field(default_factory=list)

    @property
    def numeric(self) -> bool:
        """The line states at least one equality between numbers (something to check)."""
        return len(self.forms) >= 2 or len(self.total) == 2


def check_line(line: str) -> Checked:
    """Read one caption line; ``false`` lists each equality between numbers that fails."""
    head, _, accumulation = line.partition("  → ")
    relation = " += " if " += " in split_top(head, " = ")[0] else " = "
    lhs_and_rest = head.split(relation, 1)
    result = Checked(line, relation.strip())
    if len(lhs_and_rest) != 2:
        result.false.append(f"no relation in {line!r}")
        return result
    for text in split_top(lhs_and_rest[1], " = "):
        try:
            result.forms.append(evaluate(text))
        except NotArithmetic:
            if result.forms:  # symbols after numbers: the numbers must come last
                result.false.append(f"symbols after numbers: {text!r}")
    for a, b in zip(result.forms, result.forms[1:], strict=False):
        if not agree(a, b):
            result.false.append(f"{a.text} = {a.value:.6g}, but {b.text} = {b.value:.6g}")
    if accumulation:
        sides = split_top(accumulation, " = ")
        try:
            result.total = [evaluate(s) for s in sides]
        except NotArithmetic:
            result.false.append(f"the accumulation is not arithmetic: {accumulation!r}")
        else:
            if len(result.total) != 2 or not agree(*result.total):
                result.false.append(f"the accumulation is false: {accumulation!r}")
            sent = split_top(sides[0], " + ")
            if result.forms and len(sent) == 2:
                # what is added is what the line sends
                try:
                    added = evaluate(sent[1].removeprefix("(").removesuffix(")"))
                except NotArithmetic:
                    added = None
                if added is None or not agree(added, result.forms[-1]):
                    result.false.append(f"the sum adds {sent[1]}, not {result.forms[-1].text}")
    return result
