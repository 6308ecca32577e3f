"""The walk's captions as expression trees: parsed from the op table's templates, filled with
labels or numbers, and written out with parentheses where precedence needs them.

A caption line says how one contribution is formed, each ``=`` a true equality::

    ∂L/∂(w · x + b) = (1 − a²) · ∂L/∂a = (1 − 0.8005²) · (−1.328) = −0.477

the derivative it defines, the symbolic form (the op's local derivative times the gradient
from above), the same with the numbers substituted (only when every operand is a number), and
the result. A receiver that already held a gradient gets ``+=`` and the sum it now holds
(``→ 4 + 6 = 10``). Text is made from the tree, never by joining strings, so ``1 − a²``
is bracketed when it is multiplied; the page typesets the same tree (the step's ``caption``).

A tree is JSON-ready: each node a dict with ``k`` (its kind) and ``a`` (its operands):

``num``   a number: ``v`` (JSON number or "NaN"/"Infinity"/"-Infinity") and ``t`` (its text)
``name``  a label as the graph shows it (``w``, ``model[0].weight``, ``(… + b)^2``): ``t``
``const`` a mathematical constant: ``t`` is ``π`` or ``e``
``text``  words (``t``): a rule that is not arithmetic (``reshaped to x's shape``)
``d``     ``∂top/∂wrt``, both ``name`` nodes
``+ − · / @`` a binary operation; ``neg`` a minus sign; ``^`` a power; ``T`` a transpose
``fn``    a function applied (``f``: ``tanh``, ``ln``, ``σ`` ...); ``sqrt``; ``abs``
``paren`` brackets (the writer puts them where precedence needs them: :func:`bracket`)
``idx``   an index (``a[0]``)
``sum``   Σ over its operand (``sub``: ``rows`` for Σ_rows); ``iv`` an Iverson bracket
          ``[cond]`` (1 where the condition holds, else 0); ``cmp`` a chain of comparisons
          (``ops``: ``>``, ``≥``, ``≤``, ``<``, ``=``, ``≠``); ``seq`` operands side by side (prose)

Templates (the op table's ``local``, ``chain`` and ``symbol`` strings) are written in the same
Unicode notation and parsed once: ``{a}``, ``{b}``, ``{c}`` are the inputs, ``{out}`` the output,
``{g}`` the gradient from above, ``{local}`` the local derivative, any other ``{name}`` an
attribute (``{p}``, ``{slope}``); ``²`` squares, ``^`` raises, ``√`` roots, ``[…]`` is an
Iverson bracket, ``|…|`` an absolute value; a run of words is prose.
"""

from __future__ import annotations

import functools
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from typing import Any

Expr = dict[str, Any]

# ---- numbers as the page writes them -------------------------------------------------------


def page_number(v: float) -> str:
    """A number as the page writes it (formatScalar in static/src/common/format.ts): integers plainly,
    else four significant digits, ``5.81e−4`` below 1e−3 and from 1e6, a true minus. Rounded as
    JavaScript rounds (half away from zero on the exact binary value; Python's format rounds an
    exact tie such as −23.625 to even), so a caption and the node box it describes agree."""
    if v != v:
        return "NaN"
    if v in (math.inf, -math.inf):
        return "∞" if v > 0 else "−∞"
    if v == 0:
        return "0"
    sign = "−" if v < 0 else ""
    a = abs(v)
    if v == int(v) and a < 1e6:
        return sign + str(int(a))
    if _exact_tie(a):
        return sign + _rounded_half_up(a)
    if a < 1e-3 or a >= 1e6:
        mantissa, power = f"{a:.3e}".split("e")
        return f"{sign}{_shortest(float(mantissa))}e{int(power)}".replace("-", "−")
    text = f"{a:.4g}"  # no trailing zeros: as JavaScript writes it, unless in exponent style
    return sign + (text if "e" not in text else _shortest(float(text)))


def _shortest(x: float) -> str:
    """JavaScript's String(number) for a number of ordinary size: ``12350``, ``0.08333``."""
    return str(int(x)) if x == int(x) else repr(x)


