"""The program's source before it runs: friendly errors, size budgets, and the naming pass.

This runs inside the jailed worker, like everything that touches user text. It is not a
security layer and refuses no language feature: it parses (syntax errors with line and
column), bounds the source and the syntax tree, and rewrites the tree so that

- every assignment hands the assigned value to ``__agp_name__`` (tensors get the user's
  variable names: ``w``, ``loss``; ``self.fc1 = nn.Linear(...)`` names the module ``fc1``),
  and every ``for`` loop's target goes to ``__agp_loop__`` at the top of its body, which names
  the tensors it binds (``for xb, yb in batches``),
- an indexed name given to a call or an operator outside the program's classes
  (``model(X[train])``, ``y[train] - p``) hands its value to ``__agp_expr__`` with its source
  text, which names a tensor that has no name yet (the batch reads ``X[train]``, not
  ``tensor [2, 1]``),
- a last top-level statement that is an expression hands its value to ``__agp_last__`` (the
  notebook-style result, and the implicit ``backward()``),
- every class the program defines gets the decorator ``__agp_class__`` (applied last), which
  lets the playground draw a micrograd-style ``Value``'s graph and watch its ``backward()``
  (:mod:`server.program.values.observer`).

The rewritten calls keep the positions of the expressions they wrap, so tracebacks and error
columns point at the user's text.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any, TypeVar

NAME_HOOK = "__agp_name__"
NAMES_HOOK = "__agp_names__"
EXPR_HOOK = "__agp_expr__"
LOOP_HOOK = "__agp_loop__"
LAST_HOOK = "__agp_last__"
CLASS_HOOK = "__agp_class__"
FILENAME = "<program>"
#: a notebook's cells are compiled one by one, each under its own name (``<cell 3>``), so that
#: a line number is the cell's own and an error says which cell it is in
CELL_FILENAME = "<cell {}>"
_CELL_PREFIX, _CELL_SUFFIX = CELL_FILENAME.split("{}")


def cell_filename(number: int) -> str:
    """The file name a notebook's cell ``number`` (1-based) is compiled under."""
    return CELL_FILENAME.format(number)


def cell_of(filename: str) -> int | None:
    """The cell number of a cell's file name; None for anything else (``<program>`` too)."""
    if filename.startswith(_CELL_PREFIX) and filename.endswith(_CELL_SUFFIX):
        number = filename[len(_CELL_PREFIX) : -len(_CELL_SUFFIX)]
        if number.isdigit():
            return int(number)
    return None


def is_program_file(filename: str) -> bool:
    """True for code the learner wrote: the program, or one of a notebook's cells."""
    return filename == FILENAME or cell_of(filename) is not None


def place(filename: str, line: int | None) -> str:
    """Where a line is, as the learner reads it: ``line 7``, or ``cell 3, line 7``."""
    cell = cell_of(filename)
    at = f"line {line}" if line is not None else ""
    if cell is None:
        return at
    return f"cell {cell}, {at}" if at else f"cell {cell}"


class SourceError(Exception):
    """The source cannot run: (type, message, line, col)."""

    def __init__(self, type_name: str, message: str, line: int | None, col: int | None) -> None:
        super().__init__(message)
        self.type_name = type_name
        self.message = message
        self.line = line
        self.col = col


@dataclass(frozen=True)
class SourceBudgets:
    max_source_bytes: int = 64 * 1024
    max_ast_nodes: int = 20_000
    max_ast_depth: int = 100


