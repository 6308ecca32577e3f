"""The one error the training service raises for a request it cannot serve."""

from __future__ import annotations


class SpecError(ValueError):
    """A training spec that cannot run as given (answered with a 422 naming the reason)."""