def _exact_tie(a: float) -> bool:
    """Whether ``a`` lies exactly halfway between two four-digit numbers (``23.625``): only
    then do the two languages round differently. Such a number's shortest repr is its five
    significant digits ending in 5; the exact check is left to Decimal."""
    text = repr(a)
    if len(text) > 12:  # most numbers: a long repr is never five digits
        return False
    text = text.split("e")[0].replace(".", "").strip("0")
    return len(text) == 5 and text.endswith("5") and _rounded_half_up(a) != _shortest_4g(a)


def _shortest_4g(a: float) -> str:
    if a < 1e-3 or a >= 1e6:
        mantissa, power = f"{a:.3e}".split("e")
        return f"{_shortest(float(mantissa))}e{int(power)}".replace("-", "−")
    return _shortest(float(f"{a:.4g}"))


def _rounded_half_up(a: float) -> str:
    """Four significant digits of the exact value of ``a``, a tie rounded up (as JavaScript)."""
    exact = Decimal(a)
    exponent = exact.adjusted()
    if a < 1e-3 or a >= 1e6:
        mantissa = exact.scaleb(-exponent).quantize(Decimal("0.001"), ROUND_HALF_UP)
        if mantissa >= 10:
            mantissa, exponent = (
                (mantissa / 10).quantize(Decimal("0.001"), ROUND_HALF_UP),
                exponent + 1,
            )
        return f"{_plain(mantissa)}e{exponent}".replace("-", "−")
    return _plain(exact.quantize(Decimal(1).scaleb(exponent - 3), ROUND_HALF_UP))


def _plain(d: Decimal) -> str:
    """A decimal without trailing zeros or an exponent (JavaScript's String(Number(text)))."""
    return format(d.normalize(), "f")


def _json_number(v: float) -> Any:
    if math.isfinite(v):
        return v
    return "NaN" if math.isnan(v) else ("Infinity" if v > 0 else "-Infinity")


# ---- building trees --------------------------------------------------------------------------


def num(v: float, text: str | None = None) -> Expr:
    """A number node; ``text`` when the caller has already written it."""
    v = float(v)
    return {"k": "num", "v": _json_number(v), "t": text if text is not None else page_number(v)}


def name(label: str) -> Expr:
    """A label as an operand (the graph's text for a node)."""
    return {"k": "name", "t": label}


def deriv(top: str, wrt: str) -> Expr:
    """``∂top/∂wrt``."""
    return {"k": "d", "a": [name(top), name(wrt)]}


def binary(op: str, left: Expr, right: Expr) -> Expr:
    return {"k": op, "a": [left, right]}


# ---- precedence and text -------------------------------------------------------------------

#: how tightly a node holds together: a sum, a product, a minus sign, a power, a postfix, an atom
SUM, PRODUCT, NEGATION, POWER, POSTFIX, ATOM = 1, 2, 3, 4, 5, 6
_BINARY_PREC = {"+": SUM, "−": SUM, "·": PRODUCT, "/": PRODUCT, "@": PRODUCT}
_SUPERSCRIPT = {"2": "²", "3": "³"}
#: the spaced operators of a label, by how tightly they bind (the graph's templates use them too)
LABEL_OPS = {" + ": SUM, " − ": SUM, " · ": PRODUCT, " / ": PRODUCT, " @ ": PRODUCT}
_PLAIN_NAME = re.compile(r"[^\W\d][\w.\[\]…#]*")
_OPENS, _CLOSES = "([⌊⌈", ")]⌋⌉"


