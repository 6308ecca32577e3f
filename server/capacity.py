"""How many runs a server process may hold at once: slots from the cores, capped by memory.

Each run's worker may use up to its address-space limit (``sandbox_memory_limit_bytes``,
RLIMIT_AS), so the runs held at once (short and long together) times that limit must fit the
memory budget for runs: ``run_memory_budget_bytes``, or by default the memory this process may
use (its cgroup's limit, else the host's), less ``server_memory_reserve_bytes`` for each server
process, shared by the server processes (``AGP_WORKERS``). A run that does not fit waits in
admission control like any other. docs/serving.md has the sizing rule and a worked example.
"""

from __future__ import annotations

import os
from pathlib import Path

from server.settings import Settings

#: cgroup v2's and v1's memory limit of this process's group ("max" or a huge number: none)
_CGROUP_LIMITS = (
    Path("/sys/fs/cgroup/memory.max"),
    Path("/sys/fs/cgroup/memory/memory.limit_in_bytes"),
)


def host_memory_bytes() -> int:
    """The memory this process may use: its cgroup's limit where it has one, else the host's."""
    total = _meminfo_total()
    for path in _CGROUP_LIMITS:
        try:
            raw = path.read_text().strip()
        except OSError:
            continue
        if raw.isdigit() and 0 < int(raw) < total:
            return int(raw)
    return total


def _meminfo_total() -> int:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def run_memory_budget(settings: Settings) -> int:
    """Bytes this server process's runs may hold together (0: no address-space limit, so no
    budget can be kept)."""
    if settings.run_memory_budget_bytes:
        return settings.run_memory_budget_bytes
    processes = max(1, settings.workers)
    spare = host_memory_bytes() - processes * settings.server_memory_reserve_bytes
    return max(0, spare) // processes


def run_slots(settings: Settings) -> tuple[int, int]:
    """(short slots, long slots) of this server process: ``sandbox_workers`` and the long
    slots (0: twice as many), cut so that every run held at once fits the memory budget (at
    least one short slot: a server that can run nothing is no use; its budget is then wrong)."""
    short = max(1, settings.sandbox_workers)
    long = settings.sandbox_long_workers or 2 * short
    per_run = settings.sandbox_memory_limit_bytes
    if per_run <= 0:
        return short, long
    fit = max(1, run_memory_budget(settings) // per_run)
    short = min(short, fit)
    return short, max(0, min(long, fit - short))
