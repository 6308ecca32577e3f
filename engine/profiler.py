"""``torch.profiler`` and ``torch.autograd.profiler``: a real profile of the engine's ops.

While a :class:`profile` is open, every op of the table (``engine.ops.OPS``) is timed: its
forward as ``aten::<name>`` (PyTorch's names for its own kernels) and its vector-Jacobian
product as its ``grad_fn`` (``MulBackward0``), each call an event; :class:`record_function`
adds ranges of the program's own. ``key_averages().table()`` prints them as PyTorch does
(name, self CPU %, self CPU, CPU total %, CPU total, CPU time avg, # of calls).

Nothing is paid while no profile is open: opening one wraps each op's ``forward``, ``host``
and ``vjp`` in place (an op is a frozen dataclass: ``object.__setattr__``), closing it puts
the originals back. Times are wall clock in microseconds, ``time.perf_counter_ns``.
"""

from __future__ import annotations

import enum
import functools
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine import ops as O

__all__ = [
    "ProfilerActivity", "EventList", "FunctionEventAvg", "profile", "record_function",
    "schedule",
]  # fmt: skip


class ProfilerActivity(enum.Enum):
    """What a profile records (the playground's ops all run on the CPU)."""

    CPU = 0
    CUDA = 1


@dataclass
class FunctionEventAvg:
    """One name's events added up (PyTorch's ``FunctionEventAvg``; times in microseconds)."""

    key: str
    count: int = 0
    cpu_time_total: float = 0.0
    self_cpu_time_total: float = 0.0

    @property
    def cpu_time(self) -> float:
        """The average CPU time of one call."""
        return self.cpu_time_total / self.count if self.count else 0.0

    def __repr__(self) -> str:
        return (
            f"<FunctionEventAvg key={self.key} self_cpu_time={_format_time(self.self_cpu_time_total)} "
            f"cpu_time={_format_time(self.cpu_time)} count={self.count}>"
        )


_SORT_KEYS = {
    "cpu_time": "cpu_time",
    "cpu_time_total": "cpu_time_total",
    "self_cpu_time_total": "self_cpu_time_total",
    "count": "count",
    # no GPU or memory events here: these sort as the CPU's would not, so as recorded
    "cuda_time": "",
    "cuda_time_total": "",
    "self_cuda_time_total": "",
    "cpu_memory_usage": "",
    "self_cpu_memory_usage": "",
}


class EventList(list[FunctionEventAvg]):
    """The averages of a profile, with PyTorch's ``table``."""

    def table(
        self,
        sort_by: str | None = None,
        row_limit: int = 100,
        max_src_column_width: int = 75,
        max_name_column_width: int = 55,
        max_shapes_column_width: int = 80,
        header: str | None = None,
        top_level_events_only: bool = False,
    ) -> str:
        """The events as a text table, sorted by ``sort_by`` (descending), ``row_limit`` rows."""
        rows = list(self)
        if sort_by is not None:
            if sort_by not in _SORT_KEYS:
                raise AttributeError(f"'FunctionEventAvg' object has no attribute '{sort_by}'")
            key = _SORT_KEYS[sort_by]
            if key:
                rows.sort(key=lambda e: getattr(e, key), reverse=True)
        if row_limit > 0:
            rows = rows[:row_limit]
        total_self = sum(e.self_cpu_time_total for e in self) or 1.0
        name_width = min(max_name_column_width, max([len(e.key) for e in rows] + [4]) + 4)
        headers = ["Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total", "CPU time avg",
                   "# of Calls"]  # fmt: skip
        widths = [name_width] + [12] * 6
        spaced = "  ".join("-" * w for w in widths) + "  "
        out = [header] if header else []

        def row(cells: list[str]) -> str:
            return "  ".join(c.rjust(w) for c, w in zip(cells, widths, strict=True)) + "  "

        out += [spaced, row(headers), spaced]
        for e in rows:
            name = e.key if len(e.key) <= name_width else e.key[: name_width - 3] + "..."
            out.append(
                row(
                    [
                        name,
                        f"{100 * e.self_cpu_time_total / total_self:.2f}%",
                        _format_time(e.self_cpu_time_total),
                        f"{100 * e.cpu_time_total / total_self:.2f}%",
                        _format_time(e.cpu_time_total),
                        _format_time(e.cpu_time),
                        str(e.count),
                    ]
                )
            )
        out.append(spaced)
        out.append(f"Self CPU time total: {_format_time(sum(e.self_cpu_time_total for e in self))}")
        return "\n".join(out) + "\n"

    def total_average(self) -> FunctionEventAvg:
        total = FunctionEventAvg("Total")
        for e in self:
            total.count += e.count
            total.cpu_time_total += e.cpu_time_total
            total.self_cpu_time_total += e.self_cpu_time_total
        return total


def _format_time(us: float) -> str:
    """PyTorch's time format: microseconds, milliseconds or seconds, three decimals."""
    if us >= 1e6:
        return f"{us / 1e6:.3f}s"
    if us >= 1e3:
        return f"{us / 1e3:.3f}ms"
    return f"{us:.3f}us"


@dataclass
class _Frame:
    """An event in progress: what its children took (its own time is the rest)."""

    children_ns: int = 0


