"""Parse user text with ``ast.parse`` and check it against the playground's allow-list.

Nothing here executes user text: the tree is only inspected. Unsupported syntax names
itself ("class definitions are not supported in the playground").
"""

from __future__ import annotations

import ast

from server.sandbox.budgets import Budgets
from server.sandbox.errors import BudgetError, UnsupportedError, UserError

# Node types the interpreter understands. Context/operator singletons are listed too.
ALLOWED_NODES: frozenset[type[ast.AST]] = frozenset(
    {
        ast.Module, ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.While,
        ast.If, ast.Break, ast.Continue, ast.Pass, ast.FunctionDef, ast.Return, ast.With,
        ast.withitem, ast.Import, ast.ImportFrom, ast.alias, ast.Assert, ast.Delete,
        ast.arguments, ast.arg, ast.keyword,
        ast.Constant, ast.Name, ast.Attribute, ast.Subscript, ast.Slice, ast.BinOp, ast.UnaryOp,
        ast.BoolOp, ast.Compare, ast.IfExp, ast.Call, ast.List, ast.Tuple, ast.Dict, ast.Set,
        ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp, ast.comprehension,
        ast.JoinedStr, ast.FormattedValue, ast.Starred,
        ast.Load, ast.Store, ast.Del,
        ast.Add, ast.Sub, ast.Mult, ast.MatMult, ast.Div, ast.FloorDiv, ast.Mod, ast.Pow,
        ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor,
        ast.UAdd, ast.USub, ast.Not, ast.Invert, ast.And, ast.Or,
        ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Is, ast.IsNot, ast.In, ast.NotIn,
    }
)  # fmt: skip

# What to say about syntax we leave out on purpose.
UNSUPPORTED: dict[str, str] = {
    "ClassDef": "class definitions are not supported in the playground",
    "Try": "try/except is not supported in the playground",
    "TryStar": "try/except* is not supported in the playground",
    "Raise": "raise statements are not supported in the playground",
    "Global": "global statements are not supported in the playground",
    "Nonlocal": "nonlocal statements are not supported in the playground",
    "Lambda": "lambda expressions are not supported in the playground; use def",
    "Yield": "generators (yield) are not supported in the playground",
    "YieldFrom": "generators (yield from) are not supported in the playground",
    "Await": "async code is not supported in the playground",
    "AsyncFunctionDef": "async functions are not supported in the playground",
    "AsyncFor": "async for loops are not supported in the playground",
    "AsyncWith": "async with statements are not supported in the playground",
    "NamedExpr": "assignment expressions (:=) are not supported in the playground",
    "Match": "match statements are not supported in the playground",
    "TypeAlias": "type aliases are not supported in the playground",
}

ALLOWED_IMPORTS = frozenset(
    {"torch", "torch.nn", "torch.nn.functional", "torch.optim", "torch.autograd", "math"}
)


def _pos(node: ast.AST) -> tuple[int | None, int | None]:
    line = getattr(node, "lineno", None)
    col = getattr(node, "col_offset", None)
    return line, (col + 1 if col is not None else None)


def _unsupported(node: ast.AST, message: str) -> UnsupportedError:
    return UnsupportedError(message, *_pos(node))


def _check_name(node: ast.AST, name: str) -> None:
    if not name.isascii():
        raise _unsupported(
            node, f"non-ASCII name {name!r}: the playground accepts only ASCII identifiers"
        )