@functools.lru_cache(maxsize=8192)  # labels repeat: each pass renders the same ones
def label_prec(text: str) -> int:
    """How tightly a label holds together as an operand: the loosest operator outside its
    brackets (``w · x + b`` is a sum, ``(w · x)^2`` a power, ``exp(x)``, ``|a − b|`` and ``w``
    atoms). The one reading of a label, for captions and for the graph's formulas alike."""
    if not text:
        return ATOM
    if text[0] == "∂":
        return POWER  # ∂L/∂(w · x) reads as one symbol, as a derivative node does (see prec)
    opened: list[str] = []  # the brackets open here; a bar closes an open bar, else opens one
    loosest, spaced = ATOM, False
    for i, c in enumerate(text):
        if c in _OPENS or (c == "|" and opened[-1:] != ["|"]):
            opened.append(c)
        elif c in _CLOSES or c == "|":
            if opened:
                opened.pop()
        elif not opened:
            op = LABEL_OPS.get(text[i : i + 3])
            if op is not None:
                loosest = min(loosest, op)
            elif c in "·/@":
                loosest = min(loosest, PRODUCT)  # the compact forms of the formulas: 2·x
            elif c == "^":
                loosest = min(loosest, POWER)
            elif c == " ":
                spaced = True
    if loosest == ATOM and text[0] in "−-":
        return NEGATION
    if loosest == ATOM and spaced:
        return PRODUCT  # a prefix form with a space (Σ x, ln x): bracket it next to others
    if loosest == ATOM and text[-1] in "ᵀ²":
        return POSTFIX
    return loosest


def prec(e: Expr) -> int:
    """How tightly ``e`` holds together when written out."""
    k = e["k"]
    if k == "num":
        return NEGATION if e["t"].startswith("−") else ATOM
    if k == "name":
        return label_prec(e["t"])
    if k in _BINARY_PREC:
        return _BINARY_PREC[k]
    if k == "neg":
        return NEGATION
    if k == "^":
        return POWER
    if k == "T":
        return POSTFIX
    if k == "sum":
        return PRODUCT  # Σ reaches as far right as a product: bracketed among other factors
    if k == "seq":
        return SUM
    if k == "d":
        return POWER  # ∂L/∂w reads as one symbol, but is bracketed before a power or a ᵀ
    return ATOM  # const, text, fn, sqrt, abs, iv, cmp (delimited)


def _negative(e: Expr) -> bool:
    return e["k"] == "neg" or (e["k"] == "num" and e["t"].startswith("−"))


def _compact(written: str) -> bool:
    """A short operand without spaces outside brackets (``2``, ``b²``, ``(1 + a)``)."""
    return " " not in written or (written[0] == "(" and written[-1] == ")")


def _wrap(text: str) -> str:
    return f"({text})"


def ref(label: str) -> str:
    """A label as it reads after ∂: itself when a plain name, else parenthesised."""
    return label if _PLAIN_NAME.fullmatch(label) else f"({label})"


def paren(e: Expr) -> Expr:
    """``(e)``: brackets the writer decided on, explicit in the tree the page typesets."""
    return {"k": "paren", "a": [e]}


def bracket(e: Expr, lead: bool = True) -> Expr:
    """The tree with a ``paren`` node wherever precedence needs brackets (``(1 − a²) · g``,
    ``a / (b · c)``, ``(a + b)²``, ``∂L/∂(w · x)``). ``lead`` is false where something stands
    before it: a negative number or a minus sign there is bracketed too (``2 · (−12)``,
    ``Φ(a) + (−0.7) · φ(a)``), as nothing would separate it from the operator before."""
    k = e["k"]
    if k in ("num", "name", "const", "text", "paren"):
        if not lead and k == "num" and str(e["t"]).startswith("−"):
            return paren(e)
        return e
    a = e.get("a", [])
    if k in _BINARY_PREC:
        own = _BINARY_PREC[k]
        left, right = a
        bl = paren(bracket(left)) if prec(left) < own else bracket(left, lead)
        if prec(right) < own or (k in "−/" and prec(right) == own) or _negative(right):
            br = paren(bracket(right))
        else:
            br = bracket(right, False)
        return {**e, "a": [bl, br]}
    if k == "neg":
        inner = a[0]
        bi = paren(bracket(inner)) if prec(inner) < POWER or _negative(inner) else bracket(inner)
        out = {**e, "a": [bi]}
        return out if lead else paren(out)
    if k == "^":
        base, exp = a
        bb = paren(bracket(base)) if prec(base) <= POWER or _negative(base) else bracket(base)
        if prec(exp) < ATOM or _negative(exp):
            be = paren(bracket(exp))
        else:
            be = bracket(exp)
        return {**e, "a": [bb, be]}
    if k in ("T", "sqrt", "sum"):
        inner = a[0]
        need = {"T": POSTFIX, "sqrt": ATOM, "sum": POWER}[k]
        bi = paren(bracket(inner)) if prec(inner) < need or _negative(inner) else bracket(inner)
        return {**e, "a": [bi]}
    if k == "d":
        top, wrt = a
        return {**e, "a": [_ref_tree(top), _ref_tree(wrt)]}
    if k == "seq":
        return {**e, "a": [paren(bracket(x)) if x["k"] == "seq" else bracket(x) for x in a]}
    return {**e, "a": [bracket(x) for x in a]}  # fn, abs, iv, cmp: delimited already


