"""The budgets one program runs under (a picklable copy of the settings' budget fields).

The kernel enforces time, CPU and memory (:mod:`server.sandbox.jail`, the parent's SIGKILL);
these are what the worker checks itself: the source and its syntax tree, what the program
prints, and the engine's own budgets (tensor sizes, FLOPs, recorded graph nodes).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Budgets:
    """Every limit a program runs under; defaults mirror server.settings.Settings."""

    max_source_bytes: int = 64 * 1024
    max_ast_nodes: int = 20_000
    max_ast_depth: int = 100
    max_tensor_elements: int = 1_000_000
    max_total_elements: int = 20_000_000
    max_flops: int = 500_000_000
    max_graph_nodes: int = 5_000
    max_recorded_passes: int = 20
    max_output_chars: int = 100_000
    wall_clock_s: float = 5.0

    @classmethod
    def from_settings(cls, settings: Any) -> Budgets:
        """Pick this dataclass's fields out of a Settings object (same names)."""
        return cls(
            **{f.name: getattr(settings, f.name) for f in fields(cls) if hasattr(settings, f.name)}
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
