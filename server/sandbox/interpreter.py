"""A tree-walking interpreter for the playground language (a small, bounded Python).

It evaluates the tree from :mod:`server.sandbox.validate` node by node. Every step, loop
iteration, call, integer, string, list and printed character is counted against
:class:`~server.sandbox.budgets.Budgets`. Errors become :class:`UserError` with the
innermost node's line and column.
"""

from __future__ import annotations

import ast
import operator
import time
from collections.abc import Callable, Iterator
from typing import Any

from server.sandbox import namespace
from server.sandbox.budgets import Budgets
from server.sandbox.errors import BudgetError, UserError, from_exception
from server.sandbox.formatting import Repr, safe_format

_BINOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.MatMult: operator.matmul, ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Pow: operator.pow, ast.LShift: operator.lshift,
    ast.RShift: operator.rshift, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.BitXor: operator.xor,
}  # fmt: skip
_INPLACE: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.iadd, ast.Sub: operator.isub, ast.Mult: operator.imul,
    ast.MatMult: operator.imatmul, ast.Div: operator.itruediv, ast.FloorDiv: operator.ifloordiv,
    ast.Mod: operator.imod, ast.Pow: operator.ipow, ast.LShift: operator.ilshift,
    ast.RShift: operator.irshift, ast.BitAnd: operator.iand, ast.BitOr: operator.ior,
    ast.BitXor: operator.ixor,
}  # fmt: skip
_CMPOPS: dict[type, Callable[[Any, Any], Any]] = {
    ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
    ast.Gt: operator.gt, ast.GtE: operator.ge, ast.Is: operator.is_, ast.IsNot: operator.is_not,
    ast.In: lambda a, b: a in b, ast.NotIn: lambda a, b: a not in b,
}  # fmt: skip
_UNARY: dict[type, Callable[[Any], Any]] = {
    ast.UAdd: operator.pos, ast.USub: operator.neg, ast.Not: operator.not_, ast.Invert: operator.invert,
}  # fmt: skip


class _Break(Exception):
    pass


class _Continue(Exception):
    pass


class _Return(Exception):
    def __init__(self, value: Any) -> None:
        self.value = value


def pos(node: ast.AST) -> tuple[int | None, int | None]:
    col = getattr(node, "col_offset", None)
    return getattr(node, "lineno", None), (col + 1 if col is not None else None)


class Scope:
    """Variables of the module, a function call or a comprehension, chained to the enclosing one."""

    __slots__ = ("local_names", "parent", "vars")

    def __init__(self, parent: Scope | None, local_names: frozenset[str] = frozenset()) -> None:
        self.vars: dict[str, Any] = {}
        self.parent = parent
        self.local_names = local_names


class UserFunction:
    """A function defined with ``def`` in the user's program."""

    __slots__ = ("closure", "defaults", "local_names", "name", "node")

    def __init__(self, node: ast.FunctionDef, closure: Scope, defaults: list[Any]) -> None:
        self.node = node
        self.name = node.name
        self.closure = closure
        self.defaults = defaults
        self.local_names = _assigned_names(node)

    def __repr__(self) -> str:
        return f"<function {self.name}>"


UserFunction.__name__ = "function"
UserFunction.__qualname__ = "function"


