"""torch.profiler / torch.autograd.profiler: a real profile of the engine's ops."""

from __future__ import annotations

import engine as torch
from engine import ops as O
from engine.profiler import ProfilerActivity, profile, record_function


def _step(x: torch.Tensor, w: torch.Tensor) -> None:
    loss = (x * w).sum()
    loss.backward()


def test_each_op_call_is_an_event_with_its_pytorch_name() -> None:
    x = torch.ones(3)
    w = torch.ones(3, requires_grad=True)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(4):
            _step(x, w)
    counts = {e.key: e.count for e in prof.key_averages()}
    assert counts["aten::mul"] == 4 and counts["aten::sum"] == 4
    assert counts["MulBackward0"] == 4 and counts["SumBackward0"] == 4
    for e in prof.key_averages():
        assert e.cpu_time_total >= e.self_cpu_time_total >= 0 and e.cpu_time * e.count > 0


def test_the_ops_are_themselves_again_once_the_profile_closes() -> None:
    before = {name: (op.forward, op.host, op.vjp) for name, op in O.OPS.items()}
    with profile(), profile():  # nested: unwrapped once, when the outer one closes
        pass
    assert {name: (op.forward, op.host, op.vjp) for name, op in O.OPS.items()} == before


def test_a_record_function_range_holds_its_ops() -> None:
    x = torch.ones(3)
    with profile() as prof:
        with record_function("step"):
            _step(x, torch.ones(3, requires_grad=True))
        x + 1  # outside the range
    events = {e.key: e for e in prof.key_averages()}
    step = events["step"]
    inside = sum(e.cpu_time_total for k, e in events.items() if k not in ("step", "aten::add"))
    assert step.count == 1
    assert abs(step.cpu_time_total - step.self_cpu_time_total - inside) < 1e-6 * max(1.0, inside)
    assert events["aten::add"].count == 1


def test_the_table_reads_as_pytorchs() -> None:
    x = torch.ones(3)
    with profile() as prof:
        _step(x, torch.ones(3, requires_grad=True))
        _step(x, torch.ones(3, requires_grad=True))
    table = prof.key_averages().table(sort_by="count", row_limit=3)
    lines = table.splitlines()
    assert lines[1].split() == [
        "Name", "Self", "CPU", "%", "Self", "CPU", "CPU", "total", "%", "CPU", "total",
        "CPU", "time", "avg", "#", "of", "Calls",
    ]  # fmt: skip
    rows = lines[3:-2]
    assert len(rows) == 3 and all(row.split()[-1] == "2" for row in rows)
    assert lines[-1].startswith("Self CPU time total: ")


def test_the_autograd_profiler_is_the_same_and_disabled_records_nothing() -> None:
    assert torch.autograd.profiler.profile is profile  # type: ignore[attr-defined]
    with profile(enabled=False) as prof:
        torch.ones(2) * 2
    assert list(prof.key_averages()) == []