def _ref_tree(e: Expr) -> Expr:
    return e if e["k"] != "name" or _PLAIN_NAME.fullmatch(e["t"]) else paren(e)


#: the nodes of one operand written between a prefix and a suffix: −x, (x), xᵀ, √x, |x|, [x]
_AROUND = {
    "neg": ("−", ""),
    "paren": ("(", ")"),
    "T": ("", "ᵀ"),
    "sqrt": ("√", ""),
    "abs": ("|", "|"),
    "iv": ("[", "]"),
}


def write(e: Expr) -> str:
    """A bracketed tree (see :func:`bracket`) written out, its brackets where its ``paren``
    nodes are and nowhere else."""
    k = e["k"]
    if k in ("num", "name", "const", "text"):
        return str(e["t"])
    a = e.get("a", [])
    if k in _AROUND:
        before, after = _AROUND[k]
        return f"{before}{write(a[0])}{after}"
    if k in _BINARY_PREC:
        lt, rt = write(a[0]), write(a[1])
        if k == "/" and _compact(lt) and _compact(rt):
            return f"{lt}/{rt}"  # 1/b, −a/b², 1/(2 · √a): a fraction reads as one term
        return f"{lt} {k} {rt}"
    if k == "^":
        base, exp = a
        et = write(exp)
        if exp["k"] == "num" and et in _SUPERSCRIPT:
            return write(base) + _SUPERSCRIPT[et]
        return f"{write(base)}^{et}"
    if k == "fn":
        return f"{e['f']}({', '.join(write(x) for x in a)})"
    if k == "sum":
        return f"{'Σ_rows' if e.get('sub') == 'rows' else 'Σ'} {write(a[0])}"
    if k == "idx":
        return f"{write(a[0])}[{write(a[1])}]"
    if k == "cmp":
        parts = [write(a[0])]
        for op, x in zip(e["ops"], a[1:], strict=True):
            parts.append(f"{op} {write(x)}")
        return " ".join(parts)
    if k == "d":
        return f"∂{write(a[0])}/∂{write(a[1])}"
    if k == "seq":
        return " ".join(write(x) for x in a)
    raise ValueError(f"unknown caption node {k!r}")


def text(e: Expr) -> str:
    """The tree written out in the walk's Unicode notation, bracketed by precedence."""
    return write(bracket(e))


# ---- templates -------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:"
    r"(?P<slot>\{\w+\})"
    r"|(?P<num>\d+(?:\.\d+)?)"
    r"|(?P<word>x̂|ĝ|[A-Za-z_][\w'.-]*(?<!\.)|[πΦφσδΠ])"
    r"|(?P<op>Σ_rows|[-+·/@^²ᵀ√Σ()\[\]|,>≥≤<=≠−])"
    r")"
)
#: the one-letter names that are functions when an opening bracket follows (a longer word,
#: ``exp`` or ``softmax``, always is; a letter alone, ``a (…)``, is a product)
_FUNCTIONS = frozenset("σΦφ")
_COMPARISONS = frozenset(">≥≤<=≠")
_CONSTANTS = frozenset("πe")