@dataclass
class _Recorder:
    """The events of the profiles open now (one recorder: profiles nest as PyTorch's do)."""

    stats: dict[str, FunctionEventAvg] = field(default_factory=dict)
    stack: list[_Frame] = field(default_factory=list)
    originals: dict[int, tuple[O.Op, Any, Any, Any]] = field(default_factory=dict)

    def event(self, key: str, elapsed_ns: int, frame: _Frame) -> None:
        stat = self.stats.get(key)
        if stat is None:
            stat = self.stats[key] = FunctionEventAvg(key)
        stat.count += 1
        stat.cpu_time_total += elapsed_ns / 1000
        stat.self_cpu_time_total += (elapsed_ns - frame.children_ns) / 1000
        if self.stack:
            self.stack[-1].children_ns += elapsed_ns

    def timed(self, key: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        stack = self.stack

        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            frame = _Frame()
            stack.append(frame)
            started = time.perf_counter_ns()
            try:
                return fn(*args, **kwargs)
            finally:
                elapsed = time.perf_counter_ns() - started
                stack.pop()
                self.event(key, elapsed, frame)

        return run


_active: list[profile] = []  # open profiles, innermost last
_recorder: _Recorder | None = None


def _wrap_ops(recorder: _Recorder) -> None:
    for op in O.OPS.values():
        recorder.originals[id(op)] = (op, op.forward, op.host, op.vjp)
        forward_key = f"aten::{op.name}"
        object.__setattr__(op, "forward", recorder.timed(forward_key, op.forward))
        if op.host is not None:
            object.__setattr__(op, "host", recorder.timed(forward_key, op.host))
        object.__setattr__(op, "vjp", recorder.timed(op.grad_fn, op.vjp))


def _unwrap_ops(recorder: _Recorder) -> None:
    for op, forward, host, vjp in recorder.originals.values():
        object.__setattr__(op, "forward", forward)
        object.__setattr__(op, "host", host)
        object.__setattr__(op, "vjp", vjp)
    recorder.originals.clear()


class profile:
    """``with torch.profiler.profile() as prof: ...`` then ``prof.key_averages().table()``.

    Accepts PyTorch's arguments (``activities``, ``record_shapes``, ``profile_memory``,
    ``with_stack``, ``schedule``, ``on_trace_ready``, ``use_cuda``, ``enabled`` ...); only
    ``enabled`` changes anything: the engine's ops run on the CPU, without shapes or memory
    recorded."""

    def __init__(self, *args: Any, enabled: bool = True, **kwargs: Any) -> None:
        self.enabled = enabled
        self.on_trace_ready = kwargs.get("on_trace_ready")
        self._stats: dict[str, FunctionEventAvg] = {}
        self._opened = False

    def __enter__(self) -> profile:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        global _recorder
        if not self.enabled or self._opened:
            return
        self._opened = True
        if _recorder is None:
            _recorder = _Recorder()
            _wrap_ops(_recorder)
        _active.append(self)
        self._since = {k: (v.count, v.cpu_time_total, v.self_cpu_time_total)
                       for k, v in _recorder.stats.items()}  # fmt: skip

    def stop(self) -> None:
        global _recorder
        if not self._opened or _recorder is None:
            return
        self._opened = False
        for key, stat in _recorder.stats.items():  # what happened while this one was open
            count, total, own = self._since.get(key, (0, 0.0, 0.0))
            if stat.count > count:
                self._stats[key] = FunctionEventAvg(
                    key, stat.count - count, stat.cpu_time_total - total,
                    stat.self_cpu_time_total - own,
                )  # fmt: skip
        _active.remove(self)
        if not _active:
            _unwrap_ops(_recorder)
            _recorder = None
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def step(self) -> None:
        """A schedule's step (the whole run is one recorded span here)."""

    def key_averages(
        self, group_by_input_shape: bool = False, group_by_stack_n: int = 0
    ) -> EventList:
        """Each name's events added up, in the order first seen."""
        return EventList(self._stats.values())

    def events(self) -> EventList:
        return self.key_averages()

    def table(self, *args: Any, **kwargs: Any) -> str:
        return self.key_averages().table(*args, **kwargs)

    def __str__(self) -> str:
        return self.table()


class record_function:
    """A named range of the program's own in the profile (a context manager or decorator);
    outside a profile it costs two checks."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name = name
        self._frame: _Frame | None = None
        self._started = 0

    def __enter__(self) -> record_function:
        if _recorder is not None:
            self._frame = _Frame()
            _recorder.stack.append(self._frame)
            self._started = time.perf_counter_ns()
        return self

    def __exit__(self, *exc: object) -> None:
        frame, self._frame = self._frame, None
        if frame is not None and _recorder is not None and _recorder.stack:
            elapsed = time.perf_counter_ns() - self._started
            _recorder.stack.pop()
            _recorder.event(self.name, elapsed, frame)

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(fn)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with record_function(self.name):
                return fn(*args, **kwargs)

        return wrapped


def schedule(
    *, wait: int = 0, warmup: int = 0, active: int = 1, repeat: int = 0, skip_first: int = 0
) -> Callable[[int], Any]:
    """PyTorch's schedule: accepted; the playground records the whole profile."""

    def action(step: int) -> None:
        return None

    return action