def parse(source: str, budgets: SourceBudgets, filename: str = FILENAME) -> ast.Module:
    """Parse and check the budgets; raise SourceError with line and column when refused."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > budgets.max_source_bytes:
        raise SourceError(
            "BudgetExceeded",
            f"program too long: {size:,} bytes, at most {budgets.max_source_bytes:,} "
            "(budget: max_source_bytes)",
            None,
            None,
        )
    try:
        tree = ast.parse(source, filename=filename, mode="exec")
    except SyntaxError as exc:
        raise SourceError(
            type(exc).__name__, exc.msg or "invalid syntax", exc.lineno, exc.offset
        ) from None
    except (RecursionError, MemoryError):
        raise SourceError(
            "BudgetExceeded",
            "program nested too deeply for the parser (budget: max_ast_depth)",
            None,
            None,
        ) from None
    except ValueError as exc:  # e.g. null bytes
        raise SourceError("SyntaxError", str(exc), 1, 1) from None
    _check_size(tree, budgets)
    return tree


def _check_size(tree: ast.Module, budgets: SourceBudgets) -> None:
    """Count the syntax nodes and their depth, in ``ast.iter_child_nodes``'s order, written
    out (it runs on every request: the generator costs half the time)."""
    count = 0
    stack: list[tuple[ast.AST, int]] = [(tree, 0)]
    push, node_type = stack.append, ast.AST
    max_nodes, max_depth = budgets.max_ast_nodes, budgets.max_ast_depth
    while stack:
        node, depth = stack.pop()
        count += 1
        if count > max_nodes:
            raise SourceError(
                "BudgetExceeded",
                f"program too large: more than {budgets.max_ast_nodes:,} syntax nodes "
                "(budget: max_ast_nodes)",
                *_pos(node),
            )
        if depth > max_depth:
            raise SourceError(
                "BudgetExceeded",
                f"program nested too deeply: more than {budgets.max_ast_depth} levels "
                "(budget: max_ast_depth)",
                *_pos(node),
            )
        depth += 1
        for name in node._fields:
            field = getattr(node, name, None)
            if isinstance(field, node_type):
                push((field, depth))
            elif field.__class__ is list:
                for item in field:
                    if isinstance(item, node_type):
                        push((item, depth))


def _pos(node: ast.AST) -> tuple[int | None, int | None]:
    line = getattr(node, "lineno", None)
    col = getattr(node, "col_offset", None)
    return line, (col + 1 if col is not None else None)


# ---- the naming pass --------------------------------------------------------------------------


def _target_names(target: ast.expr) -> ast.expr | None:
    """The names an assignment target binds, as a constant tree for ``__agp_names__``:
    ``x`` -> 'x', ``self.fc1`` -> '.fc1', ``(a, (b, c))`` -> ('a', ('b', 'c')); None where
    nothing is named (subscripts, starred targets)."""
    if isinstance(target, ast.Name):
        return ast.Constant(target.id)
    if isinstance(target, ast.Attribute):
        return ast.Constant("." + target.attr)
    if isinstance(target, ast.Tuple | ast.List):
        if any(isinstance(e, ast.Starred) for e in target.elts):
            return None
        parts = [_target_names(e) or ast.Constant(None) for e in target.elts]
        return ast.Tuple(parts, ast.Load())
    return None


def _loaded(target: ast.expr) -> ast.expr:
    """A loop's target read back: ``(xb, yb)`` as an expression."""
    if isinstance(target, ast.Name):
        return ast.copy_location(ast.Name(target.id, ast.Load()), target)
    if isinstance(target, ast.Tuple | ast.List):
        parts = [
            _loaded(e)
            if isinstance(e, ast.Name | ast.Tuple | ast.List)
            else ast.copy_location(ast.Constant(None), e)
            for e in target.elts
        ]
        return ast.copy_location(ast.Tuple(parts, ast.Load()), target)
    return ast.Constant(None)


def _plain(e: ast.expr) -> bool:
    """A name or a chain of attributes (``X``, ``data.X``): what an indexed name starts with."""
    while isinstance(e, ast.Attribute):
        e = e.value
    return isinstance(e, ast.Name) and not e.id.startswith("__agp_")


_N = TypeVar("_N", bound=ast.AST)


def _located(new: _N, at: ast.AST) -> _N:
    """``new`` (a node this pass builds) and the nodes built with it placed at ``at``: what
    ``ast.fix_missing_locations`` does, without walking the program's own nodes beneath it
    (placed already: a walk of the whole tree cost more than the rest of the rewrite)."""
    stack: list[ast.AST] = [new]
    while stack:
        node = stack.pop()
        if "lineno" not in node._attributes or hasattr(node, "lineno"):
            if node is not new:
                continue  # the program's own node (or a context): placed, and so is all below
        else:
            ast.copy_location(node, at)
        stack.extend(ast.iter_child_nodes(node))
    return new


#: nodes with nothing beneath them that the naming pass changes: not visited
_LEAVES = frozenset(
    cls
    for base in (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)
    for cls in base.__subclasses__()
) | {ast.Name, ast.Constant, ast.alias, ast.Pass, ast.Break, ast.Continue, ast.Global,
     ast.Nonlocal, ast.Import, ast.ImportFrom}  # fmt: skip


