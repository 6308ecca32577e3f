"""Liveness (issue 39): a stopped zygote is found by a heartbeat and replaced; nothing outlives
its server (a lifeline SIGKILLs the zygote's whole process group when the server dies, however
it dies); an unexplained SIGKILL is not blamed on the program's budgets."""

from __future__ import annotations

import contextlib
import json
import os
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from server.app import create_app
from server.sandbox import jail
from server.sandbox.pool import Outcome, Sandbox, SandboxConfig
from tests.api.conftest import make_settings
from tests.sandbox.test_supervision import _alive, _job, _replaced, _standby, _wait, _zygotes

ROOT = Path(__file__).resolve().parents[2]
LOOP = "while True:\n    pass"


def _error(outcome: Outcome) -> dict[str, Any]:
    error = outcome.error or (outcome.result or {}).get("error")
    assert error is not None, outcome
    return dict(error)


@contextlib.contextmanager
def _stopped(pid: int) -> Iterator[float]:
    """SIGSTOP ``pid`` (yields when); SIGCONT it at the end, should it still be there."""
    os.kill(pid, signal.SIGSTOP)
    try:
        yield time.monotonic()
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)


# ---- a stopped zygote -------------------------------------------------------------------------


def test_a_stopped_zygote_is_killed_by_the_heartbeat_and_runs_go_on() -> None:
    """Before: its ready worker served one run, and every later run waited 10 s for a 503."""
    box = Sandbox(SandboxConfig(workers=1))
    try:
        old = box._zygote.pid  # type: ignore[union-attr]
        standby = _standby(box)
        with _stopped(old) as stopped:
            first = box.run(_job("print(6 * 7)"), queue_timeout_s=14.0)  # its ready worker
            later: list[Outcome] = []
            thread = threading.Thread(
                target=lambda: later.append(box.run(_job("print(7 * 6)"), queue_timeout_s=14.0))
            )
            thread.start()  # needs a worker the stopped zygote cannot fork
            assert _wait(lambda: _replaced(box, old), 10.0)
            replaced = time.monotonic() - stopped
            thread.join(timeout=15.0 - (time.monotonic() - stopped))
            served = time.monotonic() - stopped
            third = box.run(_job("print(1)"), queue_timeout_s=5.0)
            assert _wait(lambda: not _alive(old), 2.0)  # SIGKILLed, stopped as it was
        print(f"\nstopped zygote replaced after {replaced:.2f} s, run served after {served:.2f} s")
        assert first.stdout == "42\n"
        assert [o.stdout for o in later] == ["42\n"] and served < 15.0
        assert third.stdout == "1\n"
        assert box._zygote.pid == standby  # type: ignore[union-attr]
        assert box.stuck == 1 and box.restarts == 1
        assert _wait(lambda: len(_zygotes(box)) == 2, 5.0)  # the new zygote has a standby
        # again, now that the zygote is an activated standby (not our child: killed by pidfd)
        with _stopped(standby) as stopped:
            assert _wait(lambda: _replaced(box, standby), 10.0)
            again = time.monotonic() - stopped
            assert box.run(_job("print(2)"), queue_timeout_s=5.0).stdout == "2\n"
            assert _wait(lambda: not _alive(standby), 2.0)
        print(f"a stopped activated standby replaced after {again:.2f} s")
        assert box.stuck == 2 and box.restarts == 2
    finally:
        box.close()


def test_readyz_says_why_while_a_stopped_zygote_is_replaced_and_healthz_stays_up() -> None:
    with TestClient(create_app(make_settings())) as client:
        sandbox: Sandbox = client.app.state.sandbox  # type: ignore[attr-defined]
        old = sandbox._zygote.pid  # type: ignore[union-attr]
        assert client.get("/readyz").status_code == 200
        seen: list[tuple[int, str | None]] = []
        health: list[int] = []

        def back() -> bool:
            response = client.get("/readyz")
            seen.append((response.status_code, response.json().get("reason")))
            health.append(client.get("/healthz").status_code)
            return seen[-1][0] == 200 and _replaced(sandbox, old)

        with _stopped(old) as stopped:
            assert _wait(back, 10.0), seen[-5:]
            assert time.monotonic() - stopped < 10.0
            body = client.post("/api/v1/run", json={"source": "print(6 * 7)"}).json()
            assert time.monotonic() - stopped < 15.0
        assert body["ok"] and body["stdout"] == "42\n"
        reasons = [reason or "" for status, reason in seen if status == 503]
        assert any("heartbeat" in r for r in reasons), seen
        assert set(health) == {200}  # recovering: alive all along


