"""The program language: parse (ast) -> validate -> interpret, under budgets, in worker processes."""

from server.sandbox.budgets import Budgets
from server.sandbox.errors import BudgetError, UserError
from server.sandbox.runner import run_program

__all__ = ["BudgetError", "Budgets", "UserError", "run_program"]
