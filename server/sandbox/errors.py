"""User-facing errors: every failure of a program becomes one of these (type, message, line, col)."""

from __future__ import annotations

import builtins


class UserError(Exception):
    """An error in the user's program, reported as data (never a host traceback)."""

    def __init__(
        self, type_name: str, message: str, line: int | None = None, col: int | None = None
    ):
        super().__init__(message)
        self.type_name = type_name
        self.message = message
        self.line = line
        self.col = col
        # For autograd errors: (root tensor, culprit) from the engine, so the response can
        # carry the root's graph with the culprit node highlighted.
        self.autograd_focus: tuple[object, object] | None = None

    def located(self, line: int | None, col: int | None) -> UserError:
        """Fill in a position if none is known yet (the innermost node wins)."""
        if self.line is None and line is not None:
            self.line, self.col = line, col
        return self

    def as_dict(self) -> dict[str, object]:
        return {"type": self.type_name, "message": self.message, "line": self.line, "col": self.col}


class BudgetError(UserError):
    """A budget (steps, loop iterations, output, time, sizes ...) was exceeded."""

    def __init__(self, budget: str, message: str):
        super().__init__("BudgetExceeded", f"{message} (budget: {budget})")
        self.budget = budget


class UnsupportedError(UserError):
    """Syntax or a feature that the playground language leaves out on purpose."""

    def __init__(self, message: str, line: int | None = None, col: int | None = None):
        super().__init__("SyntaxError", message, line, col)


_BUILTIN_EXCEPTIONS = frozenset(
    name
    for name, obj in vars(builtins).items()
    if isinstance(obj, type) and issubclass(obj, BaseException)
)


def exception_type_name(exc: BaseException) -> str:
    """The name a learner would see: the exception's class, or its nearest builtin base."""
    for cls in type(exc).__mro__:
        if cls.__name__ == "BudgetExceeded":  # engine.limits.BudgetExceeded
            return "BudgetExceeded"
        if cls.__module__ == "builtins" and cls.__name__ in _BUILTIN_EXCEPTIONS:
            return cls.__name__
    return "RuntimeError"


def from_exception(
    exc: BaseException, line: int | None = None, col: int | None = None
) -> UserError:
    """Turn any exception raised while running user code into a UserError."""
    if isinstance(exc, UserError):
        return exc.located(line, col)
    if isinstance(exc, RecursionError):
        return UserError("RecursionError", "maximum recursion depth exceeded", line, col)
    if isinstance(exc, MemoryError):
        return BudgetError("memory", "out of memory").located(line, col)
    message = str(exc)
    if isinstance(exc, KeyError) and exc.args:
        message = repr(exc.args[0])
    error = UserError(exception_type_name(exc), message, line, col)
    error.autograd_focus = getattr(exc, "autograd_focus", None)
    return error
