"""The budgets one program runs under (a picklable copy of the settings' budget fields)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any


@dataclass(frozen=True)
class Budgets:
    """Every limit a program runs under; defaults mirror server.settings.Settings."""

    max_source_bytes: int = 64 * 1024
    max_ast_nodes: int = 20_000
    max_ast_depth: int = 64
    max_steps: int = 1_000_000
    max_loop_iterations: int = 200_000
    max_call_depth: int = 64
    max_int_bits: int = 4096
    max_str_len: int = 100_000
    max_list_len: int = 100_000
    max_tensor_elements: int = 1_000_000
    max_total_elements: int = 20_000_000
    max_flops: int = 500_000_000
    max_graph_nodes: int = 5_000
    max_recorded_passes: int = 20
    max_output_chars: int = 100_000
    wall_clock_s: float = 3.0

    @classmethod
    def from_settings(cls, settings: Any) -> Budgets:
        """Pick this dataclass's fields out of a Settings object (same names)."""
        return cls(
            **{f.name: getattr(settings, f.name) for f in fields(cls) if hasattr(settings, f.name)}
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
