"""The zygote is supervised (issue 21): a dead zygote is replaced at once, without waiting for a
request, by one new zygote however many requests arrive meanwhile; and every worker stays
tracked, killable and renice-able whichever zygote forked it, alive or dead."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import Any

from server.program.budgets import Budgets
from server.sandbox.pool import Outcome, Sandbox, SandboxConfig

#: a loop that swallows the soft wall clock's TimeoutError: only the hard kill ends it
STUBBORN = "while True:\n    try:\n        while True:\n            pass\n    except BaseException:\n        pass"


def _job(source: str, wall_clock_s: float = 5.0) -> dict[str, Any]:
    return {"source": source, "budgets": Budgets(wall_clock_s=wall_clock_s).as_dict()}


def _zygote_processes() -> dict[int, int]:
    """pid -> parent pid of every live, unjailed process running the zygote's entry point (a
    zygote or a standby: the workers it forks are jailed)."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            cmdline = (entry / "cmdline").read_bytes()
            status = (entry / "status").read_text()
        except OSError:
            continue
        if fields[0] != "Z" and b"server.sandbox.zygote" in cmdline and "Seccomp:\t0" in status:
            found[int(entry.name)] = int(fields[1])
    return found


def _workers(box: Sandbox) -> set[int]:
    """The pids of the workers the box knows (forked, queued or running a program)."""
    with box._lock:
        return {w.pid for queue in box._ready.values() for w in queue} | set(box._busy)


def _zygotes(box: Sandbox) -> list[int]:
    """The box's zygote and its standby (the zygote's unjailed child that is not a worker).

    A worker is unjailed too for the moment between its fork and its jail, before the box has
    heard of it: callers that need the standby alone use :func:`_standby`."""
    zygote = box._zygote
    if zygote is None:
        return []
    processes = _zygote_processes()
    if zygote.pid not in processes:
        return []
    workers = _workers(box)
    children = (pid for pid, parent in processes.items() if parent == zygote.pid)
    return sorted([zygote.pid, *(pid for pid in children if pid not in workers)])


def _standby(box: Sandbox, timeout: float = 5.0) -> int:
    """The box's standby: the one unjailed child of its zygote that stays unjailed and is no
    worker, seen alone in every sample over half a second (a worker caught between its fork
    and its jail is jailed, or known to the box, within that)."""
    deadline = time.monotonic() + timeout
    seen: tuple[int, float] | None = None  # the lone candidate, and since when
    while time.monotonic() < deadline:
        zygote = box._zygote
        others = set(_zygotes(box)) - ({zygote.pid} if zygote is not None else set())
        if len(others) != 1:
            seen = None
        else:
            (pid,) = others
            if seen is None or seen[0] != pid:
                seen = (pid, time.monotonic())
            elif time.monotonic() - seen[1] >= 0.5:
                return pid
        time.sleep(0.05)
    raise AssertionError(f"no lone standby within {timeout} s: {_zygotes(box)}")


def _started_here() -> set[int]:
    """Zygotes this test process started itself (its children)."""
    return {pid for pid, parent in _zygote_processes().items() if parent == os.getpid()}


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _niceness(pid: int) -> int:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[16])