class _Parser:
    """A Pratt parser for the templates' notation (see the module docstring)."""

    def __init__(self, template: str) -> None:
        self.tokens: list[tuple[str, str]] = []
        pos = 0
        stripped = template.strip()
        while pos < len(stripped):
            m = _TOKEN.match(stripped, pos)
            if m is None or m.end() == pos:
                raise ValueError(f"cannot read caption template {template!r} at {pos}")
            kind = m.lastgroup or ""
            self.tokens.append((kind, m.group(kind)))
            pos = m.end()
        self.i = 0

    def peek(self, offset: int = 0) -> tuple[str, str]:
        at = self.i + offset
        return self.tokens[at] if at < len(self.tokens) else ("end", "")

    def take(self) -> tuple[str, str]:
        token = self.peek()
        self.i += 1
        return token

    def expect(self, value: str) -> None:
        _, got = self.take()
        if got != value:
            raise ValueError(f"expected {value!r}, found {got!r}")

    def parse(self) -> Expr:
        e = self.sequence()
        if self.peek()[0] != "end":
            raise ValueError(f"unexpected {self.peek()[1]!r}")
        return e

    def sequence(self) -> Expr:
        """Prose: expressions and words side by side (``{g} reshaped to {a}'s shape``)."""
        parts = [self.comparison()]
        while self.peek()[0] != "end" and self.peek()[1] not in ")],|":
            parts.append(self.comparison())
        if len(parts) == 1:
            return parts[0]
        return {"k": "seq", "a": _merge_words(parts)}

    def comparison(self) -> Expr:
        first = self.expression()
        ops: list[str] = []
        rest: list[Expr] = []
        while self.peek()[1] in _COMPARISONS:
            ops.append(self.take()[1])
            rest.append(self.expression())
        if not ops:
            return first
        return {"k": "cmp", "ops": ops, "a": [first, *rest]}

    def expression(self, floor: int = 0) -> Expr:
        left = self.prefix()
        while True:
            tok = self.peek()[1]
            if tok in ("+", "−", "-") and floor < SUM:
                self.take()
                left = binary("−" if tok != "+" else "+", left, self.expression(SUM))
            elif tok in ("·", "/", "@") and floor < PRODUCT:
                self.take()
                left = binary(tok, left, self.expression(PRODUCT))
            else:
                return left

    def prefix(self) -> Expr:
        tok = self.peek()[1]
        if tok in ("−", "-"):
            self.take()
            return {"k": "neg", "a": [self.expression(NEGATION)]}
        if tok == "√":
            self.take()
            return {"k": "sqrt", "a": [self.postfix()]}
        if tok in ("Σ", "Σ_rows"):
            self.take()
            node: Expr = {"k": "sum", "a": [self.expression(PRODUCT)]}
            if tok == "Σ_rows":
                node["sub"] = "rows"
            return node
        return self.postfix()

    def postfix(self) -> Expr:
        e = self.primary()
        while True:
            tok = self.peek()[1]
            if tok == "²":
                self.take()
                e = binary("^", e, num(2))
            elif tok == "ᵀ":
                self.take()
                e = {"k": "T", "a": [e]}
            elif tok == "^":
                self.take()
                e = binary("^", e, self.exponent())
            elif tok == "[" and e["k"] in ("fn", "slot", "name"):
                self.take()  # an index: Square.backward(g)[0]
                index = self.sequence()
                self.expect("]")
                e = {"k": "idx", "a": [e, index]}
            else:
                return e

    def exponent(self) -> Expr:
        if self.peek()[1] in ("−", "-"):
            self.take()
            return {"k": "neg", "a": [self.primary()]}
        return self.primary()

    def primary(self) -> Expr:
        kind, tok = self.take()
        if kind == "slot":
            return {"k": "slot", "t": tok[1:-1]}
        if kind == "num":
            return num(float(tok), tok)
        if tok == "(":
            inner = self.sequence()
            self.expect(")")
            return inner
        if tok == "|":
            inner = self.expression()
            self.expect("|")
            return {"k": "abs", "a": [inner]}
        if tok == "[":
            inner = self.sequence()
            self.expect("]")
            return {"k": "iv", "a": [inner]}
        if kind == "word":
            if self.peek()[1] == "(" and (tok in _FUNCTIONS or "." in tok or len(tok) > 1):
                self.take()
                args = [self.sequence()]
                while self.peek()[1] == ",":
                    self.take()
                    args.append(self.sequence())
                self.expect(")")
                return {"k": "fn", "f": tok, "a": args}
            if tok in _CONSTANTS:
                return {"k": "const", "t": tok}
            if tok in ("x̂", "ĝ", "δ", "N", "s", "Π") or len(tok) == 1:
                return name(tok)
            return {"k": "text", "t": tok}
        raise ValueError(f"unexpected {tok!r}")