def _assigned_names(fn: ast.FunctionDef) -> frozenset[str]:
    """Names a function assigns (its locals), not looking into nested defs or comprehensions."""
    names = {a.arg for a in fn.args.args}
    stack: list[ast.AST] = list(fn.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store | ast.Del):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
            continue
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                names.add(alias.asname or alias.name.split(".")[0])
        if isinstance(node, ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue
        stack.extend(ast.iter_child_nodes(node))
    return frozenset(names)


class Interpreter:
    """Runs one validated module under budgets; collects what it prints."""

    def __init__(self, budgets: Budgets, builtins: dict[str, Any] | None = None) -> None:
        self.b = budgets
        self.steps = 0
        self.loop_iterations = 0
        self.call_depth = 0
        self.output: list[str] = []
        self.output_chars = 0
        self.deadline = time.monotonic() + budgets.wall_clock_s
        self.repr = Repr(budgets.max_str_len, budgets.max_list_len)
        self.ctx = namespace.SandboxContext(
            budgets.max_list_len, budgets.max_str_len, self.repr.str
        )
        self.globals = Scope(None)
        self.last_value: Any = None
        self.name_hook: Callable[[str, Any], None] | None = None
        from server.sandbox.builtins import make_builtins

        self.builtins = builtins if builtins is not None else make_builtins(self)
        self._stmt: dict[type, Callable[[Any, Scope], None]] = {
            ast.Expr: self._expr_stmt, ast.Assign: self._assign, ast.AugAssign: self._augassign,
            ast.AnnAssign: self._annassign, ast.For: self._for, ast.While: self._while,
            ast.If: self._if, ast.Break: self._break, ast.Continue: self._continue,
            ast.Pass: self._pass, ast.FunctionDef: self._def, ast.Return: self._return,
            ast.With: self._with, ast.Import: self._import, ast.ImportFrom: self._import_from,
            ast.Assert: self._assert, ast.Delete: self._delete,
        }  # fmt: skip
        self._expr: dict[type, Callable[[Any, Scope], Any]] = {
            ast.Constant: self._constant, ast.Name: self._name, ast.Attribute: self._attribute,
            ast.Subscript: self._subscript, ast.Slice: self._slice, ast.BinOp: self._binop,
            ast.UnaryOp: self._unaryop, ast.BoolOp: self._boolop, ast.Compare: self._compare,
            ast.IfExp: self._ifexp, ast.Call: self._call, ast.List: self._list,
            ast.Tuple: self._tuple, ast.Dict: self._dict, ast.Set: self._set,
            ast.ListComp: self._listcomp, ast.GeneratorExp: self._listcomp,
            ast.SetComp: self._setcomp, ast.DictComp: self._dictcomp,
            ast.JoinedStr: self._joinedstr, ast.FormattedValue: self._formatted,
        }  # fmt: skip

    # ---- budgets -----------------------------------------------------------------------------

    def tick(self) -> None:
        self.steps += 1
        if self.steps > self.b.max_steps:
            raise BudgetError(
                "max_steps", f"program ran too long: more than {self.b.max_steps} interpreter steps"
            )
        if not self.steps & 1023 and time.monotonic() > self.deadline:
            self.time_exceeded()

    def time_exceeded(self) -> None:
        raise BudgetError("wall_clock_s", f"program ran longer than {self.b.wall_clock_s:g} s")

    def tick_loop(self) -> None:
        self.loop_iterations += 1
        if self.loop_iterations > self.b.max_loop_iterations:
            raise BudgetError(
                "max_loop_iterations",
                f"too many loop iterations: more than {self.b.max_loop_iterations}",
            )
        self.tick()

    def check_len(self, n: int, what: str = "list") -> None:
        if n > self.b.max_list_len:
            raise BudgetError(
                "max_list_len", f"{what} too long: more than {self.b.max_list_len} items"
            )

    def check_str(self, n: int) -> None:
        if n > self.b.max_str_len:
            raise BudgetError(
                "max_str_len", f"string too long: more than {self.b.max_str_len} characters"
            )

    def check_int(self, bits: int) -> None:
        if bits > self.b.max_int_bits:
            raise BudgetError(
                "max_int_bits", f"integer too large: more than {self.b.max_int_bits} bits"
            )

    def write(self, text: str) -> None:
        room = self.b.max_output_chars - self.output_chars
        if len(text) > room:
            self.output.append(text[: max(room, 0)])
            self.output_chars = self.b.max_output_chars
            raise BudgetError(
                "max_output_chars",
                f"too much output: more than {self.b.max_output_chars} characters printed",
            )
        self.output.append(text)
        self.output_chars += len(text)

    def stdout(self) -> str:
        return "".join(self.output)

    def iterate(self, value: Any) -> Iterator[Any]:
        """Iterate a user value, one loop-iteration tick per item."""
        if isinstance(value, UserFunction | namespace.ModuleProxy):
            raise UserError("TypeError", f"'{type(value).__name__}' object is not iterable")
        for item in iter(value):
            self.tick_loop()
            yield item

    def materialize(self, value: Any) -> list[Any]:
        """A bounded list of a user iterable's items."""
        items: list[Any] = []
        for item in self.iterate(value):
            items.append(item)
            if len(items) > self.b.max_list_len:
                self.check_len(len(items))
        return items

    # ---- entry points ------------------------------------------------------------------------

    def run(self, tree: ast.Module) -> Any:
        """Run a module; return the value of its last statement when that is an expression."""
        for stmt in tree.body:
            self.last_value = None
            self.exec_stmt(stmt, self.globals)
        return self.last_value

    def exec_stmt(self, node: ast.stmt, scope: Scope) -> None:
        self.tick()
        try:
            self._stmt[type(node)](node, scope)
        except (_Break, _Continue, _Return):
            raise
        except UserError as exc:
            raise exc.located(*pos(node)) from None
        except Exception as exc:
            raise from_exception(exc, *pos(node)) from None

    def exec_block(self, body: list[ast.stmt], scope: Scope) -> None:
        for stmt in body:
            self.exec_stmt(stmt, scope)

    def eval_expr(self, node: ast.expr, scope: Scope) -> Any:
        self.tick()
        try:
            return self._expr[type(node)](node, scope)
        except UserError as exc:
            raise exc.located(*pos(node)) from None
        except (_Break, _Continue, _Return):
            raise
        except Exception as exc:
            raise from_exception(exc, *pos(node)) from None

    # ---- names -------------------------------------------------------------------------------

    def lookup(self, name: str, scope: Scope) -> Any:
        s: Scope | None = scope
        while s is not None:
            if name in s.vars:
                return s.vars[name]
            if name in s.local_names:
                raise UserError(
                    "UnboundLocalError",
                    f"cannot access local variable '{name}' where it is not associated with a value",
                )
            s = s.parent
        if name in self.builtins:
            return self.builtins[name]
        raise UserError("NameError", f"name '{name}' is not defined")

    def store(self, name: str, value: Any, scope: Scope) -> None:
        scope.vars[name] = value
        if self.name_hook is not None:
            self.name_hook(name, value)

    def assign(self, target: ast.expr, value: Any, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            self.store(target.id, value, scope)
        elif isinstance(target, ast.Tuple | ast.List):
            items = self.materialize(value) if not isinstance(value, tuple | list) else list(value)
            n = len(target.elts)
            if len(items) > n:
                raise UserError("ValueError", f"too many values to unpack (expected {n})")
            if len(items) < n:
                raise UserError(
                    "ValueError", f"not enough values to unpack (expected {n}, got {len(items)})"
                )
            for elt, item in zip(target.elts, items, strict=True):
                self.assign(elt, item, scope)
        elif isinstance(target, ast.Attribute):
            obj = self.eval_expr(target.value, scope)
            namespace.set_attribute(obj, target.attr, value, self.ctx)
        elif isinstance(target, ast.Subscript):
            obj = self.eval_expr(target.value, scope)
            index = self.eval_expr(target.slice, scope)
            if isinstance(obj, list | dict) and not isinstance(index, slice):
                if isinstance(obj, dict) and index not in obj:
                    self.check_len(len(obj) + 1, "dict")
            elif isinstance(obj, list) and isinstance(index, slice):
                new = self.materialize(value)
                self.check_len(len(obj) + len(new))
                value = new
            operator.setitem(obj, index, value)
        else:  # pragma: no cover - the validator admits no other target
            raise UserError("SyntaxError", "cannot assign to this expression")

    # ---- statements --------------------------------------------------------------------------

    def _expr_stmt(self, node: ast.Expr, scope: Scope) -> None:
        value = self.eval_expr(node.value, scope)
        if scope is self.globals:
            self.last_value = value

    def _assign(self, node: ast.Assign, scope: Scope) -> None:
        value = self.eval_expr(node.value, scope)
        for target in node.targets:
            self.assign(target, value, scope)
        if scope is self.globals:
            self.last_value = value

    def _annassign(self, node: ast.AnnAssign, scope: Scope) -> None:
        if node.value is not None:
            value = self.eval_expr(node.value, scope)
            self.assign(node.target, value, scope)
            if scope is self.globals:
                self.last_value = value

    def _augassign(self, node: ast.AugAssign, scope: Scope) -> None:
        target = node.target
        if isinstance(target, ast.Name):
            old = self.lookup(target.id, scope)
            new = self.binop(type(node.op), old, self.eval_expr(node.value, scope), inplace=True)
            self.store(target.id, new, scope)
        elif isinstance(target, ast.Attribute):
            obj = self.eval_expr(target.value, scope)
            old = namespace.get_attribute(obj, target.attr, self.ctx)
            new = self.binop(type(node.op), old, self.eval_expr(node.value, scope), inplace=True)
            if new is not old:
                namespace.set_attribute(obj, target.attr, new, self.ctx)
        elif isinstance(target, ast.Subscript):
            obj = self.eval_expr(target.value, scope)
            index = self.eval_expr(target.slice, scope)
            old = operator.getitem(obj, index)
            new = self.binop(type(node.op), old, self.eval_expr(node.value, scope), inplace=True)
            operator.setitem(obj, index, new)

    def _for(self, node: ast.For, scope: Scope) -> None:
        iterable = self.eval_expr(node.iter, scope)
        broke = False
        for item in self.iterate(iterable):
            self.assign(node.target, item, scope)
            try:
                self.exec_block(node.body, scope)
            except _Break:
                broke = True
                break
            except _Continue:
                continue
        if not broke:
            self.exec_block(node.orelse, scope)

    def _while(self, node: ast.While, scope: Scope) -> None:
        broke = False
        while self.truth(self.eval_expr(node.test, scope)):
            self.tick_loop()
            try:
                self.exec_block(node.body, scope)
            except _Break:
                broke = True
                break
            except _Continue:
                continue
        if not broke:
            self.exec_block(node.orelse, scope)

    def _if(self, node: ast.If, scope: Scope) -> None:
        if self.truth(self.eval_expr(node.test, scope)):
            self.exec_block(node.body, scope)
        else:
            self.exec_block(node.orelse, scope)

    def _break(self, node: ast.Break, scope: Scope) -> None:
        raise _Break

    def _continue(self, node: ast.Continue, scope: Scope) -> None:
        raise _Continue

    def _pass(self, node: ast.Pass, scope: Scope) -> None:
        return None

    def _def(self, node: ast.FunctionDef, scope: Scope) -> None:
        defaults = [self.eval_expr(d, scope) for d in node.args.defaults]
        scope.vars[node.name] = UserFunction(node, scope, defaults)

    def _return(self, node: ast.Return, scope: Scope) -> None:
        raise _Return(self.eval_expr(node.value, scope) if node.value is not None else None)

    def _with(self, node: ast.With, scope: Scope) -> None:
        managers = []
        try:
            for item in node.items:
                manager = self.eval_expr(item.context_expr, scope)
                if not _is_context_manager(manager):
                    raise UserError(
                        "TypeError",
                        f"'{type(manager).__name__}' object does not support the context manager protocol",
                    ).located(*pos(item.context_expr))
                entered = manager.__enter__()
                managers.append(manager)
                if item.optional_vars is not None:
                    self.assign(item.optional_vars, entered, scope)
            self.exec_block(node.body, scope)
        finally:
            for manager in reversed(managers):
                manager.__exit__(None, None, None)

    def _import(self, node: ast.Import, scope: Scope) -> None:
        mods = namespace.modules()
        for alias in node.names:
            if alias.name not in mods:
                raise UserError("ModuleNotFoundError", f"No module named '{alias.name}'")
            if alias.asname:
                self.store(alias.asname, mods[alias.name], scope)
            else:
                top = alias.name.split(".")[0]
                if top not in mods:
                    raise UserError("ModuleNotFoundError", f"No module named '{top}'")
                self.store(top, mods[top], scope)

    def _import_from(self, node: ast.ImportFrom, scope: Scope) -> None:
        mods = namespace.modules()
        module = node.module or ""
        if module not in mods:
            raise UserError("ModuleNotFoundError", f"No module named '{module}'")
        proxy = mods[module]
        for alias in node.names:
            try:
                value = namespace.get_attribute(proxy, alias.name, self.ctx)
            except UserError:
                raise UserError(
                    "ImportError", f"cannot import name '{alias.name}' from '{module}'"
                ) from None
            self.store(alias.asname or alias.name, value, scope)

    def _assert(self, node: ast.Assert, scope: Scope) -> None:
        if not self.truth(self.eval_expr(node.test, scope)):
            message = self.repr.str(self.eval_expr(node.msg, scope)) if node.msg is not None else ""
            raise UserError("AssertionError", message)

    def _delete(self, node: ast.Delete, scope: Scope) -> None:
        for target in node.targets:
            if isinstance(target, ast.Name):
                if target.id not in scope.vars:
                    raise UserError("NameError", f"name '{target.id}' is not defined")
                del scope.vars[target.id]
            elif isinstance(target, ast.Subscript):
                obj = self.eval_expr(target.value, scope)
                operator.delitem(obj, self.eval_expr(target.slice, scope))
            else:
                raise UserError(
                    "SyntaxError", "only names and items can be deleted in the playground"
                )

    # ---- expressions -------------------------------------------------------------------------

    def truth(self, value: Any) -> bool:
        return bool(value)

    def _constant(self, node: ast.Constant, scope: Scope) -> Any:
        return node.value

    def _name(self, node: ast.Name, scope: Scope) -> Any:
        return self.lookup(node.id, scope)

    def _attribute(self, node: ast.Attribute, scope: Scope) -> Any:
        obj = self.eval_expr(node.value, scope)
        value = namespace.get_attribute(obj, node.attr, self.ctx)
        if value is None and namespace.reads_non_leaf_grad(obj, node.attr):
            self.ctx.warn(node.lineno, namespace.NON_LEAF_GRAD_WARNING)
        return value

    def _subscript(self, node: ast.Subscript, scope: Scope) -> Any:
        obj = self.eval_expr(node.value, scope)
        index = self.eval_expr(node.slice, scope)
        if isinstance(obj, UserFunction | namespace.ModuleProxy):
            raise UserError("TypeError", f"'{type(obj).__name__}' object is not subscriptable")
        return namespace.sanitize(operator.getitem(obj, index), self.ctx)

    def _slice(self, node: ast.Slice, scope: Scope) -> slice:
        return slice(
            self.eval_expr(node.lower, scope) if node.lower is not None else None,
            self.eval_expr(node.upper, scope) if node.upper is not None else None,
            self.eval_expr(node.step, scope) if node.step is not None else None,
        )

    def _binop(self, node: ast.BinOp, scope: Scope) -> Any:
        left = self.eval_expr(node.left, scope)
        right = self.eval_expr(node.right, scope)
        return self.binop(type(node.op), left, right)

    def binop(self, op: type, left: Any, right: Any, inplace: bool = False) -> Any:
        """Apply a binary operator after checking that the result stays within the size budgets."""
        lt, rt = type(left), type(right)
        if (lt is int or lt is bool) and (rt is int or rt is bool):
            if op is ast.Pow:
                if right > 0 and abs(left) > 1:
                    self.check_int(max(abs(left).bit_length() - 1, 1) * right)
            elif op is ast.Mult:
                self.check_int(left.bit_length() + right.bit_length())
            elif op is ast.LShift and right > 0:
                self.check_int(left.bit_length() + right)
        elif op is ast.Mult:
            if (lt is int or lt is bool) and isinstance(right, str | list | tuple):
                left, right = right, left
                lt, rt = rt, lt
            if isinstance(left, str | list | tuple) and (rt is int or rt is bool):
                size = len(left) * max(right, 0)
                if isinstance(left, str):
                    self.check_str(size)
                else:
                    self.check_len(size)
        elif op is ast.Add:
            if lt is str and rt is str:
                self.check_str(len(left) + len(right))
            elif isinstance(left, list | tuple) and isinstance(right, list | tuple):
                self.check_len(len(left) + len(right))
            elif lt is list and inplace:
                self.check_len(len(left) + len(self.materialize(right)))
        elif op is ast.Mod and lt is str:
            raise UserError(
                "TypeError",
                "'%' string formatting is not supported in the playground; use an f-string",
            )
        table = _INPLACE if inplace else _BINOPS
        return table[op](left, right)

    def _unaryop(self, node: ast.UnaryOp, scope: Scope) -> Any:
        operand = self.eval_expr(node.operand, scope)
        if isinstance(node.op, ast.Not):
            return not self.truth(operand)
        return _UNARY[type(node.op)](operand)

    def _boolop(self, node: ast.BoolOp, scope: Scope) -> Any:
        is_and = isinstance(node.op, ast.And)
        value: Any = None
        for expr in node.values:
            value = self.eval_expr(expr, scope)
            if self.truth(value) != is_and:
                return value
        return value

    def _compare(self, node: ast.Compare, scope: Scope) -> Any:
        left = self.eval_expr(node.left, scope)
        result: Any = True
        for op, comparator in zip(node.ops, node.comparators, strict=True):
            right = self.eval_expr(comparator, scope)
            result = _CMPOPS[type(op)](left, right)
            if len(node.ops) > 1 and not self.truth(result):
                return result
            left = right
        return result

    def _ifexp(self, node: ast.IfExp, scope: Scope) -> Any:
        return self.eval_expr(
            node.body if self.truth(self.eval_expr(node.test, scope)) else node.orelse, scope
        )

    def _call(self, node: ast.Call, scope: Scope) -> Any:
        func = self.eval_expr(node.func, scope)
        args: list[Any] = []
        for arg in node.args:
            if isinstance(arg, ast.Starred):
                args.extend(self.materialize(self.eval_expr(arg.value, scope)))
            else:
                args.append(self.eval_expr(arg, scope))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            value = self.eval_expr(kw.value, scope)
            if kw.arg is None:
                if not isinstance(value, dict):
                    raise UserError("TypeError", "argument after ** must be a mapping")
                for k, v in value.items():
                    if not isinstance(k, str):
                        raise UserError("TypeError", "keywords must be strings")
                    kwargs[k] = v
            else:
                kwargs[kw.arg] = value
        return self.call(func, args, kwargs)

    def call(self, func: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if isinstance(func, UserFunction):
            return self.call_user(func, args, kwargs)
        if isinstance(func, namespace.ModuleProxy) or not callable(func):
            raise UserError("TypeError", f"'{type(func).__name__}' object is not callable")
        return namespace.sanitize(func(*args, **kwargs), self.ctx)

    def call_user(self, func: UserFunction, args: list[Any], kwargs: dict[str, Any]) -> Any:
        params = [a.arg for a in func.node.args.args]
        if len(args) > len(params):
            raise UserError(
                "TypeError",
                f"{func.name}() takes {len(params)} positional argument{'s' if len(params) != 1 else ''} but {len(args)} were given",
            )
        scope = Scope(func.closure, func.local_names)
        for name, value in zip(params, args, strict=False):
            scope.vars[name] = value
        for name, value in kwargs.items():
            if name not in params:
                raise UserError(
                    "TypeError", f"{func.name}() got an unexpected keyword argument '{name}'"
                )
            if name in scope.vars:
                raise UserError(
                    "TypeError", f"{func.name}() got multiple values for argument '{name}'"
                )
            scope.vars[name] = value
        first_default = len(params) - len(func.defaults)
        missing = []
        for i, name in enumerate(params):
            if name not in scope.vars:
                if i >= first_default:
                    scope.vars[name] = func.defaults[i - first_default]
                else:
                    missing.append(name)
        if missing:
            names = (
                " and ".join(f"'{m}'" for m in missing)
                if len(missing) <= 2
                else ", ".join(f"'{m}'" for m in missing)
            )
            raise UserError(
                "TypeError",
                f"{func.name}() missing {len(missing)} required positional argument{'s' if len(missing) > 1 else ''}: {names}",
            )
        self.call_depth += 1
        if self.call_depth > self.b.max_call_depth:
            self.call_depth -= 1
            raise UserError(
                "RecursionError",
                f"maximum recursion depth exceeded (more than {self.b.max_call_depth} nested calls)",
            )
        try:
            self.exec_block(func.node.body, scope)
        except _Return as ret:
            return ret.value
        finally:
            self.call_depth -= 1
        return None

    def _list(self, node: ast.List, scope: Scope) -> list[Any]:
        items: list[Any] = []
        for elt in node.elts:
            if isinstance(elt, ast.Starred):
                items.extend(self.materialize(self.eval_expr(elt.value, scope)))
                self.check_len(len(items))
            else:
                items.append(self.eval_expr(elt, scope))
        return items

    def _tuple(self, node: ast.Tuple, scope: Scope) -> tuple[Any, ...]:
        return tuple(self._list(node, scope))  # type: ignore[arg-type]

    def _set(self, node: ast.Set, scope: Scope) -> set[Any]:
        return set(self._list(node, scope))  # type: ignore[arg-type]

    def _dict(self, node: ast.Dict, scope: Scope) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                mapping = self.eval_expr(value, scope)
                if not isinstance(mapping, dict):
                    raise UserError(
                        "TypeError", f"'{type(mapping).__name__}' object is not a mapping"
                    )
                result.update(mapping)
            else:
                k = self.eval_expr(key, scope)
                result[k] = self.eval_expr(value, scope)
        self.check_len(len(result), "dict")
        return result

    def _comprehension(
        self, generators: list[ast.comprehension], scope: Scope, emit: Callable[[Scope], None]
    ) -> None:
        inner = Scope(scope)

        def loop(level: int) -> None:
            gen = generators[level]
            iterable = self.eval_expr(gen.iter, scope if level == 0 else inner)
            for item in self.iterate(iterable):
                self.assign(gen.target, item, inner)
                if all(self.truth(self.eval_expr(cond, inner)) for cond in gen.ifs):
                    if level + 1 < len(generators):
                        loop(level + 1)
                    else:
                        emit(inner)

        loop(0)

    def _listcomp(self, node: ast.ListComp | ast.GeneratorExp, scope: Scope) -> list[Any]:
        items: list[Any] = []

        def emit(inner: Scope) -> None:
            items.append(self.eval_expr(node.elt, inner))
            if len(items) > self.b.max_list_len:
                self.check_len(len(items))

        self._comprehension(node.generators, scope, emit)
        return items

    def _setcomp(self, node: ast.SetComp, scope: Scope) -> set[Any]:
        items: set[Any] = set()

        def emit(inner: Scope) -> None:
            items.add(self.eval_expr(node.elt, inner))
            self.check_len(len(items), "set")

        self._comprehension(node.generators, scope, emit)
        return items

    def _dictcomp(self, node: ast.DictComp, scope: Scope) -> dict[Any, Any]:
        items: dict[Any, Any] = {}

        def emit(inner: Scope) -> None:
            key = self.eval_expr(node.key, inner)
            items[key] = self.eval_expr(node.value, inner)
            self.check_len(len(items), "dict")

        self._comprehension(node.generators, scope, emit)
        return items

    def _joinedstr(self, node: ast.JoinedStr, scope: Scope) -> str:
        parts: list[str] = []
        size = 0
        for value in node.values:
            part = self.eval_expr(value, scope)
            text = part if isinstance(part, str) else self.repr.str(part)
            size += len(text)
            self.check_str(size)
            parts.append(text)
        return "".join(parts)

    def _formatted(self, node: ast.FormattedValue, scope: Scope) -> str:
        value = self.eval_expr(node.value, scope)
        if node.conversion == ord("r"):
            value = repr(value) if isinstance(value, str) else self.repr.repr(value)
        elif node.conversion == ord("s"):
            value = self.repr.str(value)
        elif node.conversion == ord("a"):
            value = ascii(value) if isinstance(value, str) else ascii(self.repr.repr(value))
        spec = self.eval_expr(node.format_spec, scope) if node.format_spec is not None else ""
        text = safe_format(value, spec, self.b.max_str_len, self.repr.str)
        self.check_str(len(text))
        return text


def _is_context_manager(obj: Any) -> bool:
    """Only the engine's grad-mode managers (no_grad, enable_grad ...) may be entered."""
    module = type(obj).__module__ or ""
    return (
        module.split(".")[0] == "engine"
        and hasattr(type(obj), "__enter__")
        and hasattr(type(obj), "__exit__")
    )