def _wait(condition: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return bool(condition())


def _replaced(box: Sandbox, old: int) -> bool:
    zygote = box._zygote
    return zygote is not None and zygote.pid != old and box.ready()


def test_a_killed_zygote_is_replaced_by_its_standby_without_any_request() -> None:
    box = Sandbox(SandboxConfig(workers=2))
    try:
        old = box._zygote.pid  # type: ignore[union-attr]
        standby = _standby(box)  # the zygote's loaded copy, waiting
        os.kill(old, signal.SIGKILL)
        # nothing asks for a worker meanwhile: the supervisor replaces it on its own
        assert _wait(lambda: _replaced(box, old), 10.0)
        assert box._zygote.pid == standby  # type: ignore[union-attr]
        assert box.restarts == 1 and box.mode in ("seccomp", "none")
        outcome = box.run(_job("print(6 * 7)"))
        assert outcome.stdout == "42\n"
        # and the new zygote has a standby of its own
        assert _wait(lambda: len(_zygotes(box)) == 2, 5.0) and standby in _zygotes(box)
        pids = _zygotes(box)
    finally:
        box.close()
    assert _wait(lambda: not set(pids) & set(_zygote_processes()), 5.0)  # closing ends both


def test_without_a_standby_a_new_zygote_is_started() -> None:
    """The standby died too (or there is none): a new zygote is started, still without any
    request, and only one."""
    box = Sandbox(SandboxConfig(workers=2))
    try:
        old = box._zygote.pid  # type: ignore[union-attr]
        assert _wait(lambda: len(_zygotes(box)) == 2, 5.0)
        for pid in _zygotes(box):
            os.kill(pid, signal.SIGKILL)
        assert _wait(lambda: _replaced(box, old), 60.0)  # a whole start: seconds
        assert box.restarts == 1
        assert _wait(lambda: len(_zygotes(box)) == 2, 5.0)  # the new one and its standby
        assert box.run(_job("print(6 * 7)")).stdout == "42\n"
    finally:
        box.close()


def test_requests_during_a_restart_start_one_zygote_and_are_all_served() -> None:
    """The issue's race: 6 runs arriving after a zygote death started 5 zygotes."""
    box = Sandbox(SandboxConfig(workers=2, standby=False))
    try:
        old = box._zygote.pid  # type: ignore[union-attr]
        before = _started_here()
        os.kill(old, signal.SIGKILL)
        assert _wait(lambda: box._zygote is None, 5.0)
        outcomes: list[Outcome] = []
        threads = [
            threading.Thread(target=lambda: outcomes.append(box.run(_job("print(1)"), 30.0)))
            for _ in range(6)
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert [o.stdout for o in outcomes] == ["1\n"] * 6
        assert box.restarts == 1
        assert _started_here() - before == {box._zygote.pid}  # type: ignore[union-attr]
    finally:
        box.close()


def test_a_running_program_is_reniced_and_killed_after_its_zygote_died() -> None:
    """A worker outlives its zygote: the server still lowers its priority and kills it at the
    wall clock (through its pidfd), so a loop that swallows TimeoutError stops on time."""
    box = Sandbox(SandboxConfig(workers=2, wall_clock_s=3.0, grace_s=0.5, slice_s=0.2))
    results: list[Outcome] = []
    try:
        thread = threading.Thread(target=lambda: results.append(box.run(_job(STUBBORN, 3.0))))
        thread.start()
        assert _wait(lambda: len(box._busy) == 1, 5.0)
        (pid,) = box._busy
        os.kill(box._zygote.pid, signal.SIGKILL)  # type: ignore[union-attr]
        # reniced by the server itself, past the slice (0.2 s CPU: 10, 0.6 s: 19)
        assert _wait(lambda: not _alive(pid) or _niceness(pid) == 19, 5.0)
        thread.join(timeout=10)
        assert not thread.is_alive()
        assert _wait(lambda: not _alive(pid), 2.0)  # killed at wall clock + grace
    finally:
        box.close()
    (outcome,) = results
    error = outcome.error or (outcome.result or {}).get("error")
    assert error is not None and error["type"] == "TimeoutError"


def test_a_long_program_says_so_once() -> None:
    box = Sandbox(SandboxConfig(workers=1, slice_s=0.2))
    calls: list[float] = []
    try:
        started = time.monotonic()
        outcome = box.run(
            _job("while True:\n    pass", 1.5), on_long=lambda: calls.append(time.monotonic())
        )
        quick = box.run(_job("print(1)"), on_long=lambda: calls.append(-1.0))
    finally:
        box.close()
    error = outcome.error or (outcome.result or {}).get("error")
    assert error is not None and error["type"] == "TimeoutError"
    assert quick.stdout == "1\n"
    assert len(calls) == 1 and calls[0] > started  # the loop, once; the short program never