def _merge_words(parts: list[Expr]) -> list[Expr]:
    """Adjacent words as one text node (``reshaped to``)."""
    merged: list[Expr] = []
    for p in parts:
        if p["k"] == "text" and merged and merged[-1]["k"] == "text":
            merged[-1] = {"k": "text", "t": f"{merged[-1]['t']} {p['t']}"}
        else:
            merged.append(p)
    return merged


@functools.lru_cache(maxsize=512)
def _parsed(template: str) -> Expr:
    return _Parser(template).parse()


def template(source: str) -> Expr:
    """The tree of a template (parsed once; treat it as read-only)."""
    return _parsed(source)


def fill(tree: Expr, slots: dict[str, Expr | None]) -> Expr | None:
    """The tree with each slot replaced; None when a slot has no value (a number asked for
    where the operand is a tensor). ``x^1`` becomes ``x`` (``2 · x``, not ``2 · x^1``)."""
    k = tree["k"]
    if k == "slot":
        return slots.get(tree["t"], name("{" + tree["t"] + "}"))
    if "a" not in tree:
        return tree
    parts = []
    for x in tree["a"]:
        y = fill(x, slots)
        if y is None:
            return None
        parts.append(y)
    if k == "^" and parts[1]["k"] == "num" and parts[1]["v"] == 1:
        return parts[0]
    return {**tree, "a": parts}


def numeric(e: Expr) -> bool:
    """True when the tree is arithmetic on numbers alone (something a reader can evaluate)."""
    k = e["k"]
    if k == "num" or k == "const":
        return True
    if k in ("name", "text", "seq", "d", "slot"):
        return False
    return all(numeric(x) for x in e.get("a", []))


def has_text(e: Expr) -> bool:
    """True when the tree holds words (a rule that is not written as arithmetic)."""
    if e["k"] in ("text", "seq"):
        return True
    return any(has_text(x) for x in e.get("a", []))


# ---- caption lines ---------------------------------------------------------------------------


def line(
    lhs: Expr,
    accumulates: bool,
    forms: list[Expr],
    before: Expr | None = None,
    after: Expr | None = None,
) -> dict[str, Any]:
    """One caption line: ``lhs = forms[0] = forms[1] …`` (``+=`` when it accumulates), and for
    an accumulation with numbers, the sum the receiver now holds (``→ before + sent = after``)."""
    out: dict[str, Any] = {
        "lhs": bracket(lhs),
        "op": "+=" if accumulates else "=",
        "forms": [bracket(f) for f in forms],
    }
    if accumulates and before is not None and after is not None and forms:
        out["total"] = [bracket(binary("+", before, forms[-1])), bracket(after)]
    return out


def line_text(caption_line: dict[str, Any]) -> str:
    """A caption line written out (the step's ``formula`` is these lines, one per row)."""
    forms = " = ".join(map(write, caption_line["forms"]))
    out = f"{write(caption_line['lhs'])} {caption_line['op']} {forms}"
    total = caption_line.get("total")
    if total:
        out += f"  → {write(total[0])} = {write(total[1])}"
    return out