class _Namer(ast.NodeTransformer):
    """Wrap assigned values: ``x = e`` -> ``x = __agp_name__('x', e, local)``.

    ``local`` is False at the top level, True inside a function, and the class's name inside
    a method of a class (``'Value'`` in ``Value.tanh``): a truthy value either way."""

    def __init__(self) -> None:
        self.depth = 0  # > 0 inside a function: names there give way to top-level ones
        self.class_body: str | None = None  # the class whose body is being visited
        self.owner: str | None = None  # the class whose method is being visited

    def visit(self, node: ast.AST) -> Any:
        """NodeTransformer's dispatch, leaves (names, constants, operators) passed over: about
        three in five of a program's nodes, and the pass runs on every request."""
        cls = node.__class__
        if cls in _LEAVES:
            return node
        visitor = getattr(self, "visit_" + cls.__name__, None)
        return visitor(node) if visitor is not None else self.generic_visit(node)

    def _wrap(self, names: ast.expr, value: ast.expr) -> ast.expr:
        hook = NAME_HOOK if isinstance(names, ast.Constant) else NAMES_HOOK
        local: bool | str = self.depth > 0 and (self.owner or True)
        call = ast.Call(ast.Name(hook, ast.Load()), [names, value, ast.Constant(local)], [])
        return _located(call, value)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        # Operator overloads (__mul__, __add__ ...) build intermediate results named `out`:
        # those are better labelled by their expression than by a local variable's name.
        if node.name.startswith("__") and node.name.endswith("__") and node.name != "__init__":
            return node
        saved = (self.class_body, self.owner)
        if self.class_body is not None:
            self.owner = self.class_body
        self.class_body = None
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1
        self.class_body, self.owner = saved
        return node

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return node

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        saved = self.class_body
        self.class_body = node.name
        self.generic_visit(node)
        self.class_body = saved
        hook = ast.Name(CLASS_HOOK, ast.Load())
        _located(hook, node.decorator_list[0] if node.decorator_list else node)
        node.decorator_list.insert(0, hook)  # the outermost: it sees the finished class
        return node

    def visit_Assign(self, node: ast.Assign) -> ast.AST:
        self.generic_visit(node)
        if len(node.targets) == 1:
            names = _target_names(node.targets[0])
            if names is not None:
                node.value = self._wrap(names, node.value)
        return node

    def visit_AnnAssign(self, node: ast.AnnAssign) -> ast.AST:
        self.generic_visit(node)
        if node.value is not None and node.simple:
            names = _target_names(node.target)
            if names is not None:
                node.value = self._wrap(names, node.value)
        return node

    def visit_For(self, node: ast.For) -> ast.AST:
        self.generic_visit(node)
        if self.owner is not None:
            return node  # inside the program's classes (a Value's backward): nothing to name
        names = _target_names(node.target)
        if names is None or (isinstance(names, ast.Constant) and str(names.value)[:1] == "."):
            return node
        local: bool | str = self.depth > 0 and (self.owner or True)
        value = _loaded(node.target)
        call = ast.Call(ast.Name(LOOP_HOOK, ast.Load()), [names, value, ast.Constant(local)], [])
        node.body.insert(0, _located(ast.Expr(call), node.body[0]))
        return node

    visit_AsyncFor = visit_For  # type: ignore[assignment]

    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        if self.class_body is None and self.owner is None:
            node.args = [self._expression(a) for a in node.args]
        return node

    def visit_BinOp(self, node: ast.BinOp) -> ast.AST:
        self.generic_visit(node)
        if self.class_body is None and self.owner is None:
            node.left = self._expression(node.left)
            node.right = self._expression(node.right)
        return node

    def _expression(self, e: ast.expr) -> ast.expr:
        """``X[train]`` -> ``__agp_expr__('X[train]', X[train], local)``: an indexed name,
        named by its text (only a tensor without a name takes it)."""
        if not (isinstance(e, ast.Subscript) and isinstance(e.ctx, ast.Load) and _plain(e.value)):
            return e
        text = ast.unparse(e)
        if len(text) > 40:
            return e
        local: bool | str = self.depth > 0 and (self.owner or True)
        call = ast.Call(
            ast.Name(EXPR_HOOK, ast.Load()), [ast.Constant(text), e, ast.Constant(local)], []
        )
        return _located(call, e)

    def visit_AugAssign(self, node: ast.AugAssign) -> ast.AST | list[ast.AST]:
        self.generic_visit(node)
        if not isinstance(node.target, ast.Name):
            return node
        # x += e keeps x's object when it is changed in place; name it (again) afterwards
        load = ast.copy_location(ast.Name(node.target.id, ast.Load()), node.target)
        call = self._wrap(ast.Constant(node.target.id), load)
        return [node, _located(ast.Expr(call), node)]


def _capture_last(tree: ast.Module) -> None:
    """``e`` as the last top-level statement -> ``__agp_last__(e)``."""
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        stmt = tree.body[-1]
        call = ast.Call(ast.Name(LAST_HOOK, ast.Load()), [stmt.value], [])
        stmt.value = _located(call, stmt.value)


def rewrite(tree: ast.Module) -> tuple[ast.Module, bool]:
    """Apply the naming pass and the last-expression capture. Returns (tree, has_last_expr)."""
    has_last = bool(tree.body) and isinstance(tree.body[-1], ast.Expr)
    tree = _Namer().visit(tree)
    _capture_last(tree)
    return tree, has_last


def last_position(tree: ast.Module) -> tuple[int | None, int | None]:
    """Line and column of the last top-level statement (where an implicit backward happens)."""
    if not tree.body:
        return None, None
    return _pos(tree.body[-1])