class _Validator(ast.NodeVisitor):
    def __init__(self, budgets: Budgets) -> None:
        self.budgets = budgets
        self.count = 0
        self.depth = 0

    def generic_visit(self, node: ast.AST) -> None:
        self.count += 1
        if self.count > self.budgets.max_ast_nodes:
            raise BudgetError(
                "max_ast_nodes",
                f"program too large: more than {self.budgets.max_ast_nodes} syntax nodes",
            ).located(*_pos(node))
        kind = type(node)
        if kind not in ALLOWED_NODES:
            message = UNSUPPORTED.get(
                kind.__name__, f"{kind.__name__} syntax is not supported in the playground"
            )
            raise _unsupported(node, message)
        self._check(node)
        self.depth += 1
        if self.depth > self.budgets.max_ast_depth:
            raise BudgetError(
                "max_ast_depth",
                f"program nested too deeply: more than {self.budgets.max_ast_depth} levels",
            ).located(*_pos(node))
        super().generic_visit(node)
        self.depth -= 1

    def _check(self, node: ast.AST) -> None:
        if isinstance(node, ast.Attribute):
            _check_name(node, node.attr)
            if node.attr.startswith("_"):
                raise UserError(
                    "AttributeError",
                    f"attribute '{node.attr}' is not accessible in the playground",
                    *_pos(node),
                )
        elif isinstance(node, ast.Name):
            _check_name(node, node.id)
            if node.id.startswith("__"):
                raise UserError(
                    "NameError",
                    f"name '{node.id}' is not accessible in the playground",
                    *_pos(node),
                )
        elif isinstance(node, ast.Constant):
            if isinstance(node.value, bytes | complex):
                what = "bytes literals" if isinstance(node.value, bytes) else "complex numbers"
                raise _unsupported(node, f"{what} are not supported in the playground")
        elif isinstance(node, ast.FunctionDef):
            _check_name(node, node.name)
            if node.decorator_list:
                raise _unsupported(node, "decorators are not supported in the playground")
            a = node.args
            if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
                raise _unsupported(
                    node,
                    "only plain positional parameters (with defaults) are supported in the playground",
                )
            if getattr(node, "type_params", None):
                raise _unsupported(node, "type parameters are not supported in the playground")
        elif isinstance(node, ast.arg):
            _check_name(node, node.arg)
            node.annotation = None  # annotations are never evaluated
        elif isinstance(node, ast.keyword):
            if node.arg is not None:
                _check_name(node, node.arg)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                self._check_import(node, alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                raise _unsupported(node, "relative imports are not supported in the playground")
            module = node.module or ""
            self._check_import(node, module)
            for alias in node.names:
                if alias.name == "*":
                    raise _unsupported(node, "'import *' is not supported in the playground")
                if alias.name.startswith("_"):
                    raise _import_error(node, f"cannot import name '{alias.name}' from '{module}'")
        elif isinstance(node, ast.alias):
            for part in (node.name, node.asname or ""):
                _check_name(node, part)
        elif isinstance(node, ast.AnnAssign):
            node.annotation = ast.Constant(value=None)  # never evaluated
        elif isinstance(node, ast.Assign | ast.For | ast.comprehension | ast.With):
            targets = node.targets if isinstance(node, ast.Assign) else []
            if isinstance(node, ast.For | ast.comprehension):
                targets = [node.target]
            for target in targets:
                self._check_target(target)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            self._check_target(node.optional_vars)

    def _check_target(self, target: ast.AST) -> None:
        if isinstance(target, ast.Tuple | ast.List):
            for elt in target.elts:
                self._check_target(elt)
        elif isinstance(target, ast.Starred):
            raise _unsupported(
                target, "starred assignment targets are not supported in the playground"
            )

    def _check_import(self, node: ast.AST, module: str) -> None:
        if module not in ALLOWED_IMPORTS:
            top = module.split(".")[0]
            raise _import_error(
                node,
                f"No module named '{module}' (the playground can import only torch and math)"
                if top not in {"torch", "math"}
                else f"No module named '{module}'",
            )

    def visit_Module(self, node: ast.Module) -> None:
        self.generic_visit(node)


def _import_error(node: ast.AST, message: str) -> UserError:
    return UserError("ModuleNotFoundError", message, *_pos(node))


def parse(source: str, budgets: Budgets) -> ast.Module:
    """Parse and validate; raise UserError (SyntaxError, BudgetExceeded ...) when refused."""
    size = len(source.encode("utf-8", "surrogatepass"))
    if size > budgets.max_source_bytes:
        raise BudgetError(
            "max_source_bytes",
            f"program too long: {size} bytes, at most {budgets.max_source_bytes}",
        )
    if "\x00" in source:
        raise UserError("SyntaxError", "source code cannot contain null bytes", 1, 1)
    try:
        tree = ast.parse(source, mode="exec")
    except SyntaxError as exc:
        raise UserError(
            "SyntaxError", exc.msg or "invalid syntax", exc.lineno, exc.offset
        ) from None
    except (RecursionError, MemoryError):
        raise BudgetError("max_ast_depth", "program nested too deeply for the parser") from None
    except ValueError as exc:
        raise UserError("SyntaxError", str(exc), 1, 1) from None
    _Validator(budgets).visit(tree)
    return tree