def test_healthz_fails_when_a_stuck_zygote_cannot_be_replaced(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The kill does not help (here: it does nothing): past the restart deadline liveness
    fails, and it comes back once the zygote answers again."""
    with TestClient(create_app(make_settings(sandbox_restart_deadline_s=2.0))) as client:
        sandbox: Sandbox = client.app.state.sandbox  # type: ignore[attr-defined]
        zygote = sandbox._zygote
        assert zygote is not None
        monkeypatch.setattr(zygote, "kill_now", lambda: None)
        with _stopped(zygote.pid) as stopped:
            assert _wait(lambda: client.get("/healthz").status_code == 503, 6.0)
            failed = time.monotonic() - stopped
            assert client.get("/healthz").json() == {"status": "failing", "sandbox": "failed"}
            ready = client.get("/readyz")
            assert ready.status_code == 503 and "heartbeat" in ready.json()["reason"]
            assert sandbox.failing() is not None and "heartbeat" in sandbox.failing()  # type: ignore[operator]
        assert failed >= 2.0
        assert _wait(lambda: client.get("/healthz").status_code == 200, 5.0)  # it answers again
        assert _wait(lambda: client.get("/readyz").status_code == 200, 5.0)
        assert sandbox._zygote is zygote


# ---- nothing outlives its server ----------------------------------------------------------------


def _parents() -> dict[int, int]:
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                stat = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                found[int(entry.name)] = int(stat[1])
    return found


def _descendants(pid: int) -> set[int]:
    parents = _parents()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        frontier = {p for p, parent in parents.items() if parent in frontier} - found
        found |= frontier
    return found


def _gone_within(pids: set[int], seconds: float) -> tuple[bool, float, set[int]]:
    started = time.monotonic()
    ok = _wait(lambda: not any(_alive(p) for p in pids), seconds)
    return ok, time.monotonic() - started, {p for p in pids if _alive(p)}


def _kill_leftovers(pids: set[int]) -> None:
    for pid in pids:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


CHILD = """
import json, threading, time
from server.program.budgets import Budgets
from server.sandbox.pool import Sandbox, SandboxConfig

box = Sandbox(SandboxConfig(workers=2, wall_clock_s=60.0))
job = {"source": "while True:\\n    pass", "budgets": Budgets(wall_clock_s=60.0).as_dict()}
threading.Thread(target=box.run, args=(job,), daemon=True).start()
deadline = time.monotonic() + 30
while not box._busy and time.monotonic() < deadline:
    time.sleep(0.02)
print(json.dumps({"zygote": box._zygote.pid, "busy": list(box._busy)}), flush=True)
time.sleep(600)
"""


def test_nothing_outlives_a_killed_sandbox_process() -> None:
    """SIGKILL the process that holds the sandbox while a program loops forever: 3 s later no
    zygote, standby or worker is left (before: the workers lived on, adopted by init)."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD], cwd=ROOT, stdout=subprocess.PIPE, text=True
    )
    family: set[int] = set()
    try:
        assert child.stdout is not None
        ready, _, _ = select.select([child.stdout], [], [], 60.0)
        assert ready, "the sandbox did not start"
        info = json.loads(child.stdout.readline())
        assert info["busy"], "the loop did not start"
        family = _descendants(child.pid)
        # the zygote, its standby, the looping worker and a ready one at least
        assert {info["zygote"], *info["busy"]} <= family and len(family) >= 4, family
        assert all(_alive(p) for p in family)
        child.kill()
        child.wait()
        gone, took, left = _gone_within(family, 3.0)
        print(f"\n{len(family)} processes gone {took:.3f} s after their server's SIGKILL")
        assert gone, f"still running 3 s after the server died: {left}"
    finally:
        child.kill()
        child.wait()
        if child.stdout is not None:
            child.stdout.close()
        _kill_leftovers({p for p in family if _alive(p)})


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _get(url: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            body: dict[str, Any] = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        body = json.loads(exc.read())
    return body


def test_nothing_outlives_a_killed_server() -> None:
    """The same with the real server (``python -m server``: its sandbox is started from a
    thread of a pool, and it is that process that is SIGKILLed)."""
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGP_")}
    env.update(
        AGP_SANDBOX_WORKERS="1", AGP_RATE_LIMIT_PER_MINUTE="0", AGP_WALL_CLOCK_S="60",
        AGP_SANDBOX_SLICE_S="30",
    )  # fmt: skip
    server = subprocess.Popen(
        [sys.executable, "-m", "server", "--port", str(port), "--workers", "1"],
        env=env,
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    family: set[int] = set()
    try:

        def ready() -> bool:
            with contextlib.suppress(OSError, ValueError):
                return _get(f"{base}/readyz").get("status") == "ready"
            return False

        assert _wait(ready, 60.0), "the server did not start"

        def loop() -> None:
            request = urllib.request.Request(
                f"{base}/api/v1/run",
                data=json.dumps({"source": LOOP}).encode(),
                headers={"content-type": "application/json"},
            )
            with contextlib.suppress(OSError):
                urllib.request.urlopen(request, timeout=30).read()

        threading.Thread(target=loop, daemon=True).start()
        assert _wait(lambda: _get(f"{base}/readyz").get("running", 0) >= 1, 10.0)
        family = _descendants(server.pid)
        assert len(family) >= 3, family  # the zygote, its standby, the looping worker at least
        server.kill()
        server.wait()
        gone, took, left = _gone_within(family, 3.0)
        print(f"\n{len(family)} processes gone {took:.3f} s after the server's SIGKILL")
        assert gone, f"still running 3 s after the server died: {left}"
    finally:
        server.kill()
        _kill_leftovers({p for p in family if _alive(p)})


def _pipe_inode(link: str) -> str | None:
    return link if link.startswith("pipe:") else None


def test_only_the_zygotes_hold_the_lifeline_and_programs_cannot_leave_its_group() -> None:
    box = Sandbox(SandboxConfig(workers=1, wall_clock_s=5.0))
    try:
        zygote = box._zygote
        assert zygote is not None
        assert zygote.pgid == zygote.pid == os.getpgid(zygote.pid) != os.getpgrp()
        armed = []  # the zygote's descriptors with O_ASYNC (the lifeline)
        for fd in os.listdir(f"/proc/{zygote.pid}/fdinfo"):
            info = Path(f"/proc/{zygote.pid}/fdinfo/{fd}").read_text()
            flags = int(info.split("flags:")[1].split()[0], 8)
            if flags & os.O_ASYNC:
                armed.append(os.readlink(f"/proc/{zygote.pid}/fd/{fd}"))
        assert len(armed) == 1 and _pipe_inode(armed[0]), armed
        assert _wait(lambda: len(_zygotes(box)) == 2, 5.0)
        for other in _zygotes(box):  # the standby holds it too (it carries it on)
            links = {
                os.readlink(f"/proc/{other}/fd/{fd}") for fd in os.listdir(f"/proc/{other}/fd")
            }
            assert armed[0] in links
        results: list[Outcome] = []
        thread = threading.Thread(target=lambda: results.append(box.run(_job(LOOP, 2.0))))
        thread.start()
        assert _wait(lambda: len(box._busy) == 1, 5.0)
        (worker,) = box._busy
        links = {os.readlink(f"/proc/{worker}/fd/{fd}") for fd in os.listdir(f"/proc/{worker}/fd")}
        assert armed[0] not in links  # closed before the jail
        assert os.getpgid(worker) == zygote.pgid
        thread.join(timeout=10.0)
        if box.mode == "seccomp":
            leave = "import os\nfor f in (os.setsid, lambda: os.setpgid(0, 0)):\n    try:\n        f()\n        print('left')\n    except PermissionError:\n        print('no')"
            assert box.run(_job(leave)).stdout == "no\nno\n"
    finally:
        box.close()
    never = set(jail.NEVER_ALLOWED)
    assert not never & {*jail.BASE_SYSCALLS, *jail.CUDA_SYSCALLS}


def test_closing_the_sandbox_ends_its_running_workers_too() -> None:
    box = Sandbox(SandboxConfig(workers=1, wall_clock_s=60.0))
    thread = threading.Thread(target=lambda: box.run(_job(LOOP, 60.0)))
    try:
        thread.start()
        assert _wait(lambda: len(box._busy) == 1, 10.0)
        (worker,) = box._busy
    finally:
        box.close()
    assert _wait(lambda: not _alive(worker), 3.0)
    thread.join(timeout=5.0)


# ---- a SIGKILL from outside ---------------------------------------------------------------------


#: the wall clock of the CPU-limit tests: far past the limit's seconds, whatever the load
WALL_S = 300.0


@pytest.fixture(scope="module")
def one_cpu_second() -> Iterator[Sandbox]:
    """A CPU limit of one second, under a wall clock that a loaded machine cannot reach first
    (the programs here spend CPU seconds, not wall seconds), and no renicing (a reniced loop on
    busy cores gets a second of CPU only after minutes)."""
    box = Sandbox(SandboxConfig(workers=1, wall_clock_s=WALL_S, cpu_seconds=1, slice_s=WALL_S))
    yield box
    box.close()


def test_a_worker_killed_from_outside_is_not_blamed_on_its_budgets(
    one_cpu_second: Sandbox,
) -> None:
    box = one_cpu_second
    results: list[Outcome] = []
    thread = threading.Thread(target=lambda: results.append(box.run(_job(LOOP, 5.0))))
    thread.start()
    assert _wait(lambda: len(box._busy) == 1, 5.0)
    (worker,) = box._busy
    time.sleep(0.2)  # let it loop a little: it is a running program that is killed
    os.kill(worker, signal.SIGKILL)
    thread.join(timeout=10.0)
    (outcome,) = results
    error = _error(outcome)
    assert "outside the sandbox" in error["message"], error
    assert "cpu_s" not in error["message"] and "memory" not in error["message"].split("(")[0]


def test_the_cpu_limit_is_still_said_to_be_the_cpu_limit(one_cpu_second: Sandbox) -> None:
    box = one_cpu_second
    # the soft limit's SIGXCPU, its handler put back to the default (the process ends)
    default = f"import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_DFL)\n{LOOP}"
    error = _error(box.run(_job(default, WALL_S)))
    assert "used up its CPU time" in error["message"] and "cpu_s" in error["message"], error
    # SIGXCPU ignored: the kernel's SIGKILL at the hard limit, a second later
    ignored = f"import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n{LOOP}"
    error = _error(box.run(_job(ignored, WALL_S)))
    assert "cpu_s" in error["message"] and "CPU time limit" in error["message"], error
